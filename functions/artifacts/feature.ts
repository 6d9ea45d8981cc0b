import type { FeatureModule } from '../module.js';
import { artifactOperations } from './operations.js';

/** The artifacts feature as the app wires it in (functions/module.ts). */
export const artifactsModule: FeatureModule = {
  name: 'artifacts',
  operations: artifactOperations,
};
