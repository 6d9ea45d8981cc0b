import { connectionOAuthRoutes } from '../connections/oauth-flow.js';
import { connectionIngestRoutes } from '../connections/push-route.js';
import { consoleRoutes } from '../console/routes.js';
import { oauthRoutes } from '../oauth/routes.js';
import type { OperationRegistry } from '../registry.js';
import type { App } from '../app.js';
import { globalRateLimit } from './global-limit.js';

/**
 * The routes that are not operations, in one place: OAuth discovery, registration, authorize (with
 * its consent page), token and revocation, the console's pages, and the return from a source's
 * OAuth consent (functions/connections/oauth-flow.ts) and pushes to a webhook source's signed ingest
 * URL (functions/connections/push-route.ts). They do not fit the
 * `{data}`-wrapped JSON operations: OAuth endpoints answer in the RFCs' formats (`{error,
 * error_description}`) and console pages are HTML with cookie sessions and CSRF tokens. They are
 * mounted before the API's credential check (a person or client arrives here without an API
 * credential) and share the global per-IP limit with the API.
 */
export function mountBrowserAndOAuthRoutes(app: App, registry: OperationRegistry): void {
  app.use('/console/*', globalRateLimit);
  app.use('/console', globalRateLimit);
  app.use('/.well-known/*', globalRateLimit);
  app.route('/', oauthRoutes());
  // Under the API prefix, whose own limiter (mounted first, in createApp) already counts them.
  app.route('/', connectionOAuthRoutes());
  app.route('/', connectionIngestRoutes());
  app.route('/', consoleRoutes(registry));
}
