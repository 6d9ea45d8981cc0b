import type { FeatureModule } from '../module.js';
import { consoleOperations } from './operations.js';
import { consoleRoutes } from './routes.js';

/** The console feature as the app wires it in (functions/module.ts). */
export const consoleModule: FeatureModule = {
  name: 'console',
  operations: consoleOperations,
  // HTML pages with cookie sessions and CSRF tokens, not {data}-wrapped JSON.
  routes: { limitedPaths: ['/console/*', '/console'], build: (registry) => [consoleRoutes(registry)] },
};
