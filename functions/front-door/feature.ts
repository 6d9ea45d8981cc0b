import type { FeatureModule } from '../module.js';
import { frontDoorRoutes } from './routes.js';

/** The front door: the landing page, the API reference and the API root's pointers. */
export const frontDoorModule: FeatureModule = {
  name: 'front-door',
  operations: [],
  routes: { limitedPaths: ['/', '/docs', '/docs/*'], build: (registry) => [frontDoorRoutes(registry)] },
};
