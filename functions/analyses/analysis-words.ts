import type { AnalysisPeriod } from './analysis.js';

/**
 * How analyses write what they read. Every number they print is a cell of one of their blocks or a
 * parameter of the request they cite, so the grounding verifier can back it: a period is written with
 * the request's own dates ("before" its exclusive end, never the day before it).
 */

/** " from 2026-07-01, before 2026-10-01", or nothing for all of the data. */
export const periodWords = (period: AnalysisPeriod | undefined): string =>
  period ? ` from ${period.from}, before ${period.to}` : '';

/** A percentage cell as prose writes it: 40.2 → "40.2%". */
export const share = (pct: number): string => `${pct}%`;

/** "Acme Logistics", "Acme Logistics and Birch Health", "Acme, Birch and Cobalt". */
export function accountNamesIn(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
