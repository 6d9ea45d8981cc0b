import type { Queryable } from '../../platform/db/port.js';
import type { AppConfig } from '../../platform/config.js';
import { catalogEntry, pausedReason } from './catalog.js';
import type { ConnectorList } from './connector-list.js';
import { configOf } from './filters.js';
import { healthOf, syncRunView, type SyncRunView } from './health.js';
import { latestRun, type ConnectionRow } from './repository.js';
import { warehouseSourceOf } from './sync-sources.js';
import { syncIntervalMs } from './sync.js';
import type { ConnectionSummarySchema } from './schemas.js';
import type { z } from 'zod';

type ConnectionSummary = z.infer<typeof ConnectionSummarySchema>;

/** How a connection reads (spec: Connection read, Status read, Summary). */

/** What reading a connection needs: the configuration (catalog, intervals) and the connector list. */
export interface ViewContext {
  config: AppConfig;
  connectors: ConnectorList;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function connectionView(view: ViewContext, row: ConnectionRow, last: SyncRunView | null, now: Date) {
  const spec = view.connectors.of(row);
  const entry = catalogEntry(spec, view.config);
  const stored = configOf(row.config);
  return {
    id: row.id,
    connector: { type: entry.type, name: entry.name, category: entry.category, logo: entry.logo },
    display_name: row.displayName,
    status: row.status,
    health: healthOf(row, spec, last, now, syncIntervalMs(view.config) / 60_000),
    is_syncing: last !== null && (last.status === 'queued' || last.status === 'running'),
    paused_reason: row.status === 'connected' ? pausedReason(spec, row) : null,
    ownership: spec.ownership,
    owner_user_id: row.ownerUserId,
    fields: Object.fromEntries(
      Object.entries(row.fields).filter(([key]) => spec.fields.some((f) => f.key === key && !f.secret)),
    ),
    config: {
      call_filters: stored.call_filters ?? null,
      crm_recency: stored.crm_recency ?? null,
      comms_filter: stored.comms_filter ?? null,
    },
    last_synced_at: iso(row.lastSyncedAt),
    next_sync_at: iso(row.nextSyncAt),
    rate_limited_until: iso(row.rateLimitedUntil),
    last_run: last,
    created_at: row.createdAt.toISOString(),
    disconnected_at: iso(row.disconnectedAt),
  };
}

export async function readConnectionView(view: ViewContext & { db: Queryable }, row: ConnectionRow, now: Date) {
  const last = await latestRun(view.db, row.workspaceId, row.id);
  return connectionView(view, row, last ? syncRunView(last) : null, now);
}

/**
 * Live counts of what the connection's source holds in the warehouse, in the block its connector
 * answers with (the others null). Before a first completed sync every stat is null: "not synced
 * yet" must never read as "synced, and found nothing".
 */
export async function connectionSummary(
  db: Queryable,
  connectors: ConnectorList,
  row: ConnectionRow,
  now: Date,
): Promise<ConnectionSummary> {
  const connector = connectors.of(row);
  const blocks = await connector.summary(db, row, warehouseSourceOf(connector, row));
  return {
    connection_id: row.id,
    category: connector.category,
    synced: row.lastSyncedAt !== null,
    last_synced_at: iso(row.lastSyncedAt),
    computed_at: now.toISOString(),
    ...blocks,
  };
}
