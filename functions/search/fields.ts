import { ACCOUNT_TYPES } from '../../schema/warehouse-accounts.js';
import { DEAL_STAGES, QUALIFICATION_CRITERIA, QUALIFICATION_STATUSES } from '../../schema/warehouse-deals.js';
import { SIDES } from '../../schema/warehouse-columns.js';
import { EMAIL_DIRECTIONS, INTERACTION_KINDS } from '../../schema/warehouse-interactions.js';
import { WAREHOUSE_SURFACES, type WarehouseSurface } from '../../schema/warehouse-settings.js';
import { type SQL, sql } from 'drizzle-orm';
import type { FilterOperator, MetricFunction } from './request.js';

/**
 * The field vocabulary of the filter lane: per surface, every field a filter, `group_by`, a metric
 * or `order_by` may name, its type, which operators it takes, and how to read it in SQL. It is the
 * single source for the filter compiler (functions/search/filter-compiler.ts) and for
 * `GET /search/fields`, so the catalog a client reads is exactly what the compiler validates against.
 *
 * Each surface is a logical view: its base table (alias `t`) plus the rows it is joined to for
 * readable context (accounts `a`, deals `d`), always by id within the same workspace. The SQL
 * expressions below are the code's own constants; no name or value from a request ever reaches SQL
 * except as a bound parameter, and field names are only ever looked up here.
 */

export const FIELD_TYPES = [
  'string',
  'text',
  'enum',
  'number',
  'integer',
  'timestamp',
  'date',
  'boolean',
  'uuid',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Rows a field's expression needs joined to the surface's base table. */
export type SurfaceJoin = 'account' | 'deal';

export interface FieldDef {
  name: string;
  type: FieldType;
  nullable: boolean;
  description: string;
  /** The allowed values of an enum field. */
  values?: readonly string[];
  /** SQL expression over the surface's aliases (t, a, d). A constant of this module, never input. */
  column: string;
  /** The join the expression reads from, if any. */
  join?: SurfaceJoin;
  /**
   * How `contains` reads this field when the column expression cannot use an index (an expression
   * over several columns and a table): the ILIKE pattern, already escaped, and the workspace.
   */
  contains?: (pattern: string, workspaceId: string) => SQL;
}

/** What a client (and the compiler) sees of a field: the definition plus what it allows. */
export interface FieldInfo extends FieldDef {
  operators: readonly FilterOperator[];
  groupable: boolean;
  /** Metric functions that accept this field (`count` takes any field, or none). */
  metrics: readonly MetricFunction[];
}

export interface SurfaceVocabulary {
  /** A warehouse surface, or `utterances`: the semantic lane's store (UTTERANCE_VOCABULARY). */
  surface: WarehouseSurface | 'utterances';
  /** The base table (the gate's logical name is the surface). */
  table: string;
  /** The one event-time column of the surface (the spec's allowlist: `timestamp`, `occurred_at`). */
  eventTimeField: 'occurred_at';
  /** Joins and the joins they depend on, in the order they must appear. */
  joins: Partial<Record<SurfaceJoin, { sql: string; after?: SurfaceJoin }>>;
  fields: readonly FieldInfo[];
  byName: ReadonlyMap<string, FieldInfo>;
}

const NULL_OPS = ['is_null', 'not_null'] as const satisfies readonly FilterOperator[];

/** Operators per type, before the null tests (offered only on nullable fields). */
const OPERATORS_BY_TYPE: Record<FieldType, readonly FilterOperator[]> = {
  string: ['eq', 'neq', 'contains', 'in', 'not_in'],
  text: ['eq', 'neq', 'contains'],
  enum: ['eq', 'neq', 'in', 'not_in'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'not_in'],
  integer: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'not_in'],
  timestamp: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between'],
  date: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'not_in'],
  boolean: ['eq', 'neq'],
  uuid: ['eq', 'neq', 'in', 'not_in'],
};

