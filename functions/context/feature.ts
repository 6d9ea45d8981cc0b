import type { FeatureModule } from '../module.js';
import { contextOperations } from './operations.js';

/** The knowledge operations (ask, substrate query, cluster search, explore, hybrid search) as the app wires them in. */
export const contextModule: FeatureModule = {
  name: 'context',
  operations: contextOperations,
};
