/**
 * What the artifacts feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export { commitVersion, logOutput, outputsOf } from './repository.js';
