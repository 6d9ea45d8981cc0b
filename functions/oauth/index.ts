/**
 * What the oauth feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export { isWellFormedAuthorizationQuery } from './authorization-request.js';
export { revokeGrantIn } from './grants.js';
export { protectedResourceMetadataUrl } from './metadata.js';
export { SCOPE_DESCRIPTIONS, scopesForRole } from './scope-policy.js';
