import type { Services } from '../functions/services.js';
import type { Pipeline } from './pipeline.js';
import { agentRunPipeline, researchPipeline } from './agent-run.js';
import { connectionSyncPipeline } from './connection-sync.js';
import { evalRunPipeline } from './eval-run.js';
import { routineFirePipeline } from './routine-fire.js';
import { searchFuzzyPipeline } from './search-fuzzy.js';
import { webhookDeliveryPipeline } from './webhook-delivery.js';

/** Every run kind the service knows, one pipeline per kind (each declared in queues/<kind>.ts). */
export const allPipelines: readonly Pipeline<Services>[] = [
  webhookDeliveryPipeline,
  searchFuzzyPipeline,
  agentRunPipeline,
  researchPipeline,
  routineFirePipeline,
  evalRunPipeline,
  connectionSyncPipeline,
];
