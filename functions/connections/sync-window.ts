/** A first sync of calls, a calendar or a social account reads this many months back. */
export const INITIAL_HISTORY_MONTHS = 12;

export function historyStart(now: Date): Date {
  const start = new Date(now);
  start.setUTCMonth(start.getUTCMonth() - INITIAL_HISTORY_MONTHS);
  return start;
}