/** Long free text is filtered (contains) but not grouped on; instants are too fine-grained to group. */
const GROUPABLE_TYPES: ReadonlySet<FieldType> = new Set(['string', 'enum', 'integer', 'date', 'boolean', 'uuid']);
const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['number', 'integer']);
/** Postgres has min/max for these (not for boolean or uuid); on free text they mean nothing useful. */
const ORDERED_TYPES: ReadonlySet<FieldType> = new Set(['string', 'enum', 'number', 'integer', 'timestamp', 'date']);

export const isNumericType = (type: FieldType): boolean => NUMERIC_TYPES.has(type);

function describeField(def: FieldDef): FieldInfo {
  const metrics: MetricFunction[] = ['count', 'count_distinct'];
  if (ORDERED_TYPES.has(def.type)) metrics.push('min', 'max');
  if (NUMERIC_TYPES.has(def.type)) metrics.push('sum', 'avg');
  // The percentage of rows where a flag holds ("win rate": share of is_won over closed deals).
  if (def.type === 'boolean') metrics.push('share');
  return {
    ...def,
    operators: [...OPERATORS_BY_TYPE[def.type], ...(def.nullable ? NULL_OPS : [])],
    groupable: GROUPABLE_TYPES.has(def.type),
    metrics,
  };
}

const f = (
  name: string,
  type: FieldType,
  nullable: boolean,
  description: string,
  column: string,
  extra: Partial<FieldDef> = {},
): FieldDef => ({
  name,
  type,
  nullable,
  description,
  column,
  ...extra,
});

const accountFields = (prefix = ''): FieldDef[] => [
  f(`${prefix}account_name`, 'string', true, 'Name of the CRM account (null when none is linked).', 'a.name', {
    join: 'account',
  }),
  f(
    `${prefix}account_type`,
    'enum',
    true,
    'Type of the CRM account; null when the account is untyped or none is linked.',
    'a.type',
    {
      join: 'account',
      values: ACCOUNT_TYPES,
    },
  ),
  f(`${prefix}account_industry`, 'string', true, 'Industry of the CRM account, as the CRM records it.', 'a.industry', {
    join: 'account',
  }),
  f(`${prefix}account_region`, 'string', true, 'Sales region of the CRM account (e.g. EMEA).', 'a.region', {
    join: 'account',
  }),
];

const INTERACTIONS: FieldDef[] = [
  f('id', 'uuid', false, 'Id of the interaction.', 't.id'),
  f(
    'kind',
    'enum',
    false,
    'call, meeting, email or post (a public social-media thread: the root post and its replies).',
    't.kind',
    { values: INTERACTION_KINDS },
  ),
  f('title', 'text', false, 'Meeting or call title; the subject line of an email.', 't.title'),
  f(
    'occurred_at',
    'timestamp',
    false,
    'Event time: when the call or meeting started, when the email was sent.',
    't.occurred_at',
  ),
  f(
    'duration_seconds',
    'integer',
    true,
    'Length of a call or meeting in seconds; null for email and post.',
    't.duration_seconds',
  ),
  f('direction', 'enum', true, 'Email only: inbound or outbound; null for calls, meetings and posts.', 't.direction', {
    values: EMAIL_DIRECTIONS,
  }),
  f(
    'source',
    'string',
    false,
    'The system it was synced from (e.g. gong, zoom, google_meet, gmail, outlook, bluesky).',
    't.source',
  ),
  f('thread_id', 'string', true, 'Groups the emails of one conversation; null for calls and meetings.', 't.thread_id'),
  f('summary', 'text', true, 'Summary of a call or meeting.', 't.summary'),
  f(
    'body',
    'text',
    true,
    'Full text of an email (calls, meetings and posts keep their words in the transcript).',
    't.body',
  ),
  f(
    'said_or_written',
    'text',
    true,
    'Everything the interaction says: title, summary, email body and every transcript turn (filter with contains, e.g. a competitor named in a call).',
    "concat_ws(' ', t.title, t.summary, t.body, (select string_agg(tt.text, ' ') from transcript_turns tt where tt.interaction_id = t.id and tt.workspace_id = t.workspace_id))",
    { contains: saidOrWrittenContains },
  ),
  f('participant_count', 'integer', true, 'People who took part, both sides.', 't.participant_count'),
  f('external_participant_count', 'integer', true, 'People from the customer side.', 't.external_participant_count'),
  f('account_id', 'uuid', true, 'The CRM account it belongs to.', 't.account_id'),
  ...accountFields(),
  f('deal_id', 'uuid', true, 'The deal it belongs to.', 't.deal_id'),
  f('deal_name', 'string', true, 'Name of the deal (null when none is linked).', 'd.name', { join: 'deal' }),
  f('deal_stage', 'enum', true, 'Current stage of the deal (null when none is linked).', 'd.stage', {
    join: 'deal',
    values: DEAL_STAGES,
  }),
  f('deal_owner_email', 'string', true, 'Email of the owner of the deal (null when none is linked).', 'd.owner_email', {
    join: 'deal',
  }),
];

