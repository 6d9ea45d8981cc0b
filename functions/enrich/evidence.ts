import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { isOnTopic, topicAskedOf } from '../agents/index.js';
import type { Services } from '../services.js';
import { vectorLiteral } from '../lookalike/index.js';
import type { Evidence } from './schemas.js';
import type { Subject } from './subject.js';

/**
 * The first-party tier: a bounded read of what the subject said to this workspace, never leaving it.
 *   - company: the accounts with the domain (else with the name given, exactly, any case);
 *   - person: the contacts with the email (else, beside a LinkedIn URL, with the name given), and
 *     the external utterances they spoke in interactions they took part in;
 *   - topic: the customer texts nearest the term by the configured embedder that are about it (the
 *     answers' relevance check; `aggregates.off_topic` counts the near ones that were not).
 * Company and person utterances are ranked by how typical they are of everything the subject said
 * (cosine to the mean of its utterances' vectors, over its newest CANDIDATES); fillers under
 * MIN_CHARS and repeats of the same text are left out. No match is the empty envelope.
 */
const CANDIDATES = 2_000;
const MIN_CHARS = 40;
const TOPIC_TEXTS = 50;

interface UtteranceRow extends Record<string, unknown> {
  utterance_id: string;
  text: string;
  speaker_name: string | null;
  interaction_id: string;
  turn_id: string | null;
  interaction_kind: string;
  interaction_title: string;
  occurred_at: Date | string;
  account_id: string | null;
  account_name: string | null;
  relevance: number | string;
}

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(String(v)).toISOString());

const toUtterance = (r: UtteranceRow): Evidence['utterances'][number] => ({
  utterance_id: r.utterance_id,
  text: r.text,
  speaker_type: 'external',
  speaker_name: r.speaker_name,
  interaction_id: r.interaction_id,
  turn_id: r.turn_id,
  interaction_kind: r.interaction_kind,
  interaction_title: r.interaction_title,
  occurred_at: iso(r.occurred_at)!,
  account: r.account_id ? { id: r.account_id, name: r.account_name ?? '' } : null,
  relevance: Math.round(Number(r.relevance) * 1e6) / 1e6,
});

