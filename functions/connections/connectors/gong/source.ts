import { z } from 'zod';
import type { ConnectorServices } from '../../connector.js';
import { configOf } from '../../filters.js';
import { ProviderError } from '../../provider-errors.js';
import type { ConnectionRow } from '../../repository.js';
import type { SyncSource } from '../../sync-source.js';
import { historyStart } from '../../sync-window.js';
import { GongClient } from './client.js';
import { plannedGongPage, prepareGongPage, SOURCE } from './ingest.js';

/** Calls are read back this far on every sync: Gong publishes a transcript some time after the call. */
export const GONG_REREAD_MS = 24 * 3600_000;
const GongSaved = z.object({
  from: z.string(),
  cursor: z.string().nullable(),
  high: z.string().nullable().default(null),
});

export function gongSource(
  services: ConnectorServices,
  connection: ConnectionRow,
  secrets: Record<string, string>,
): SyncSource {
  const client = new GongClient({
    baseUrl: services.config.GONG_API_BASE_URL,
    accessKey: connection.fields.api_id ?? '',
    accessKeySecret: secrets.api_key ?? '',
    now: () => services.clock.now(),
  });
  const filters = configOf(connection.config).call_filters;
  return {
    source: SOURCE,
    streams: ['calls'],
    surfaceOf: () => 'interactions',
    async fetch(_stream, saved, now, signal) {
      if (!filters)
        throw new ProviderError(
          'config',
          'Calls are paused until a call filter decision is saved (PUT /connections/{id}/call-filters).',
        );
      const prior = GongSaved.safeParse(saved);
      const initial = historyStart(now);
      const start = prior.success ? prior.data : { from: initial.toISOString(), cursor: null, high: null };
      const { calls, next } = await client.callsPage({ from: start.from, cursor: start.cursor });
      const prepared = await prepareGongPage(
        services.db,
        services.embedder,
        connection.workspaceId,
        calls,
        (ids) => client.transcripts(ids),
        filters,
        signal,
      );
      const newest = calls.reduce<string | null>(
        (h, c) => (!h || c.metaData.started > h ? c.metaData.started : h),
        start.high,
      );
      const rereadFrom = newest ? new Date(Date.parse(newest) - GONG_REREAD_MS).toISOString() : start.from;
      return {
        cursor: next
          ? { from: start.from, cursor: next, high: newest }
          : { from: rereadFrom > start.from ? rereadFrom : start.from, cursor: null, high: null },
        done: next === null,
        ...plannedGongPage(prepared),
      };
    },
  };
}