/**
 * What the semantic lane's filters may name beyond its interaction's fields: the utterance itself
 * (alias `u`, always in the lane's FROM). The store holds external speech only, so `side` selects
 * `external` or nothing; it is here so a caller's speaker-side filter is honoured, not ignored.
 */
const UTTERANCE_ONLY: FieldDef[] = [
  f(
    'side',
    'enum',
    false,
    'Which side spoke: external (the customer) or internal. The store holds external speech.',
    'u.side',
    {
      values: SIDES,
    },
  ),
  f('speaker', 'string', true, 'Name of the person who said it, as the transcript records it.', 'u.speaker_name'),
];

/**
 * `said_or_written contains X` without concatenating every interaction's turns: the interactions
 * whose title, summary or body holds X, and those with a turn that holds it, each found through its
 * column's trigram index (schema/warehouse-interactions.ts), then matched by id. The same rows as
 * ILIKE over the concatenation, except a match that spans two turns (or a turn and the title),
 * which no one means by "mentions".
 */
function saidOrWrittenContains(pattern: string, workspaceId: string): SQL {
  return sql`t.id in (
    select i.id from interactions i where i.workspace_id = ${workspaceId}
      and (i.title ilike ${pattern} escape '\\' or i.summary ilike ${pattern} escape '\\' or i.body ilike ${pattern} escape '\\')
    union
    select tt.interaction_id from transcript_turns tt where tt.workspace_id = ${workspaceId}
      and tt.text ilike ${pattern} escape '\\')`;
}

const DEALS: FieldDef[] = [
  f('id', 'uuid', false, 'Id of the deal.', 't.id'),
  f('name', 'string', false, 'Name of the opportunity.', 't.name'),
  f('stage', 'enum', false, 'Pipeline stage.', 't.stage', { values: DEAL_STAGES }),
  f('amount', 'number', true, 'Amount in the deal currency; null when unknown (never 0 for unknown).', 't.amount'),
  f('currency', 'string', true, 'ISO currency code of the amount.', 't.currency'),
  f('close_date', 'date', true, 'Expected or actual close date (YYYY-MM-DD).', 't.close_date'),
  f('owner_email', 'string', true, 'Email of the deal owner.', 't.owner_email'),
  f('probability', 'integer', true, 'Win probability 0-100 as the CRM reports it.', 't.probability'),
  f(
    'weighted_amount',
    'number',
    true,
    'Amount times win probability / 100: what the deal is worth weighted by its chance (null when either is unknown).',
    '(t.amount * t.probability / 100.0)',
  ),
  f('is_closed', 'boolean', false, 'Whether the deal is closed (won or lost).', 't.is_closed'),
  f('is_won', 'boolean', false, 'Whether the deal was won.', 't.is_won'),
  f('source', 'string', true, 'The CRM it was synced from.', 't.source'),
  f('occurred_at', 'timestamp', false, 'Event time: when the deal was created in the CRM.', 't.occurred_at'),
  f('updated_at', 'timestamp', false, 'When the deal was last changed in the CRM (not an event time).', 't.updated_at'),
  f('account_id', 'uuid', true, 'The CRM account of the deal.', 't.account_id'),
  ...accountFields(),
];

