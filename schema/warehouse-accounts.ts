import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { sqlInList } from './warehouse-columns.js';

/**
 * CRM account types. NULL (untyped) is a real state: most CRMs leave the field empty for many
 * accounts, and the customer-voice audience keeps untyped accounts rather than guessing.
 */
export const ACCOUNT_TYPES = [
  'customer',
  'sales_target',
  'investor',
  'advisor',
  'media',
  'competitor',
  'vendor',
  'partner',
  'reseller',
  'other',
] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    domain: text('domain'),
    type: text('type').$type<AccountType>(),
    industry: text('industry'),
    employeeCount: integer('employee_count'),
    region: text('region'),
    ownerEmail: text('owner_email'),
    /** The CRM it was synced from and its id there, so a re-sync updates instead of duplicating. */
    source: text('source'),
    externalId: text('external_id'),
    /** When the account was created in the CRM (not when we ingested it). */
    createdAt: createdAt(),
  },
  (t) => [
    index('accounts_workspace_name_idx').on(t.workspaceId, t.name),
    index('accounts_workspace_domain_idx').on(t.workspaceId, t.domain),
    index('accounts_workspace_type_idx').on(t.workspaceId, t.type),
    check('accounts_type_check', sql`${t.type} is null or ${t.type} in (${sqlInList(ACCOUNT_TYPES)})`),
    // A synced record is found again by its source id: a repeated page updates, never duplicates.
    uniqueIndex('accounts_source_external_idx').on(t.workspaceId, t.source, t.externalId),
  ],
);

export const contacts = pgTable(
  'contacts',
  {
    id: uuid('id').primaryKey(),
    /** No FK of its own: the parent's cascade removes it, and each FK costs a trigger per loaded row. */
    workspaceId: workspaceRef(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    email: text('email'),
    title: text('title'),
    /** Internal advocate for the purchase (MEDDPICC "champion"). */
    isChampion: boolean('is_champion').notNull().default(false),
    /**
     * A genuine buyer of the workspace's product. On customer accounts most contacts are; on an
     * account of an excluded type (partner, investor...) this is what lets the customer-voice
     * audience rescue the few people who really are evaluating a purchase.
     */
    isBuyer: boolean('is_buyer').notNull().default(false),
    /** Set when the person left the company (a champion leaving is a churn signal). */
    leftAt: tstz('left_at'),
    /** The CRM it was synced from and its id there (null for contacts not from a sync). */
    source: text('source'),
    externalId: text('external_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('contacts_workspace_account_idx').on(t.workspaceId, t.accountId),
    index('contacts_workspace_email_idx').on(t.workspaceId, sql`lower(${t.email})`),
    uniqueIndex('contacts_source_external_idx').on(t.workspaceId, t.source, t.externalId),
  ],
);
