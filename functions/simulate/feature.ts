import type { FeatureModule } from '../module.js';
import { simulateOperations } from './operations.js';

/** What-if projections over a cohort (functions/module.ts), served behind SIMULATE_ENABLED. */
export const simulateModule: FeatureModule = {
  name: 'simulate',
  operations: simulateOperations,
};
