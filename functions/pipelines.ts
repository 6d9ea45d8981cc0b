import type { Services } from './services.js';
import type { Pipeline } from '../queues/pipeline.js';
import { agentRunPipeline, researchPipeline } from './agents/run-pipeline.js';
import { connectionSyncPipeline } from './connections/sync-pipeline.js';
import { evalRunPipeline } from './evals/run-pipeline.js';
import { routineFirePipeline } from './routines/fire-pipeline.js';
import { searchFuzzyPipeline } from './search/fuzzy-pipeline.js';
import { webhookDeliveryPipeline } from './webhooks/delivery-pipeline.js';

/** Every run kind the service knows, one pipeline per kind (each declared in the feature that runs it). */
export const allPipelines: readonly Pipeline<Services>[] = [
  webhookDeliveryPipeline,
  searchFuzzyPipeline,
  agentRunPipeline,
  researchPipeline,
  routineFirePipeline,
  evalRunPipeline,
  connectionSyncPipeline,
];
