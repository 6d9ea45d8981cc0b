import type { FeatureModule } from '../module.js';
import { oauthRoutes } from './routes.js';

/**
 * OAuth 2.0 for MCP clients: discovery, registration, authorize (with its consent page), token and
 * revocation. No operations: its endpoints answer in the RFCs' formats (`{error, error_description}`).
 */
export const oauthModule: FeatureModule = {
  name: 'oauth',
  operations: [],
  routes: { limitedPaths: ['/.well-known/*'], build: () => [oauthRoutes()] },
};
