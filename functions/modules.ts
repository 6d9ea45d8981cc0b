import type { Pipeline } from '../queues/pipeline.js';
import { actionsModule } from './actions/index.js';
import { agentsModule } from './agents/index.js';
import { artifactsModule } from './artifacts/index.js';
import { chatModule } from './chat/index.js';
import { connectionsModule } from './connections/index.js';
import { consoleModule } from './console/index.js';
import { enrichModule } from './enrich/index.js';
import { evalsModule } from './evals/index.js';
import { frontDoorModule } from './front-door/index.js';
import { lookalikeModule } from './lookalike/index.js';
import { messagesModule } from './messages/index.js';
import type { FeatureModule } from './module.js';
import { oauthModule } from './oauth/index.js';
import { OperationRegistry, type Operation } from './registry.js';
import { researchModule } from './research/index.js';
import { routinesModule } from './routines/index.js';
import { searchModule } from './search/index.js';
import type { Services } from './services.js';
import { setupModule } from './setup/index.js';
import { webhooksModule } from './webhooks/index.js';

/**
 * Every feature of the service, the one list of what exists (functions/module.ts). Its order is
 * the order of the operations in the OpenAPI document and MCP, of the scheduled tick's steps and
 * of the non-operation routes' mounts.
 */
export const featureModules: readonly FeatureModule[] = [
  setupModule,
  connectionsModule,
  searchModule,
  enrichModule,
  lookalikeModule,
  researchModule,
  evalsModule,
  messagesModule,
  chatModule,
  agentsModule,
  routinesModule,
  artifactsModule,
  actionsModule,
  webhooksModule,
  consoleModule,
  oauthModule,
  frontDoorModule,
];

/** Every operation of the service, in the order the OpenAPI document and MCP list them. */
export const allOperations: readonly Operation[] = featureModules.flatMap((module) => module.operations);

/** Every run kind the service knows, one pipeline per kind (each declared in the feature that runs it). */
export const allPipelines: readonly Pipeline<Services>[] = featureModules.flatMap((module) => module.pipelines ?? []);

let registry: OperationRegistry | undefined;

/** The registry of every operation, built once per process (isolate) and shared by the app and its runs. */
export const defaultRegistry = (): OperationRegistry => (registry ??= new OperationRegistry(allOperations));
