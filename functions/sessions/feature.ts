import type { FeatureModule } from '../module.js';
import { sessionOperations } from './operations.js';

/** The sessions feature as the app wires it in (functions/modules.ts). */
export const sessionsModule: FeatureModule = {
  name: 'sessions',
  operations: sessionOperations,
};
