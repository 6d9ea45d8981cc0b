import type { FeatureModule } from '../module.js';
import { researchOperations } from './operations.js';

/** The research feature as the app wires it in (functions/module.ts). */
export const researchModule: FeatureModule = {
  name: 'research',
  operations: researchOperations,
};
