/** What the simulate feature offers the other features (nothing yet); how the app wires it in is feature.ts. */
export { MIN_COHORT_SIZE } from './projection.js';
