/**
 * What the lookalike feature offers the other features (and tests): they import it from here. How
 * the app wires the feature in is feature.ts.
 */
export { bareDomain } from './find.js';
export { claimMaterializations, requestMaterializations } from './materialize-pipeline.js';
export { vectorLiteral } from './vector-literal.js';
