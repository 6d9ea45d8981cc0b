/** What the sql-query feature offers the other features (none yet); how the app wires it in is feature.ts. */
export { QUERY_VIEWS } from './guard.js';
