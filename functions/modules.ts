import type { Pipeline } from '../queues/pipeline.js';
import { actionsModule } from './actions/feature.js';
import { agentsModule } from './agents/feature.js';
import { analysesModule } from './analyses/feature.js';
import { artifactsModule } from './artifacts/feature.js';
import { chatModule } from './chat/feature.js';
import { connectionsModule } from './connections/feature.js';
import { contextModule } from './context/feature.js';
import { consoleModule } from './console/feature.js';
import { enrichModule } from './enrich/feature.js';
import { evalsModule } from './evals/feature.js';
import { frontDoorModule } from './front-door/feature.js';
import { knowledgeModule } from './knowledge/feature.js';
import { memoryModule } from './memory/feature.js';
import { lookalikeModule } from './lookalike/feature.js';
import { messagesModule } from './messages/feature.js';
import type { FeatureModule } from './module.js';
import { oauthModule } from './oauth/feature.js';
import { LAUNCH_SWITCHES, OperationRegistry, type LaunchSwitch, type Operation } from './registry.js';
import { researchModule } from './research/feature.js';
import { routinesModule } from './routines/feature.js';
import { searchModule } from './search/feature.js';
import type { Services } from './services.js';
import { sessionsModule } from './sessions/feature.js';
import { simulateModule } from './simulate/feature.js';
import { sqlQueryModule } from './sql-query/feature.js';
import { setupModule } from './setup/feature.js';
import { subscriptionsModule } from './subscriptions/feature.js';
import { webhooksModule } from './webhooks/feature.js';

/**
 * Every feature of the service, the one list of what exists (functions/module.ts). Its order is
 * the order of the operations in the OpenAPI document and MCP, of the scheduled tick's steps and
 * of the non-operation routes' mounts.
 */
export const featureModules: readonly FeatureModule[] = [
  setupModule,
  connectionsModule,
  searchModule,
  analysesModule,
  sqlQueryModule,
  simulateModule,
  enrichModule,
  lookalikeModule,
  researchModule,
  memoryModule,
  contextModule,
  sessionsModule,
  evalsModule,
  messagesModule,
  chatModule,
  agentsModule,
  routinesModule,
  subscriptionsModule,
  artifactsModule,
  knowledgeModule,
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

const registries = new Map<string, OperationRegistry>();

/**
 * The registry of every operation, built once per process (isolate) for each set of launch switches
 * that are on, and shared by the app and its runs. Without a configuration every switch is off.
 */
export function defaultRegistry(config?: Readonly<Record<LaunchSwitch, boolean>>): OperationRegistry {
  const launched = LAUNCH_SWITCHES.filter((name) => config?.[name] === true);
  const key = launched.join(',');
  let registry = registries.get(key);
  if (!registry) {
    registry = new OperationRegistry(allOperations, launched);
    registries.set(key, registry);
  }
  return registry;
}
