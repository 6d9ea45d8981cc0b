import type { Services } from '../services.js';
import { CONNECTION_SYNC_KIND } from './repository.js';
import { SYNC_RETRY, syncStage, SyncInputSchema, SyncStateSchema, type SyncInput, type SyncState } from './sync.js';
import { definePipeline } from '../../queues/pipeline.js';

/**
 * One sync of a connection (functions/connections/sync.ts): the `page` stage runs once per page of
 * each stream, then once more to finish the sync. Five minutes a page covers a slow provider page
 * plus embedding a page of transcripts on a hosted embedder.
 */
export const connectionSyncPipeline = definePipeline<Services, SyncInput, SyncState>({
  kind: CONNECTION_SYNC_KIND,
  input: SyncInputSchema,
  state: SyncStateSchema,
  stages: { page: syncStage },
  deadlineMs: 300_000,
  retry: SYNC_RETRY,
});
