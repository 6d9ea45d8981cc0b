import type { FeatureModule } from '../module.js';
import { setupOperations } from './operations.js';

/** The setup feature as the app wires it in (functions/module.ts). */
export const setupModule: FeatureModule = {
  name: 'setup',
  operations: setupOperations,
};
