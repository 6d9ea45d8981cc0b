import { z } from '@hono/zod-openapi';
import { isoTimestamp, pagingQuery } from '../schemas.js';
import { AUTH_METHODS, CATEGORIES } from './catalog.js';
import { CallFiltersSchema, CommsFilterSchema, CrmRecencySchema } from './filters.js';
import { HEALTH_VALUES } from './health.js';

/** The connections surface's request and response shapes (spec: Connection and catalog entry). */

const LogoSchema = z.object({ key: z.string(), url: z.string().nullable(), monogram: z.string() });

export const CatalogEntrySchema = z
  .object({
    type: z.string(),
    name: z.string(),
    kind: z.literal('first_party'),
    category: z.enum(CATEGORIES),
    authMethod: z.enum(AUTH_METHODS),
    logo: LogoSchema,
    connect: z.object({
      method: z.enum(AUTH_METHODS),
      fields: z.array(
        z.object({
          key: z.string(),
          label: z.string(),
          secret: z.boolean(),
          placeholder: z.string().nullable(),
          help: z.string(),
          resupplyOnReconnect: z.boolean(),
        }),
      ),
      keyUrl: z.string().nullable(),
    }),
    connectable: z.boolean(),
    unavailableReason: z.string().nullable(),
    single_instance: z.boolean(),
    ownership: z.enum(['workspace', 'personal']),
    description: z.string(),
    dataStreams: z.array(z.string()),
  })
  .openapi('ConnectorCatalogEntry');

export const SyncRunSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['queued', 'running', 'complete', 'failed', 'canceled']),
    started_at: isoTimestamp().nullable(),
    finished_at: isoTimestamp().nullable(),
    streams_total: z.number().int(),
    streams_failed: z.number().int(),
    records_written: z.number().int(),
    error_reason: z.enum(['auth', 'rate_limit', 'transient', 'config', 'unknown']).nullable(),
    trigger: z
      .string()
      .openapi({ description: '`connect`, `reconnect`, `schedule` or `filters` (a call filter decision started it).' }),
  })
  .openapi('ConnectionSyncRun');

export const PAUSED_REASONS = ['call_filters_required'] as const;

export const ConnectionSchema = z
  .object({
    id: z.uuid(),
    connector: z.object({ type: z.string(), name: z.string(), category: z.enum(CATEGORIES), logo: LogoSchema }),
    display_name: z.string().nullable(),
    status: z.enum(['pending', 'connected', 'disconnected']),
    health: z.enum(HEALTH_VALUES),
    is_syncing: z.boolean(),
    paused_reason: z.enum(PAUSED_REASONS).nullable().openapi({
      description: '`call_filters_required`: a calls source syncs nothing until a call filter decision is saved.',
    }),
    ownership: z.enum(['workspace', 'personal']),
    owner_user_id: z.uuid().nullable(),
    fields: z.record(z.string(), z.string()).openapi({
      description: 'Non-secret connect fields (e.g. `api_id`, `account_handle`). Secrets are never returned.',
    }),
    config: z.object({
      call_filters: CallFiltersSchema.nullable(),
      crm_recency: CrmRecencySchema.nullable(),
      comms_filter: CommsFilterSchema.nullable(),
    }),
    last_synced_at: isoTimestamp().nullable(),
    next_sync_at: isoTimestamp().nullable(),
    rate_limited_until: isoTimestamp().nullable(),
    last_run: SyncRunSchema.nullable(),
    created_at: isoTimestamp(),
    disconnected_at: isoTimestamp().nullable(),
  })
  .openapi('Connection');

export const ConnectionStatusSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['pending', 'connected', 'disconnected']),
    health: z.enum(HEALTH_VALUES),
    is_syncing: z.boolean(),
    paused_reason: z.enum(PAUSED_REASONS).nullable(),
    last_synced_at: isoTimestamp().nullable(),
    rate_limited_until: isoTimestamp().nullable(),
  })
  .openapi('ConnectionStatus');

export const connectionIdParams = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'Connection id.' }),
});
export const pagingParams = z.object(pagingQuery).strict();

