import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import type { AppConfig } from '../../platform/config.js';
import { toDate } from '../search/freshness.js';
import { catalogEntry, findConnector, type ConnectorSpec } from './catalog.js';
import { configOf } from './filters.js';
import { healthOf, syncRunView, type SyncRunView } from './health.js';
import { latestRun, type ConnectionRow } from './repository.js';
import { webhookSource } from './connectors/call-webhook/ingest.js';
import { pausedReason } from './sync-sources.js';
import { syncIntervalMs } from './sync.js';
import type { ConnectionSummarySchema } from './schemas.js';

type ConnectionSummary = z.infer<typeof ConnectionSummarySchema>;

/** How a connection reads (spec: Connection read, Status read, Summary). */

export function connectorOf(row: Pick<ConnectionRow, 'connectorType'>): ConnectorSpec {
  const spec = findConnector(row.connectorType);
  // A row is only ever written for a catalog type; a type later removed from the catalog is a deploy error.
  if (!spec) throw new Error(`connection of unknown connector type ${row.connectorType}`);
  return spec;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function connectionView(row: ConnectionRow, last: SyncRunView | null, config: AppConfig, now: Date) {
  const spec = connectorOf(row);
  const entry = catalogEntry(spec, config);
  const stored = configOf(row.config);
  return {
    id: row.id,
    connector: { type: entry.type, name: entry.name, category: entry.category, logo: entry.logo },
    display_name: row.displayName,
    status: row.status,
    health: healthOf(row, last, now, syncIntervalMs(config) / 60_000),
    is_syncing: last !== null && (last.status === 'queued' || last.status === 'running'),
    paused_reason: row.status === 'connected' ? pausedReason(row) : null,
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

export async function readConnectionView(db: Queryable, row: ConnectionRow, config: AppConfig, now: Date) {
  const last = await latestRun(db, row.workspaceId, row.id);
  return connectionView(row, last ? syncRunView(last) : null, config, now);
}

const count = (v: unknown): number => Number(v ?? 0);

/**
 * Live counts of what the connection's source holds in the warehouse. Before a first completed
 * sync every stat is null: "not synced yet" must never read as "synced, and found nothing".
 */
export async function connectionSummary(db: Queryable, row: ConnectionRow, now: Date): Promise<ConnectionSummary> {
  const spec = connectorOf(row);
  // The `source` its rows carry in the warehouse (a webhook connection is a source of its own).
  const source = spec.authMethod === 'webhook' ? webhookSource(row.id) : row.connectorType;
  const synced = row.lastSyncedAt !== null;
  const base = {
    connection_id: row.id,
    category: spec.category,
    synced,
    last_synced_at: iso(row.lastSyncedAt),
    computed_at: now.toISOString(),
  };
  // Each category fills its own block; the others are null.
  const none: Pick<ConnectionSummary, 'crm' | 'calls' | 'comms' | 'social'> = {
    crm: null,
    calls: null,
    comms: null,
    social: null,
  };
  const nullCrm = {
    accounts: null,
    contacts: null,
    deals: null,
    open_deals: null,
    won_deals: null,
    latest_record_at: null,
  };
  const nullCalls = {
    calls: null,
    emails: null,
    transcribed_calls: null,
    participants: null,
    embedded_utterances: null,
    latest_call_at: null,
  };
  if (spec.category === 'crm') {
    if (!synced) return { ...base, ...none, crm: nullCrm };
    const [r] = await queryRows<Record<string, unknown>>(
      db,
      sql`select
            (select count(*) from accounts where workspace_id = ${row.workspaceId} and source = ${source}) as accounts,
            (select count(*) from contacts where workspace_id = ${row.workspaceId} and source = ${source}) as contacts,
            (select count(*) from deals where workspace_id = ${row.workspaceId} and source = ${source}) as deals,
            (select count(*) from deals where workspace_id = ${row.workspaceId} and source = ${source} and not is_closed) as open_deals,
            (select count(*) from deals where workspace_id = ${row.workspaceId} and source = ${source} and is_won) as won_deals,
            (select max(updated_at) from deals where workspace_id = ${row.workspaceId} and source = ${source}) as latest_record_at`,
    );
    return {
      ...base,
      ...none,
      crm: {
        accounts: count(r?.accounts),
        contacts: count(r?.contacts),
        deals: count(r?.deals),
        open_deals: count(r?.open_deals),
        won_deals: count(r?.won_deals),
        latest_record_at: iso(toDate(r?.latest_record_at)),
      },
    };
  }
  if (spec.category === 'calls') {
    if (!synced) return { ...base, ...none, calls: nullCalls };
    const [r] = await queryRows<Record<string, unknown>>(
      db,
      sql`select count(*) filter (where i.kind <> 'email') as calls,
                 count(*) filter (where i.kind = 'email') as emails,
                 count(*) filter (where exists (select 1 from transcript_turns t where t.interaction_id = i.id)) as transcribed_calls,
                 (select count(*) from participants p join interactions j on j.id = p.interaction_id
                   where j.workspace_id = ${row.workspaceId} and j.source = ${source}) as participants,
                 (select count(*) from utterances u join interactions j on j.id = u.interaction_id
                   where j.workspace_id = ${row.workspaceId} and j.source = ${source} and u.embedder is not null) as embedded_utterances,
                 max(i.occurred_at) as latest_call_at
          from interactions i where i.workspace_id = ${row.workspaceId} and i.source = ${source}`,
    );
    return {
      ...base,
      ...none,
      calls: {
        calls: count(r?.calls),
        emails: count(r?.emails),
        transcribed_calls: count(r?.transcribed_calls),
        participants: count(r?.participants),
        embedded_utterances: count(r?.embedded_utterances),
        latest_call_at: iso(toDate(r?.latest_call_at)),
      },
    };
  }
  if (spec.category === 'comms') {
    if (!synced)
      return {
        ...base,
        ...none,
        comms: {
          meetings: null,
          participants: null,
          external_participants: null,
          accounts: null,
          latest_meeting_at: null,
        },
      };
    const [r] = await queryRows<Record<string, unknown>>(
      db,
      // The meetings this calendar holds; one synced before holders were kept counts for the calendars of its source.
      sql`with held as (select i.id, i.occurred_at, i.account_id from interactions i
                        where i.workspace_id = ${row.workspaceId} and i.source = ${source}
                          and (exists (select 1 from interaction_holders h where h.interaction_id = i.id and h.connection_id = ${row.id})
                               or not exists (select 1 from interaction_holders h where h.interaction_id = i.id)))
          select (select count(*) from held) as meetings,
                 (select count(*) from participants p where p.interaction_id in (select id from held)) as participants,
                 (select count(*) from participants p where p.interaction_id in (select id from held) and p.side = 'external') as external_participants,
                 (select count(distinct account_id) from held) as accounts,
                 (select max(occurred_at) from held) as latest_meeting_at`,
    );
    return {
      ...base,
      ...none,
      comms: {
        meetings: count(r?.meetings),
        participants: count(r?.participants),
        external_participants: count(r?.external_participants),
        accounts: count(r?.accounts),
        latest_meeting_at: iso(toDate(r?.latest_meeting_at)),
      },
    };
  }
  if (spec.category === 'social') {
    if (!synced)
      return {
        ...base,
        ...none,
        social: { threads: null, posts: null, people: null, embedded_utterances: null, latest_thread_at: null },
      };
    const [r] = await queryRows<Record<string, unknown>>(
      db,
      // The threads this connection holds: two of the workspace's accounts in one thread share it.
      sql`with held as (select i.id, i.occurred_at from interactions i join interaction_holders h on h.interaction_id = i.id
                        where i.workspace_id = ${row.workspaceId} and i.source = ${source} and h.connection_id = ${row.id})
          select (select count(*) from held) as threads,
                 (select count(*) from transcript_turns t where t.interaction_id in (select id from held)) as posts,
                 (select count(distinct p.name) from participants p where p.interaction_id in (select id from held) and p.side = 'external') as people,
                 (select count(*) from utterances u where u.interaction_id in (select id from held) and u.embedder is not null) as embedded_utterances,
                 (select max(occurred_at) from held) as latest_thread_at`,
    );
    return {
      ...base,
      ...none,
      social: {
        threads: count(r?.threads),
        posts: count(r?.posts),
        people: count(r?.people),
        embedded_utterances: count(r?.embedded_utterances),
        latest_thread_at: iso(toDate(r?.latest_thread_at)),
      },
    };
  }
  return { ...base, ...none };
}