const DEAL_QUALIFICATION: FieldDef[] = [
  f('id', 'uuid', false, 'Id of the assessment row (one criterion of one assessment).', 't.id'),
  f('deal_id', 'uuid', false, 'The deal assessed.', 't.deal_id'),
  f('deal_name', 'string', false, 'Name of the deal assessed.', 'd.name', { join: 'deal' }),
  f('deal_stage', 'enum', false, 'Current stage of the deal assessed.', 'd.stage', {
    join: 'deal',
    values: DEAL_STAGES,
  }),
  f('account_id', 'uuid', true, 'The CRM account of the deal.', 'd.account_id', { join: 'deal' }),
  ...accountFields(),
  f('framework', 'string', false, 'Qualification framework (e.g. MEDDPICC).', 't.framework'),
  f('criterion', 'enum', false, 'The criterion assessed.', 't.criterion', { values: QUALIFICATION_CRITERIA }),
  f('status', 'enum', false, 'How far the criterion is established.', 't.status', { values: QUALIFICATION_STATUSES }),
  f('score', 'integer', false, '0 (nothing) to 3 (fully established).', 't.score'),
  f('notes', 'text', true, 'Free-text notes of the assessment.', 't.notes'),
  f('assessed_by', 'string', true, 'Who assessed it.', 't.assessed_by'),
  f('occurred_at', 'timestamp', false, 'Event time: when the criterion was assessed.', 't.occurred_at'),
];

function vocabulary(
  surface: SurfaceVocabulary['surface'],
  table: string,
  joins: SurfaceVocabulary['joins'],
  defs: FieldDef[],
): SurfaceVocabulary {
  const fields = defs.map(describeField);
  return {
    surface,
    table,
    eventTimeField: 'occurred_at',
    joins,
    fields,
    byName: new Map(fields.map((field) => [field.name, field])),
  };
}

export const SURFACE_VOCABULARY: Readonly<Record<WarehouseSurface, SurfaceVocabulary>> = {
  interactions: vocabulary(
    'interactions',
    'interactions',
    {
      account: { sql: 'left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id' },
      deal: { sql: 'left join deals d on d.id = t.deal_id and d.workspace_id = t.workspace_id' },
    },
    INTERACTIONS,
  ),
  deals: vocabulary(
    'deals',
    'deals',
    { account: { sql: 'left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id' } },
    DEALS,
  ),
  deal_qualification: vocabulary(
    'deal_qualification',
    'deal_qualification',
    {
      deal: { sql: 'left join deals d on d.id = t.deal_id and d.workspace_id = t.workspace_id' },
      account: {
        sql: 'left join accounts a on a.id = d.account_id and a.workspace_id = t.workspace_id',
        after: 'deal',
      },
    },
    DEAL_QUALIFICATION,
  ),
};

/**
 * The semantic lane's filter vocabulary: every field of the interactions surface (the same names,
 * types, operators and SQL, read of the utterance's interaction `t` with its account `a` and deal `d`)
 * plus the utterance's own speaker fields. The filter compiler validates and compiles against it as
 * against a surface.
 */
export const UTTERANCE_VOCABULARY: SurfaceVocabulary = vocabulary(
  'utterances',
  'interactions',
  SURFACE_VOCABULARY.interactions.joins,
  [...INTERACTIONS, ...UTTERANCE_ONLY],
);

export const surfaceFieldNames = (surface: WarehouseSurface): string[] =>
  SURFACE_VOCABULARY[surface].fields.map((field) => field.name);

/** Every surface's vocabulary, in the spec's order. */
export const allSurfaceVocabularies = (): SurfaceVocabulary[] => WAREHOUSE_SURFACES.map((s) => SURFACE_VOCABULARY[s]);

/** The joins a set of fields needs, dependencies first. */
export function joinsFor(vocab: SurfaceVocabulary, fields: Iterable<FieldInfo>): SurfaceJoin[] {
  const needed = new Set<SurfaceJoin>();
  const add = (join: SurfaceJoin) => {
    const after = vocab.joins[join]?.after;
    if (after) add(after);
    needed.add(join);
  };
  for (const field of fields) if (field.join) add(field.join);
  return [...needed];
}
