import { CronExpressionParser } from 'cron-parser';

/**
 * Routine schedules: five-field cron expressions (minute hour day-of-month month day-of-week; no
 * seconds) read in an IANA time zone, with cron-parser doing the calendar work. Across daylight-
 * saving changes a local time that does not exist (spring forward) fires once, at the first instant
 * after the gap; a local time that happens twice (fall back) fires once.
 */

export type CronProblem = { field: 'cron' | 'timezone'; problem: string };

export function checkTimezone(timezone: string): CronProblem | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone }).format(0);
    return null;
  } catch {
    return {
      field: 'timezone',
      problem: `unknown IANA time zone "${timezone}" (e.g. UTC, Europe/Berlin, America/New_York)`,
    };
  }
}

export function checkCron(cron: string, timezone: string): CronProblem | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) {
    return {
      field: 'cron',
      problem: `needs exactly five fields (minute hour day-of-month month day-of-week), got ${fields.length}; seconds are not accepted`,
    };
  }
  try {
    CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: new Date(0) }).next();
    return null;
  } catch (error) {
    return {
      field: 'cron',
      problem: `not a valid cron expression: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** The first scheduled time strictly after `after`. */
export function nextOccurrence(cron: string, timezone: string, after: Date): Date {
  return CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: after }).next().toDate();
}

/** Steps forward this many scheduled times at most before falling back to a backward search. */
const MAX_CATCH_UP_STEPS = 10_000;

/**
 * The latest scheduled time at or before `at`, counting forward from `due` (the routine's stored
 * next time, itself at or before `at`): what a late or caught-up tick fires. Forward, because
 * cron-parser's forward and backward walks disagree across a daylight-saving gap (the forward walk
 * fires a skipped 2:30 at 3:30; the backward one does not see it), and next_run_at came forward.
 */
export function latestDueOccurrence(cron: string, timezone: string, due: Date, at: Date): Date {
  const walk = CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: due });
  let latest = due;
  for (let i = 0; i < MAX_CATCH_UP_STEPS; i++) {
    const next = walk.next().toDate();
    if (next.getTime() > at.getTime()) return latest;
    latest = next;
  }
  return CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: new Date(at.getTime() + 1) })
    .prev()
    .toDate();
}

/** "YYYY-MM-DD" of an instant in a time zone (the fire's chat is named after its local date). */
export function localDate(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}
