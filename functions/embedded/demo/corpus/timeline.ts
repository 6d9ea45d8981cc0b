import type { Rng } from './prng.js';

const DAY_MS = 86_400_000;

/** The window the corpus covers, and the stretch inside it where nothing happened. */
export interface CorpusTimeline {
  start: Date;
  end: Date;
  /** Three weeks with no interaction at all, so gap detection has something real to find. */
  quietStart: Date;
  quietEnd: Date;
}

export const CORPUS_DAYS = 548; // 18 months
const QUIET_STARTS_DAYS_AGO = 215;
const QUIET_DAYS = 21;

export function corpusTimeline(now: Date): CorpusTimeline {
  const end = now.getTime();
  return {
    start: new Date(end - CORPUS_DAYS * DAY_MS),
    end: new Date(end),
    quietStart: new Date(end - QUIET_STARTS_DAYS_AGO * DAY_MS),
    quietEnd: new Date(end - (QUIET_STARTS_DAYS_AGO - QUIET_DAYS) * DAY_MS),
  };
}

/**
 * `count` event times spread over the timeline outside the quiet stretch: one per equal slot of
 * active time (stratified, so there are no accidental multi-day holes), slots slightly denser
 * toward the present (the team grew), a business-hours time of day, and calls moved off weekends.
 * Returned in ascending order.
 */
export function spreadEventTimes(
  timeline: CorpusTimeline,
  count: number,
  rng: Rng,
  options: { weekdaysOnly: boolean },
): Date[] {
  const start = timeline.start.getTime();
  const quietStart = timeline.quietStart.getTime();
  const quietLength = timeline.quietEnd.getTime() - quietStart;
  // Keep the newest event a little before `now`, as a real sync would be.
  const activeLength = timeline.end.getTime() - 2 * 3_600_000 - start - quietLength;
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const u = (i + rng.next()) / count;
    // Growth: density rises about 1.6x from the first month to the last.
    const warped = u ** 0.8;
    let t = start + warped * activeLength;
    if (t >= quietStart) t += quietLength;
    times.push(placeInWorkday(t, rng, options.weekdaysOnly, timeline));
  }
  return times.sort((a, b) => a - b).map((t) => new Date(t));
}

function placeInWorkday(t: number, rng: Rng, weekdaysOnly: boolean, timeline: CorpusTimeline): number {
  const day = Math.floor(t / DAY_MS) * DAY_MS;
  let dayStart = day;
  const weekday = new Date(day).getUTCDay();
  if (weekdaysOnly && (weekday === 0 || weekday === 6) && rng.chance(0.9)) {
    // Saturday to Friday, Sunday to Monday: a call slips to the nearest working day.
    dayStart += weekday === 6 ? -DAY_MS : DAY_MS;
  }
  // 13:00-22:00 UTC: US business hours, where most of this team's customers are.
  const placed = dayStart + 13 * 3_600_000 + Math.floor((rng.next() * 9 * 3_600_000) / 60_000) * 60_000;
  return clampOutsideQuiet(placed, timeline);
}

/** Moving an event to a workday must neither push it into the quiet stretch nor past the window. */
function clampOutsideQuiet(t: number, timeline: CorpusTimeline): number {
  const qs = timeline.quietStart.getTime();
  const qe = timeline.quietEnd.getTime();
  let out = t;
  if (out >= qs && out < qe) out = out - qs < qe - out ? qs - 3_600_000 : qe + 3_600_000;
  const latest = timeline.end.getTime() - 60_000;
  const earliest = timeline.start.getTime();
  return Math.min(latest, Math.max(earliest, out));
}

export const addDays = (d: Date, days: number): Date => new Date(d.getTime() + days * DAY_MS);
export const daysBetween = (a: Date, b: Date): number => (b.getTime() - a.getTime()) / DAY_MS;
export const isoDate = (d: Date): string => d.toISOString().slice(0, 10);
