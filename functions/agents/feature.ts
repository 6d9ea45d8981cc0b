import type { FeatureModule } from '../module.js';
import { agentOperations } from './operations.js';
import { agentRunPipeline, researchPipeline } from './run-pipeline.js';

/** The agents feature as the app wires it in (functions/module.ts). */
export const agentsModule: FeatureModule = {
  name: 'agents',
  operations: agentOperations,
  pipelines: [agentRunPipeline, researchPipeline],
};
