/**
 * The demo corpus, loaded once per test run into a second template database (global setup), so
 * search tests start from a realistic warehouse in about a second instead of loading it per file.
 * Loading is deterministic: the same workspace id, seed and `now` give the same rows.
 */
export const CORPUS_WORKSPACE_ID = '0193b000-0000-7000-8000-00000000c0de';
export const CORPUS_WORKSPACE_NAME = 'Corpus workspace';
/** The corpus ends here; tests that read ages or "recent" windows run a ManualClock at it. */
export const CORPUS_NOW = new Date('2026-11-20T12:00:00.000Z');
