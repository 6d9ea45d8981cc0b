import { isPushed, type ConnectorSpec } from './catalog.js';
import type { ConnectionRow, SyncRunRow } from './repository.js';

/**
 * A connection's health, derived on read from its row and its newest sync run, first match wins:
 *   disconnected  the connection was disconnected
 *   syncing       an OAuth connection waiting for the person's consent (ten minutes), then error
 *   healthy       a pushed source (webhook) that is connected: it has no syncs to judge by, and
 *                 silence from a sender's systems is not a fault of the connection
 *   needs_reauth  a sync was refused for its credentials (401/403) and no reconnect since
 *   rate_limited  the provider asked to wait, and the wait is not over
 *   syncing       a sync run is queued or running
 *   error         the newest sync run failed
 *   degraded      the newest sync run finished with at least one stream failed
 *   stale         no complete sync within three sync intervals (45 minutes by default), or never
 *   healthy       otherwise
 */
/** How long a consent may take (the OAuth state's lifetime, oauth-flow.ts). */
const CONSENT_WINDOW_MS = 10 * 60_000;

export const HEALTH_VALUES = [
  'healthy',
  'syncing',
  'stale',
  'degraded',
  'needs_reauth',
  'rate_limited',
  'error',
  'disconnected',
] as const;
export type Health = (typeof HEALTH_VALUES)[number];

export interface SyncRunView {
  id: string;
  status: 'queued' | 'running' | 'complete' | 'failed' | 'canceled';
  started_at: string | null;
  finished_at: string | null;
  streams_total: number;
  streams_failed: number;
  records_written: number;
  error_reason: 'auth' | 'rate_limit' | 'transient' | 'config' | 'unknown' | null;
  trigger: string;
}

export function syncRunView(row: SyncRunRow): SyncRunView {
  const state = row.state as { streams?: { failed?: boolean; written?: number }[] };
  const streams = state.streams ?? [];
  const reason = row.error?.code;
  return {
    id: row.id,
    status: row.status === 'awaiting_input' ? 'running' : (row.status as SyncRunView['status']),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.completedAt?.toISOString() ?? null,
    streams_total: streams.length,
    streams_failed: streams.filter((s) => s.failed).length,
    records_written: streams.reduce((n, s) => n + (s.written ?? 0), 0),
    error_reason:
      reason === 'auth' || reason === 'rate_limit' || reason === 'transient' || reason === 'config'
        ? reason
        : reason
          ? 'unknown'
          : null,
    trigger: String((row.input as { trigger?: unknown }).trigger ?? 'schedule'),
  };
}

export function healthOf(
  connection: ConnectionRow,
  connector: Pick<ConnectorSpec, 'authMethod'>,
  last: SyncRunView | null,
  now: Date,
  intervalMinutes: number,
): Health {
  if (connection.status === 'disconnected') return 'disconnected';
  if (isPushed(connector)) return 'healthy';
  if (connection.status === 'pending')
    return now.getTime() - connection.updatedAt.getTime() <= CONSENT_WINDOW_MS ? 'syncing' : 'error';
  if (connection.authFailedAt) return 'needs_reauth';
  if (connection.rateLimitedUntil && connection.rateLimitedUntil > now) return 'rate_limited';
  if (last && (last.status === 'queued' || last.status === 'running')) return 'syncing';
  if (last?.status === 'failed') return last.error_reason === 'rate_limit' ? 'rate_limited' : 'error';
  if (last?.status === 'complete' && last.streams_failed > 0) return 'degraded';
  if (!connection.lastSyncedAt || now.getTime() - connection.lastSyncedAt.getTime() > 3 * intervalMinutes * 60_000)
    return 'stale';
  return 'healthy';
}
