import type { FeatureModule } from '../module.js';
import { memoryOperations } from './operations.js';

/** The memory feature as the app wires it in (functions/modules.ts). */
export const memoryModule: FeatureModule = {
  name: 'memory',
  operations: memoryOperations,
};