export const ConnectBody = z
  .object({
    connector_type: z.string().min(1).max(64).openapi({ description: 'The catalog `type`.' }),
    api_key: z
      .string()
      .trim()
      .min(1)
      .max(4096)
      .optional()
      .openapi({ description: 'api_key sources: the secret (never returned).' }),
    api_id: z
      .string()
      .trim()
      .min(1)
      .max(512)
      .optional()
      .openapi({ description: 'Where the catalog declares it (Gong: the access key).' }),
    account_handle: z.string().trim().min(1).max(300).optional().openapi({
      description:
        'handle sources (Bluesky: `acme.com`, `@acme.bsky.social`, a `bsky.app/profile/…` link or a `did:plc:`). Checked with the provider and pinned to the account\u2019s stable id; connecting the same account again is `already_connected`.',
    }),
    display_name: z.string().trim().min(1).max(120).optional(),
    call_filters: CallFiltersSchema.optional().openapi({
      description:
        'Call recorders: saved atomically with the connection; `{enabled: false}` opts out. Without it the calls source stays paused until a decision is saved.',
    }),
  })
  .strict();

export const ConnectResultSchema = z
  .object({
    mode: z.enum(['connected', 'oauth_redirect', 'already_connected']),
    connection: ConnectionSchema.nullable(),
    authorize_url: z.string().nullable(),
    sync_run_id: z.uuid().nullable().openapi({ description: 'The first sync, when one was started.' }),
    ingest: z
      .object({
        url: z.string().openapi({ description: 'POST pushes here: `{items: [...]}` of calls and emails.' }),
        secret: z.string().openapi({
          description:
            'The Standard Webhooks signing secret (`whsec_...`). Shown only in this response; a reconnect issues a new one.',
        }),
      })
      .nullable()
      .openapi({ description: 'Webhook sources only.' }),
  })
  .openapi('ConnectResult');

export const ReconnectBody = z
  .object({
    api_key: z.string().trim().min(1).max(4096).optional(),
    api_id: z.string().trim().min(1).max(512).optional(),
    account_handle: z.string().trim().min(1).max(300).optional().openapi({
      description:
        'handle sources: optional; given, it names the account anew, else the stored account is checked again.',
    }),
  })
  .strict();

export const UpdateConnectionBody = z
  .object({
    owner_user_id: z
      .uuid()
      .optional()
      .openapi({ description: 'personal connections only: a member of the workspace.' }),
    display_name: z.string().trim().min(1).max(120).optional(),
  })
  .strict();

const CrmStats = z.object({
  accounts: z.number().int().nullable(),
  contacts: z.number().int().nullable(),
  deals: z.number().int().nullable(),
  open_deals: z.number().int().nullable(),
  won_deals: z.number().int().nullable(),
  latest_record_at: isoTimestamp().nullable(),
});
const CallStats = z.object({
  calls: z.number().int().nullable(),
  emails: z.number().int().nullable().openapi({ description: 'Pushed sources can bring emails too.' }),
  transcribed_calls: z.number().int().nullable(),
  participants: z.number().int().nullable(),
  embedded_utterances: z.number().int().nullable(),
  latest_call_at: isoTimestamp().nullable(),
});

const CommsStats = z.object({
  meetings: z.number().int().nullable().openapi({
    description: 'Meetings this calendar holds (a meeting on several members\u2019 calendars counts on each).',
  }),
  participants: z.number().int().nullable(),
  external_participants: z.number().int().nullable(),
  accounts: z.number().int().nullable().openapi({ description: 'Distinct CRM accounts the meetings are linked to.' }),
  latest_meeting_at: isoTimestamp().nullable(),
});
const SocialStats = z.object({
  threads: z
    .number()
    .int()
    .nullable()
    .openapi({ description: 'Conversations kept (each holds someone other than the account).' }),
  posts: z.number().int().nullable().openapi({ description: 'Posts in them, the account\u2019s own included.' }),
  people: z
    .number()
    .int()
    .nullable()
    .openapi({ description: 'Distinct people other than the account who wrote in them.' }),
  embedded_utterances: z.number().int().nullable(),
  latest_thread_at: isoTimestamp().nullable(),
});

export const ConnectionSummarySchema = z
  .object({
    connection_id: z.uuid(),
    category: z.enum(CATEGORIES),
    synced: z
      .boolean()
      .openapi({ description: 'False until a sync has completed: every stat is then null (never 0).' }),
    last_synced_at: isoTimestamp().nullable(),
    crm: CrmStats.nullable(),
    calls: CallStats.nullable(),
    comms: CommsStats.nullable().openapi({ description: 'Calendar sources (Google Calendar).' }),
    social: SocialStats.nullable().openapi({ description: 'Social sources (Bluesky).' }),
    computed_at: isoTimestamp(),
  })
  .openapi('ConnectionSummary');
