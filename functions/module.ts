import type { Hono } from 'hono';
import type { Pipeline } from '../queues/pipeline.js';
import type { AppEnv } from './http/env.js';
import type { Operation, OperationRegistry } from './registry.js';
import type { Services } from './services.js';

/**
 * What a feature adds to the service, exported by its folder's index.ts and listed once in
 * functions/modules.ts. The app, the engine and the scheduled tick are built from that list, so a
 * feature is wired in by one line there and nothing else keeps a list of what exists.
 */
export interface FeatureModule {
  /** The feature's folder under functions/. */
  name: string;
  /** Its public operations, in the order the OpenAPI document and MCP list them. */
  operations: readonly Operation[];
  /** The run kinds it runs on the engine (queues/), one pipeline per kind. */
  pipelines?: readonly Pipeline<Services>[];
  /** Its step of the scheduled tick, run after the engine's sweep (functions/scheduled-tick.ts). */
  scheduledTick?: (services: Services, at: Date) => Promise<void>;
  /** Routes that are not operations (OAuth, console pages, signed ingest), mounted before the credential check. */
  routes?: FeatureRoutes;
}

export interface FeatureRoutes {
  /** Paths outside the API prefix these routes serve; the global per-IP limit counts them like the API. */
  limitedPaths?: readonly string[];
  /** The routes, mounted at the root in order; they share the app's services and client address. */
  build(registry: OperationRegistry): readonly Hono<AppEnv>[];
}
