import { OperationRegistry, type Operation } from './registry.js';
import { actionOperations } from './actions/operations.js';
import { agentOperations } from './agents/operations.js';
import { artifactOperations } from './artifacts/operations.js';
import { chatOperations } from './chat/operations.js';
import { connectionOperations } from './connections/operations.js';
import { consoleOperations } from './console/operations.js';
import { evalOperations } from './evals/operations.js';
import { messageOperations } from './messages/operations.js';
import { researchOperations } from './research/operations.js';
import { routineOperations } from './routines/operations.js';
import { searchOperations } from './search/operations.js';
import { setupOperations } from './setup/operations.js';
import { webhookOperations } from './webhooks/operations.js';

/** Every operation of the service, in the order the OpenAPI document and MCP list them. */
export const allOperations: readonly Operation[] = [
  ...setupOperations,
  ...connectionOperations,
  ...searchOperations,
  ...researchOperations,
  ...evalOperations,
  ...messageOperations,
  ...chatOperations,
  ...agentOperations,
  ...routineOperations,
  ...artifactOperations,
  ...actionOperations,
  ...webhookOperations,
  ...consoleOperations,
];

let registry: OperationRegistry | undefined;

/** The registry of every operation, built once per process (isolate) and shared by the app and its runs. */
export const defaultRegistry = (): OperationRegistry => (registry ??= new OperationRegistry(allOperations));
