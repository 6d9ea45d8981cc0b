import { featureModules } from '../modules.js';
import type { OperationRegistry } from '../registry.js';
import type { App } from './env.js';
import { globalRateLimit } from './global-limit.js';

/**
 * The routes that are not operations, from each feature module's `routes` (functions/module.ts):
 * OAuth discovery, registration, authorize (with its consent page), token and revocation, the
 * console's pages, the return from a source's OAuth consent and pushes to a webhook source's
 * signed ingest URL. They do not fit the `{data}`-wrapped JSON operations: OAuth endpoints answer
 * in the RFCs' formats (`{error, error_description}`) and console pages are HTML with cookie
 * sessions and CSRF tokens. They are mounted before the API's credential check (a person or client
 * arrives here without an API credential) and share the global per-IP limit with the API: paths
 * outside the API prefix are counted here, those under it by the limiter createApp mounts first.
 */
export function mountBrowserAndOAuthRoutes(app: App, registry: OperationRegistry): void {
  for (const module of featureModules)
    for (const path of module.routes?.limitedPaths ?? []) app.use(path, globalRateLimit);
  for (const module of featureModules)
    for (const routes of module.routes?.build(registry) ?? []) app.route('/', routes);
}
