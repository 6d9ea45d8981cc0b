import type { FeatureModule } from '../module.js';
import { analysisOperations } from './operations.js';

/** The analyses as the app wires them in (functions/module.ts). */
export const analysesModule: FeatureModule = {
  name: 'analyses',
  operations: analysisOperations,
};
