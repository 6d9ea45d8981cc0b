import type { FeatureModule } from '../module.js';
import { connectionOperations } from './operations.js';
import { connectionSyncPipeline } from './sync-pipeline.js';
import { startDueSyncs } from './sync.js';
import { connectionOAuthRoutes } from './oauth-flow.js';
import { connectionIngestRoutes } from './push-route.js';

/** The connections feature as the app wires it in (functions/module.ts). */
export const connectionsModule: FeatureModule = {
  name: 'connections',
  operations: connectionOperations,
  pipelines: [connectionSyncPipeline],
  async scheduledTick(services, at) {
    const syncs = await startDueSyncs(services, at);
    if (syncs > 0) services.log.info('connection syncs started', { count: syncs, at: at.toISOString() });
  },
  // The return from a source's OAuth consent and pushes to a webhook source's signed ingest URL:
  // under the API prefix, whose own limiter (mounted first, in createApp) already counts them.
  routes: { build: () => [connectionOAuthRoutes(), connectionIngestRoutes()] },
};