/** The scope's utterances ranked by typicality; `scope` is a predicate over `u` (utterances) and `i` (interactions). */
async function typicalUtterances(
  db: Queryable,
  workspaceId: string,
  embedder: string,
  scope: SQL,
  limit: number,
): Promise<{ matched: number; rows: UtteranceRow[] }> {
  const [count] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from utterances u join interactions i on i.id = u.interaction_id
        where u.workspace_id = ${workspaceId} and u.side = 'external' and ${scope}`,
  );
  const matched = Number(count?.n ?? 0);
  if (matched === 0) return { matched, rows: [] };
  const rows = await queryRows<UtteranceRow>(
    db,
    sql`with scoped as (
          select u.id, u.text, u.text_hash, u.speaker_name, u.interaction_id, u.turn_id, u.occurred_at,
                 i.kind, i.title, i.account_id, v.embedding
          from utterances u
          join interactions i on i.id = u.interaction_id
          join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
          where u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder = ${embedder} and ${scope}
          order by u.occurred_at desc, u.id
          limit ${CANDIDATES}
        ), centre as (select avg(embedding) as c from scoped),
        ranked as (
          select distinct on (s.text_hash) s.*, 1 - (s.embedding <=> centre.c) as relevance
          from scoped s, centre
          where length(s.text) >= ${MIN_CHARS}
          order by s.text_hash, s.occurred_at desc, s.id
        )
        select r.id as utterance_id, r.text, r.speaker_name, r.interaction_id, r.turn_id, r.kind as interaction_kind,
               r.title as interaction_title, r.occurred_at, r.account_id, a.name as account_name, r.relevance
        from ranked r left join accounts a on a.id = r.account_id
        order by r.relevance desc, r.occurred_at desc, r.id
        limit ${limit}`,
  );
  return { matched, rows };
}

async function interactionAggregates(db: Queryable, workspaceId: string, scope: SQL) {
  const rows = await queryRows<{ kind: string; n: number; first_at: unknown; last_at: unknown }>(
    db,
    sql`select i.kind, count(*)::int as n, min(i.occurred_at) as first_at, max(i.occurred_at) as last_at
        from interactions i where i.workspace_id = ${workspaceId} and ${scope} group by i.kind order by i.kind`,
  );
  const total = rows.reduce((s, r) => s + Number(r.n), 0);
  const firsts = rows.map((r) => iso(r.first_at)!).sort();
  const lasts = rows.map((r) => iso(r.last_at)!).sort();
  return {
    interaction_count: total,
    interactions_by_kind: Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)])),
    first_interaction_at: firsts[0] ?? null,
    last_interaction_at: lasts.at(-1) ?? null,
  };
}

async function companyEvidence(
  services: Services,
  workspaceId: string,
  subject: Subject,
  limit: number,
): Promise<Evidence> {
  const db = services.db;
  let accounts = await queryRows<{ id: string; name: string; domain: string | null }>(
    db,
    sql`select id, name, domain from accounts where workspace_id = ${workspaceId} and lower(domain) = ${subject.domain!} order by id`,
  );
  if (accounts.length === 0 && subject.name)
    accounts = await queryRows(
      db,
      sql`select id, name, domain from accounts where workspace_id = ${workspaceId} and lower(name) = ${subject.name.toLowerCase()} order by id`,
    );
  const ids = accounts.map((a) => a.id);
  if (ids.length === 0) return empty({ resolved_by: null, accounts: [] });
  const inAccounts = sql`i.account_id in (${sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  )})`;
  const { matched, rows } = await typicalUtterances(db, workspaceId, services.embedder.id, inAccounts, limit);
  const [deals] = await queryRows<{ n: number; open: number; won: number; lost: number }>(
    db,
    sql`select count(*)::int as n, count(*) filter (where not is_closed)::int as open,
          count(*) filter (where is_won)::int as won, count(*) filter (where is_closed and not is_won)::int as lost
        from deals i where i.workspace_id = ${workspaceId} and ${inAccounts}`,
  );
  const [contacts] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from contacts i where i.workspace_id = ${workspaceId} and ${inAccounts}`,
  );
  return {
    matched_count: matched,
    utterances: rows.map(toUtterance),
    aggregates: {
      resolved_by: accounts.length > 0 && accounts[0]!.domain?.toLowerCase() === subject.domain ? 'domain' : 'name',
      accounts,
      ...(await interactionAggregates(db, workspaceId, inAccounts)),
      contact_count: Number(contacts?.n ?? 0),
      deals: {
        count: Number(deals?.n ?? 0),
        open: Number(deals?.open ?? 0),
        won: Number(deals?.won ?? 0),
        lost: Number(deals?.lost ?? 0),
      },
    },
  };
}

async function personEvidence(
  services: Services,
  workspaceId: string,
  subject: Subject,
  limit: number,
): Promise<Evidence> {
  const db = services.db;
  const by = subject.email ? 'email' : subject.name ? 'name' : null;
  if (!by)
    return empty({
      resolved_by: null,
      contacts: [],
      note: 'No email or name to find the person by in this workspace.',
    });
  const contacts = await queryRows<{
    id: string;
    name: string;
    email: string | null;
    title: string | null;
    account_id: string | null;
  }>(
    db,
    by === 'email'
      ? sql`select id, name, email, title, account_id from contacts where workspace_id = ${workspaceId} and lower(email) = ${subject.email!} order by id`
      : sql`select id, name, email, title, account_id from contacts where workspace_id = ${workspaceId} and lower(name) = ${subject.name!.toLowerCase()} order by id`,
  );
  if (contacts.length === 0) return empty({ resolved_by: by, contacts: [] });
  const ids = sql.join(
    contacts.map((c) => sql`${c.id}::uuid`),
    sql`, `,
  );
  const names = sql.join(
    [...new Set(contacts.map((c) => c.name))].map((n) => sql`${n}`),
    sql`, `,
  );
  const tookPart = sql`exists (select 1 from participants p where p.interaction_id = i.id and p.contact_id in (${ids}))`;
  const spoke = sql`${tookPart} and u.speaker_name in (${names})`;
  const { matched, rows } = await typicalUtterances(db, workspaceId, services.embedder.id, spoke, limit);
  return {
    matched_count: matched,
    utterances: rows.map(toUtterance),
    aggregates: { resolved_by: by, contacts, ...(await interactionAggregates(db, workspaceId, tookPart)) },
  };
}

