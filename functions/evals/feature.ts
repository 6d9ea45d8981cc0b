import type { FeatureModule } from '../module.js';
import { evalOperations } from './operations.js';
import { evalRunPipeline } from './run-pipeline.js';

/** The evals feature as the app wires it in (functions/module.ts). */
export const evalsModule: FeatureModule = {
  name: 'evals',
  operations: evalOperations,
  pipelines: [evalRunPipeline],
};
