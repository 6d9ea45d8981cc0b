import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  accounts,
  contacts,
  interactionHolders,
  interactions,
  participants,
  transcriptTurns,
  utterances,
  utteranceVectors,
} from '../../schema/index.js';
import type { InteractionKind } from '../../schema/warehouse-interactions.js';
import type { Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { domainMatches, domainOf } from './filters.js';

/**
 * Calls, meetings and emails into the `interactions` surface, whichever source they come from
 * (Gong, Google Calendar, a pushed webhook): one row per provider id, upserted, with its participants written once with the
 * row's first insert, linked to CRM contacts by email and to the account most of the external
 * participants belong to (by email domain, subdomains included).
 */
export interface RosterMember {
  name: string | null;
  email: string | null;
  side: 'internal' | 'external';
}

export interface InteractionDraft {
  externalId: string;
  kind: InteractionKind;
  /** The subject line for an email. */
  title: string;
  occurredAt: Date;
  /** Null for email. */
  durationSeconds: number | null;
  summary: string | null;
  participants: RosterMember[];
  /** Email only. */
  direction?: 'inbound' | 'outbound';
  threadId?: string | null;
  body?: string | null;
}

export interface RosterLinks {
  contactOf: ReadonlyMap<string, string>;
  accountOf(roster: readonly RosterMember[]): string | null;
}

/** Every domain and parent domain (eu.acme.com → eu.acme.com, acme.com), so an account on acme.com matches a participant at eu.acme.com. */
function suffixesOf(domains: readonly string[]): string[] {
  const out = new Set<string>();
  for (const d of domains) {
    const parts = d.split('.');
    for (let i = 0; i < parts.length - 1; i++) out.add(parts.slice(i).join('.'));
  }
  return [...out];
}

const textArray = (values: readonly string[]) =>
  sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

/** The contacts and accounts the rosters point at, in two reads for a whole page. */
export async function linkRosters(
  db: Queryable,
  workspaceId: string,
  rosters: readonly (readonly RosterMember[])[],
): Promise<RosterLinks> {
  const emails = [...new Set(rosters.flatMap((r) => r.map((p) => p.email).filter((e): e is string => e !== null)))];
  const domains = [
    ...new Set(
      rosters.flatMap((r) =>
        r
          .filter((p) => p.side === 'external' && p.email)
          .map((p) => domainOf(p.email as string))
          .filter((d): d is string => d !== null),
      ),
    ),
  ];
  const [contactRows, accountRows] = await Promise.all([
    emails.length === 0
      ? []
      : db
          .select({ id: contacts.id, email: sql<string>`lower(${contacts.email})` })
          .from(contacts)
          .where(and(eq(contacts.workspaceId, workspaceId), inArray(sql`lower(${contacts.email})`, emails))),
    domains.length === 0
      ? []
      : db
          .select({ id: accounts.id, domain: accounts.domain })
          .from(accounts)
          .where(
            and(
              eq(accounts.workspaceId, workspaceId),
              sql`lower(${accounts.domain}) = any(${textArray(suffixesOf(domains))})`,
            ),
          ),
  ]);
  return {
    contactOf: new Map(contactRows.map((r) => [r.email, r.id])),
    accountOf(roster) {
      const votes = new Map<string, number>();
      for (const p of roster) {
        const host = p.side === 'external' && p.email ? domainOf(p.email) : null;
        if (!host) continue;
        // The most specific account domain wins (eu.acme.com over acme.com).
        const match = accountRows
          .filter((a) => a.domain && domainMatches(host, a.domain.toLowerCase()))
          .sort((a, b) => (b.domain?.length ?? 0) - (a.domain?.length ?? 0))[0];
        if (match) votes.set(match.id, (votes.get(match.id) ?? 0) + 1);
      }
      return [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
    },
  };
}

const isTrue = (v: unknown): boolean => v === true || v === 't' || v === 'true';

/** Upsert the page's interactions; participants go in with a row's first insert. Returns each row's id by provider id. */
export async function writeInteractions(
  tx: Queryable,
  workspaceId: string,
  source: string,
  drafts: readonly InteractionDraft[],
  links: RosterLinks,
): Promise<Map<string, string>> {
  if (drafts.length === 0) return new Map();
  const upserted = await tx
    .insert(interactions)
    .values(
      drafts.map((d) => ({
        id: newId(),
        workspaceId,
        kind: d.kind,
        title: d.title,
        accountId: links.accountOf(d.participants),
        occurredAt: d.occurredAt,
        durationSeconds: d.durationSeconds,
        source,
        externalId: d.externalId,
        summary: d.summary,
        direction: d.direction ?? null,
        threadId: d.threadId ?? null,
        body: d.body ?? null,
        participantCount: d.participants.length,
        externalParticipantCount: d.participants.filter((p) => p.side === 'external').length,
      })),
    )
    .onConflictDoUpdate({
      target: [interactions.workspaceId, interactions.source, interactions.externalId],
      set: {
        title: sql`excluded.title`,
        accountId: sql`coalesce(excluded.account_id, ${interactions.accountId})`,
        occurredAt: sql`excluded.occurred_at`,
        durationSeconds: sql`excluded.duration_seconds`,
        summary: sql`coalesce(excluded.summary, ${interactions.summary})`,
        body: sql`coalesce(excluded.body, ${interactions.body})`,
      },
    })
    // xmax = 0 only on a row this statement inserted: its participants are written once, with it.
    .returning({ id: interactions.id, externalId: interactions.externalId, inserted: sql<boolean>`(xmax = 0)` });
  const byExternal = new Map(upserted.map((r) => [r.externalId as string, r]));
  const rows = drafts.flatMap((d) => {
    const row = byExternal.get(d.externalId);
    return row && isTrue(row.inserted) ? participantRows(workspaceId, row.id, d.participants, links) : [];
  });
  if (rows.length > 0) await tx.insert(participants).values(rows);
  return new Map(upserted.map((r) => [r.externalId as string, r.id]));
}

function participantRows(
  workspaceId: string,
  interactionId: string,
  roster: readonly RosterMember[],
  links: RosterLinks,
) {
  return roster.map((p) => ({
    id: newId(),
    workspaceId,
    interactionId,
    contactId: p.email ? (links.contactOf.get(p.email) ?? null) : null,
    name: p.name,
    email: p.email,
    side: p.side,
  }));
}

/**
 * Replace what stored interactions said and who took part (a thread read again whose posts
 * changed): their utterances, turns and participants go, the new participants and counts come in;
 * the caller writes the new transcript after. Vectors are left for `pruneOrphanVectors` once the
 * new words are in, so a text still said keeps its vector.
 */
export async function replaceRosters(
  tx: Queryable,
  workspaceId: string,
  replaced: readonly { interactionId: string; participants: readonly RosterMember[] }[],
  links: RosterLinks,
): Promise<void> {
  if (replaced.length === 0) return;
  const ids = replaced.map((r) => r.interactionId);
  await tx
    .delete(utterances)
    .where(and(eq(utterances.workspaceId, workspaceId), inArray(utterances.interactionId, ids)));
  await tx
    .delete(transcriptTurns)
    .where(and(eq(transcriptTurns.workspaceId, workspaceId), inArray(transcriptTurns.interactionId, ids)));
  await tx
    .delete(participants)
    .where(and(eq(participants.workspaceId, workspaceId), inArray(participants.interactionId, ids)));
  const rows = replaced.flatMap((r) => participantRows(workspaceId, r.interactionId, r.participants, links));
  if (rows.length > 0) await tx.insert(participants).values(rows);
  for (const r of replaced) {
    await tx
      .update(interactions)
      .set({
        participantCount: r.participants.length,
        externalParticipantCount: r.participants.filter((p) => p.side === 'external').length,
      })
      .where(eq(interactions.id, r.interactionId));
  }
}

const named = (workspaceId: string, source: string, externalIds: readonly string[]) =>
  and(
    eq(interactions.workspaceId, workspaceId),
    eq(interactions.source, source),
    inArray(interactions.externalId, [...externalIds]),
  );

/**
 * Remove interactions the source says no longer exist (a canceled meeting); their transcripts and
 * participants go with them, and so do the vectors of texts no other utterance says. With
 * `unlessHeld`, those some connection still holds (interaction_holders) stay.
 */
export async function deleteInteractions(
  tx: Queryable,
  workspaceId: string,
  source: string,
  externalIds: readonly string[],
  options: { unlessHeld?: boolean } = {},
): Promise<number> {
  if (externalIds.length === 0) return 0;
  const unheld = sql`not exists (select 1 from ${interactionHolders} h where h.interaction_id = ${interactions.id})`;
  const gone = await tx
    .delete(interactions)
    .where(
      options.unlessHeld
        ? and(named(workspaceId, source, externalIds), unheld)
        : named(workspaceId, source, externalIds),
    )
    .returning({ id: interactions.id });
  if (gone.length > 0) await pruneOrphanVectors(tx, workspaceId);
  return gone.length;
}

/** Record that a connection holds these interactions (a meeting on its calendar); holding twice changes nothing. */
export async function holdInteractions(
  tx: Queryable,
  workspaceId: string,
  connectionId: string,
  interactionIds: readonly string[],
): Promise<void> {
  if (interactionIds.length === 0) return;
  await tx
    .insert(interactionHolders)
    .values(interactionIds.map((interactionId) => ({ workspaceId, interactionId, connectionId })))
    .onConflictDoNothing();
}

/**
 * A connection lets go of interactions its source says are gone for it (a canceled meeting, or
 * this member taken off it); those no other connection still holds are removed. Interactions
 * synced before holders were kept have none, so they go with the first release, as they did.
 */
export async function releaseInteractions(
  tx: Queryable,
  workspaceId: string,
  source: string,
  connectionId: string,
  externalIds: readonly string[],
): Promise<number> {
  if (externalIds.length === 0) return 0;
  await tx.delete(interactionHolders).where(
    and(
      eq(interactionHolders.workspaceId, workspaceId),
      eq(interactionHolders.connectionId, connectionId),
      inArray(
        interactionHolders.interactionId,
        tx
          .select({ id: interactions.id })
          .from(interactions)
          .where(named(workspaceId, source, externalIds)),
      ),
    ),
  );
  return deleteInteractions(tx, workspaceId, source, externalIds, { unlessHeld: true });
}

/**
 * Vectors whose text no external utterance of the workspace says any more: left in the store, they
 * would take nearest-neighbour slots from texts that still resolve to a quote.
 */
export async function pruneOrphanVectors(tx: Queryable, workspaceId: string): Promise<number> {
  const pruned = await tx
    .delete(utteranceVectors)
    .where(
      and(
        eq(utteranceVectors.workspaceId, workspaceId),
        sql`not exists (select 1 from ${utterances} u where u.workspace_id = ${workspaceId} and u.side = 'external'
                          and u.embedder = ${utteranceVectors.embedder} and u.text_hash = ${utteranceVectors.textHash})`,
      ),
    )
    .returning({ textHash: utteranceVectors.textHash });
  return pruned.length;
}
