import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, real, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { accounts, contacts } from './warehouse-accounts.js';
import { SIDES, sqlInList, tsvector, type Side } from './warehouse-columns.js';
import { deals } from './warehouse-deals.js';

export const INTERACTION_KINDS = ['call', 'meeting', 'email', 'post'] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];
export const EMAIL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type EmailDirection = (typeof EMAIL_DIRECTIONS)[number];

/**
 * The `interactions` surface: calls, meetings, emails and posts, one row each. A post is one public
 * social-media thread (the root post and its replies), kept like a call: one transcript turn per
 * post, the reply authors on the external side. Transcripts hang off it (turns, utterances); the
 * row itself carries what filters and full-text search need.
 */
export const interactions = pgTable(
  'interactions',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<InteractionKind>().notNull(),
    /** Meeting or call title; the subject line for an email. */
    title: text('title').notNull(),
    accountId: uuid('account_id').references(() => accounts.id, { onDelete: 'set null' }),
    dealId: uuid('deal_id').references(() => deals.id, { onDelete: 'set null' }),
    /** Event time: when the call or meeting started, when the email was sent. */
    occurredAt: tstz('occurred_at').notNull(),
    /** Null for email and post (they have no duration), never 0 as a stand-in. */
    durationSeconds: integer('duration_seconds'),
    /** Email only. */
    direction: text('direction').$type<EmailDirection>(),
    /** e.g. gong, zoom, google_meet, gmail, outlook, bluesky. */
    source: text('source').notNull(),
    externalId: text('external_id'),
    /** Groups the emails of one conversation. */
    threadId: text('thread_id'),
    summary: text('summary'),
    /** Full text of an email; calls, meetings and posts keep their words in transcript_turns. */
    body: text('body'),
    participantCount: integer('participant_count'),
    externalParticipantCount: integer('external_participant_count'),
    ingestedAt: tstz('ingested_at').notNull().defaultNow(),
    /** Title weighs most, then summary, then body. Generated, so no writer can let it drift. */
    searchTsv: tsvector('search_tsv').generatedAlwaysAs(
      (): ReturnType<typeof sql> =>
        sql`setweight(to_tsvector('english', coalesce(${interactions.title}, '')), 'A') || setweight(to_tsvector('english', coalesce(${interactions.summary}, '')), 'B') || setweight(to_tsvector('english', coalesce(${interactions.body}, '')), 'C')`,
    ),
  },
  (t) => [
    index('interactions_workspace_occurred_idx').on(t.workspaceId, t.occurredAt),
    index('interactions_workspace_account_idx').on(t.workspaceId, t.accountId),
    index('interactions_workspace_deal_idx').on(t.workspaceId, t.dealId),
    index('interactions_workspace_source_idx').on(t.workspaceId, t.source, t.occurredAt),
    uniqueIndex('interactions_source_external_idx').on(t.workspaceId, t.source, t.externalId),
    index('interactions_search_tsv_idx').using('gin', t.searchTsv),
    index('interactions_title_trgm_idx').using('gin', t.title.op('gin_trgm_ops')),
    // said_or_written contains (functions/search/fields.ts) reads the summary, body and turns by these.
    index('interactions_summary_trgm_idx').using('gin', t.summary.op('gin_trgm_ops')),
    index('interactions_body_trgm_idx').using('gin', t.body.op('gin_trgm_ops')),
    check('interactions_kind_check', sql`${t.kind} in (${sqlInList(INTERACTION_KINDS)})`),
    check(
      'interactions_direction_check',
      sql`${t.direction} is null or ${t.direction} in (${sqlInList(EMAIL_DIRECTIONS)})`,
    ),
  ],
);

/**
 * Participant roles that mean "a buyer of the workspace's product", whatever the type of the
 * account the person sits on (with contacts.is_buyer, what lets the customer-voice audience rescue
 * a genuine buyer at a partner or a vendor). Other external roles: investor, advisor, journalist,
 * competitor, vendor_rep, partner, reseller, guest, other. Internal: ae, se, csm, sales_manager,
 * executive.
 */
export const BUYER_PARTICIPANT_ROLES = [
  'champion',
  'economic_buyer',
  'technical_evaluator',
  'end_user',
  'procurement',
  'legal',
] as const;
export type BuyerParticipantRole = (typeof BUYER_PARTICIPANT_ROLES)[number];

/** Who took part: both sides, linked to a CRM contact when one matches. */
export const participants = pgTable(
  'participants',
  {
    id: uuid('id').primaryKey(),
    /** No FK of its own: the parent's cascade removes it, and each FK costs a trigger per loaded row. */
    workspaceId: workspaceRef(),
    interactionId: uuid('interaction_id')
      .notNull()
      .references(() => interactions.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    name: text('name'),
    email: text('email'),
    side: text('side').$type<Side>().notNull(),
    /** e.g. ae, se, csm (internal); buyer, champion, economic_buyer, technical_evaluator, investor (external). */
    role: text('role'),
  },
  (t) => [
    index('participants_interaction_idx').on(t.interactionId),
    index('participants_workspace_contact_idx').on(t.workspaceId, t.contactId),
    index('participants_workspace_email_idx').on(t.workspaceId, sql`lower(${t.email})`),
    check('participants_side_check', sql`${t.side} in (${sqlInList(SIDES)})`),
  ],
);

/** Consecutive speech of one speaker: the grain a semantic match is hydrated to. */
export const transcriptTurns = pgTable(
  'transcript_turns',
  {
    id: uuid('id').primaryKey(),
    /** No FK of its own: the parent's cascade removes it, and each FK costs a trigger per loaded row. */
    workspaceId: workspaceRef(),
    interactionId: uuid('interaction_id')
      .notNull()
      .references(() => interactions.id, { onDelete: 'cascade' }),
    turnIndex: integer('turn_index').notNull(),
    speakerName: text('speaker_name'),
    speakerEmail: text('speaker_email'),
    side: text('side').$type<Side>().notNull(),
    startedAtSeconds: real('started_at_seconds'),
    endedAtSeconds: real('ended_at_seconds'),
    text: text('text').notNull(),
    /** Copied from the interaction so a turn-grain result has an event time of its own. */
    occurredAt: tstz('occurred_at').notNull(),
    searchTsv: tsvector('search_tsv').generatedAlwaysAs(
      (): ReturnType<typeof sql> => sql`to_tsvector('english', ${transcriptTurns.text})`,
    ),
  },
  (t) => [
    uniqueIndex('transcript_turns_interaction_idx').on(t.interactionId, t.turnIndex),
    index('transcript_turns_workspace_occurred_idx').on(t.workspaceId, t.occurredAt),
    index('transcript_turns_search_tsv_idx').using('gin', t.searchTsv),
    index('transcript_turns_text_trgm_idx').using('gin', t.text.op('gin_trgm_ops')),
    check('transcript_turns_side_check', sql`${t.side} in (${sqlInList(SIDES)})`),
  ],
);