async function topicEvidence(
  services: Services,
  workspaceId: string,
  subject: Subject,
  limit: number,
): Promise<Evidence> {
  const db = services.db;
  const embedder = services.embedder.id;
  const topicText = subject.topic!;
  const [vector] = await services.embedder.embed([topicText]);
  const literal = vectorLiteral(vector ?? []);
  const nearest = await queryRows<{ text_hash: string; relevance: number | string; text: string | null }>(
    db,
    sql`select v.text_hash, 1 - (v.embedding <=> ${literal}::vector) as relevance,
               (select u.text from utterances u where u.workspace_id = ${workspaceId} and u.embedder = ${embedder}
                  and u.text_hash = v.text_hash limit 1) as text
        from utterance_vectors v
        where v.workspace_id = ${workspaceId} and v.embedder = ${embedder}
        order by v.embedding <=> ${literal}::vector, v.text_hash limit ${TOPIC_TEXTS}`,
  );
  // Nearest by meaning is not about: the nearest texts to a topic nobody raised are about other
  // things. Each must pass the relevance check every answer's quotes pass (the agents' relevance module).
  const topic = await topicAskedOf(db, workspaceId, topicText);
  const about = nearest.filter((t) => Number(t.relevance) > 0 && (!topic || isOnTopic(topic, t.text ?? '')));
  const offTopic = nearest.filter((t) => Number(t.relevance) > 0).length - about.length;
  if (about.length === 0)
    return empty({
      nearest_texts: TOPIC_TEXTS,
      off_topic: offTopic,
      interaction_count: 0,
      account_count: 0,
      first_mentioned_at: null,
      last_mentioned_at: null,
    });
  const texts = sql`select * from (values ${sql.join(
    about.map((t) => sql`(${t.text_hash}, ${Number(t.relevance)}::float8)`),
    sql`, `,
  )}) as v(text_hash, relevance)`;
  const [stats] = await queryRows<{
    n: number;
    interactions: number;
    accounts: number;
    first_at: unknown;
    last_at: unknown;
  }>(
    db,
    sql`with t as (${texts})
        select count(*)::int as n, count(distinct u.interaction_id)::int as interactions, count(distinct i.account_id)::int as accounts,
               min(u.occurred_at) as first_at, max(u.occurred_at) as last_at
        from t join utterances u on u.workspace_id = ${workspaceId} and u.embedder = ${embedder} and u.text_hash = t.text_hash
          and u.side = 'external'
        join interactions i on i.id = u.interaction_id`,
  );
  const rows = await queryRows<UtteranceRow>(
    db,
    sql`with t as (${texts})
        select distinct on (t.relevance, t.text_hash) u.id as utterance_id, u.text, u.speaker_name, u.interaction_id, u.turn_id,
               i.kind as interaction_kind, i.title as interaction_title, u.occurred_at, i.account_id, a.name as account_name, t.relevance
        from t join utterances u on u.workspace_id = ${workspaceId} and u.embedder = ${embedder} and u.text_hash = t.text_hash
          and u.side = 'external'
        join interactions i on i.id = u.interaction_id
        left join accounts a on a.id = i.account_id
        where length(u.text) >= ${MIN_CHARS}
        order by t.relevance desc, t.text_hash, u.occurred_at desc, u.id
        limit ${limit}`,
  );
  return {
    matched_count: Number(stats?.n ?? 0),
    utterances: rows.map(toUtterance),
    aggregates: {
      nearest_texts: TOPIC_TEXTS,
      off_topic: offTopic,
      interaction_count: Number(stats?.interactions ?? 0),
      account_count: Number(stats?.accounts ?? 0),
      first_mentioned_at: iso(stats?.first_at),
      last_mentioned_at: iso(stats?.last_at),
    },
  };
}

const empty = (aggregates: Record<string, unknown>): Evidence => ({ matched_count: 0, utterances: [], aggregates });

export function readEvidence(
  services: Services,
  workspaceId: string,
  subject: Subject,
  limit: number,
): Promise<Evidence> {
  switch (subject.kind) {
    case 'company':
      return companyEvidence(services, workspaceId, subject, limit);
    case 'person':
      return personEvidence(services, workspaceId, subject, limit);
    case 'topic':
      return topicEvidence(services, workspaceId, subject, limit);
  }
}
