import type { FeatureModule } from '../module.js';
import { actionOperations } from './operations.js';

/** The actions feature as the app wires it in (functions/module.ts). */
export const actionsModule: FeatureModule = {
  name: 'actions',
  operations: actionOperations,
};
