/**
 * The views caller SQL reads (schema/migrations/0025_sql_query_sandbox.sql) and their columns in the
 * views' own order: the guard resolves `view.column` and `*` against them, so a test compares them with
 * the database.
 */
export const VIEW_SCHEMA = 'ws_views';

export const VIEW_COLUMN_LISTS = {
  accounts: [
    'id',
    'name',
    'domain',
    'type',
    'industry',
    'employee_count',
    'region',
    'owner_email',
    'source',
    'created_at',
  ],
  contacts: ['id', 'account_id', 'name', 'email', 'title', 'is_champion', 'is_buyer', 'left_at', 'source'],
  deals: [
    'id',
    'account_id',
    'name',
    'stage',
    'amount',
    'currency',
    'close_date',
    'owner_email',
    'probability',
    'is_closed',
    'is_won',
    'source',
    'occurred_at',
    'updated_at',
  ],
  interactions: [
    'id',
    'kind',
    'title',
    'account_id',
    'deal_id',
    'occurred_at',
    'duration_seconds',
    'direction',
    'source',
    'thread_id',
    'summary',
    'participant_count',
    'external_participant_count',
  ],
  participants: ['id', 'interaction_id', 'contact_id', 'name', 'email', 'side', 'role'],
  transcript_turns: [
    'id',
    'interaction_id',
    'turn_index',
    'speaker_name',
    'speaker_email',
    'side',
    'text',
    'occurred_at',
  ],
} as const satisfies Record<string, readonly string[]>;

export type QueryView = keyof typeof VIEW_COLUMN_LISTS;
export const QUERY_VIEWS = Object.keys(VIEW_COLUMN_LISTS) as QueryView[];
export const isQueryView = (name: string): name is QueryView => Object.hasOwn(VIEW_COLUMN_LISTS, name);

/** Every column of every view. */
export const VIEW_COLUMNS: ReadonlySet<string> = new Set(Object.values(VIEW_COLUMN_LISTS).flat());
