import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  index,
  integer,
  numeric,
  pgTable,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { accounts } from './warehouse-accounts.js';
import { sqlInList } from './warehouse-columns.js';

export const DEAL_STAGES = [
  'prospecting',
  'discovery',
  'evaluation',
  'proposal',
  'negotiation',
  'closed_won',
  'closed_lost',
] as const;
export type DealStage = (typeof DEAL_STAGES)[number];

/** The `deals` surface: one row per CRM opportunity. */
export const deals = pgTable(
  'deals',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id').references(() => accounts.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    stage: text('stage').$type<DealStage>().notNull(),
    /** Unknown amounts stay null: an opportunity without an amount is not worth 0. */
    amount: numeric('amount', { precision: 14, scale: 2, mode: 'number' }),
    currency: text('currency'),
    closeDate: date('close_date', { mode: 'string' }),
    ownerEmail: text('owner_email'),
    /** 0-100, as the CRM reports it. */
    probability: integer('probability'),
    isClosed: boolean('is_closed').notNull().default(false),
    isWon: boolean('is_won').notNull().default(false),
    source: text('source'),
    externalId: text('external_id'),
    /** Event time of a deal: when it was created in the CRM. */
    occurredAt: tstz('occurred_at').notNull(),
    updatedAt: tstz('updated_at').notNull(),
  },
  (t) => [
    index('deals_workspace_occurred_idx').on(t.workspaceId, t.occurredAt),
    index('deals_workspace_account_idx').on(t.workspaceId, t.accountId),
    index('deals_workspace_stage_idx').on(t.workspaceId, t.stage),
    index('deals_workspace_close_date_idx').on(t.workspaceId, t.closeDate),
    check('deals_stage_check', sql`${t.stage} in (${sqlInList(DEAL_STAGES)})`),
    check('deals_probability_check', sql`${t.probability} is null or ${t.probability} between 0 and 100`),
    uniqueIndex('deals_source_external_idx').on(t.workspaceId, t.source, t.externalId),
  ],
);

export const QUALIFICATION_CRITERIA = [
  'metrics',
  'economic_buyer',
  'decision_criteria',
  'decision_process',
  'paper_process',
  'identify_pain',
  'champion',
  'competition',
] as const;
export type QualificationCriterion = (typeof QUALIFICATION_CRITERIA)[number];

/** How far a criterion is established: from nothing known to confirmed, or known to be a problem. */
export const QUALIFICATION_STATUSES = ['unknown', 'identified', 'validated', 'at_risk'] as const;
export type QualificationStatus = (typeof QUALIFICATION_STATUSES)[number];

/**
 * The `deal_qualification` surface: one row per criterion per assessment, so the history of a
 * deal's qualification is kept (a later assessment is a new row with a later `occurred_at`).
 */
export const dealQualification = pgTable(
  'deal_qualification',
  {
    id: uuid('id').primaryKey(),
    /** No FK of its own: the parent's cascade removes it, and each FK costs a trigger per loaded row. */
    workspaceId: workspaceRef(),
    dealId: uuid('deal_id')
      .notNull()
      .references(() => deals.id, { onDelete: 'cascade' }),
    framework: text('framework').notNull().default('MEDDPICC'),
    criterion: text('criterion').$type<QualificationCriterion>().notNull(),
    status: text('status').$type<QualificationStatus>().notNull(),
    /** 0 (nothing) to 3 (fully established). */
    score: smallint('score').notNull(),
    notes: text('notes'),
    assessedBy: text('assessed_by'),
    /** Event time: when the criterion was assessed. */
    occurredAt: tstz('occurred_at').notNull(),
  },
  (t) => [
    index('deal_qualification_workspace_deal_idx').on(t.workspaceId, t.dealId),
    index('deal_qualification_workspace_occurred_idx').on(t.workspaceId, t.occurredAt),
    check('deal_qualification_criterion_check', sql`${t.criterion} in (${sqlInList(QUALIFICATION_CRITERIA)})`),
    check('deal_qualification_status_check', sql`${t.status} in (${sqlInList(QUALIFICATION_STATUSES)})`),
    check('deal_qualification_score_check', sql`${t.score} between 0 and 3`),
  ],
);
