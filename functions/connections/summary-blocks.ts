import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { toDate } from '../../platform/db/timestamps.js';
import type { ConnectionRow } from './repository.js';
import type { ConnectionSummarySchema } from './schemas.js';

/**
 * The summary blocks a connector can answer with, one per kind of data (spec: Summary): each counts,
 * live, what one connection's source holds in the warehouse, and fills its own block; the other
 * blocks are null. Before a first completed sync every stat of the block is null: "not synced yet"
 * must never read as "synced, and found nothing".
 */
type ConnectionSummary = z.infer<typeof ConnectionSummarySchema>;
export type SummaryBlocks = Pick<ConnectionSummary, 'crm' | 'calls' | 'comms' | 'social'>;

/** A connector's summary: its block for this connection, whose rows carry `source` in the warehouse. */
export type SummaryBlock = (db: Queryable, row: ConnectionRow, source: string) => Promise<SummaryBlocks>;

const NO_BLOCKS: SummaryBlocks = { crm: null, calls: null, comms: null, social: null };
const count = (v: unknown): number => Number(v ?? 0);
const iso = (d: Date | null) => d?.toISOString() ?? null;
const synced = (row: ConnectionRow) => row.lastSyncedAt !== null;

/** CRM sources: accounts, contacts, deals (open, won), and the newest deal change. */
export const crmSummary: SummaryBlock = async (db, row, source) => {
  if (!synced(row))
    return {
      ...NO_BLOCKS,
      crm: { accounts: null, contacts: null, deals: null, open_deals: null, won_deals: null, latest_record_at: null },
    };
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
    ...NO_BLOCKS,
    crm: {
      accounts: count(r?.accounts),
      contacts: count(r?.contacts),
      deals: count(r?.deals),
      open_deals: count(r?.open_deals),
      won_deals: count(r?.won_deals),
      latest_record_at: iso(toDate(r?.latest_record_at)),
    },
  };
};

/** Call recorders and pushed sources: calls, emails, transcribed calls, participants, embedded utterances. */
export const callsSummary: SummaryBlock = async (db, row, source) => {
  if (!synced(row))
    return {
      ...NO_BLOCKS,
      calls: {
        calls: null,
        emails: null,
        transcribed_calls: null,
        participants: null,
        embedded_utterances: null,
        latest_call_at: null,
      },
    };
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
    ...NO_BLOCKS,
    calls: {
      calls: count(r?.calls),
      emails: count(r?.emails),
      transcribed_calls: count(r?.transcribed_calls),
      participants: count(r?.participants),
      embedded_utterances: count(r?.embedded_utterances),
      latest_call_at: iso(toDate(r?.latest_call_at)),
    },
  };
};

/** Calendars: the meetings this calendar holds, their participants (external ones too), linked accounts. */
export const commsSummary: SummaryBlock = async (db, row, source) => {
  if (!synced(row))
    return {
      ...NO_BLOCKS,
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
    ...NO_BLOCKS,
    comms: {
      meetings: count(r?.meetings),
      participants: count(r?.participants),
      external_participants: count(r?.external_participants),
      accounts: count(r?.accounts),
      latest_meeting_at: iso(toDate(r?.latest_meeting_at)),
    },
  };
};

/** Social accounts: the threads this connection holds, their posts, the people from outside, embedded utterances. */
export const socialSummary: SummaryBlock = async (db, row, source) => {
  if (!synced(row))
    return {
      ...NO_BLOCKS,
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
    ...NO_BLOCKS,
    social: {
      threads: count(r?.threads),
      posts: count(r?.posts),
      people: count(r?.people),
      embedded_utterances: count(r?.embedded_utterances),
      latest_thread_at: iso(toDate(r?.latest_thread_at)),
    },
  };
};
