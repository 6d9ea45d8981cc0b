import { z } from '@hono/zod-openapi';
import { SUBSCRIPTION_FIRE_STATUSES } from '../../schema/subscriptions.js';
import { DEPTHS } from '../agents/index.js';
import { isoTimestamp, pagingQuery, queryBool } from '../schemas.js';
import { SOURCE_KINDS } from './kinds.js';

export const SUBSCRIPTION_LIMITS = { name: 200, prompt: 20_000 } as const;

/** What each fire runs with (the run config of a chat: depth, what it may write and send). */
export const RunConfigSchema = z
  .object({
    depth: z.enum(DEPTHS).optional().openapi({ description: 'Turn budget of each fire (default standard: 50 turns).' }),
    actions_allowed: z.array(z.string().min(1)).max(50).nullable().optional().openapi({
      description:
        'Narrows the action catalog (e.g. `["email_member"]`); `[]` disables actions; absent or null allows every cataloged action.',
    }),
    write_outputs: z
      .boolean()
      .optional()
      .openapi({ description: 'Allow document commits through the verified write gate (default true).' }),
  })
  .strict()
  .openapi('SubscriptionRunConfig');
export type RunConfigInput = z.infer<typeof RunConfigSchema>;

export const RUN_CONFIG_DEFAULTS = { depth: 'standard', actions_allowed: null, write_outputs: true } as const;
export interface RunConfig {
  depth: (typeof DEPTHS)[number];
  actions_allowed: string[] | null;
  write_outputs: boolean;
}
export const effectiveRunConfig = (stored: Record<string, unknown>): RunConfig => ({
  ...RUN_CONFIG_DEFAULTS,
  ...(stored as Partial<RunConfig>),
});

const base = {
  name: z.string().trim().min(1).max(SUBSCRIPTION_LIMITS.name),
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(SUBSCRIPTION_LIMITS.prompt)
    .openapi({ description: 'What each fire should do; the triggering event is added to the turn after it.' }),
  config: z.record(z.string(), z.unknown()).openapi({
    description:
      "The kind's config, checked against the kind's fields (GET /subscriptions/kinds); undeclared keys are refused.",
  }),
  agent: z.string().min(1).max(120).openapi({ description: 'A saved agent to pin (slug or id).' }),
  run_config: z
    .record(z.string(), z.unknown())
    .openapi({ description: 'See SubscriptionRunConfig; unknown keys are refused.' }),
  enabled: z.boolean(),
};

export const CreateSubscriptionBody = z
  .object({
    name: base.name,
    source_kind: z.enum(SOURCE_KINDS),
    prompt: base.prompt,
    config: base.config,
    agent: base.agent.optional(),
    run_config: base.run_config.optional(),
    enabled: base.enabled.optional().openapi({ default: true }),
  })
  .strict()
  .openapi('CreateSubscriptionRequest');

/** `source_kind` is refused by name (immutable) rather than as an unknown field. */
export const UpdateSubscriptionBody = z
  .object({
    name: base.name.optional(),
    source_kind: z
      .string()
      .optional()
      .openapi({ description: 'Immutable: any value is refused (make a new subscription).' }),
    prompt: base.prompt.optional(),
    config: base.config.optional().openapi({ description: 'Replaces the whole config; checked as on create.' }),
    agent: base.agent.nullable().optional().openapi({ description: 'null clears the pin.' }),
    run_config: base.run_config.optional().openapi({ description: 'Replaces the whole run config.' }),
    enabled: base.enabled
      .optional()
      .openapi({ description: 'false pauses: pending fires are skipped as subscription_disabled.' }),
  })
  .strict()
  .openapi('UpdateSubscriptionRequest');

export const SubscriptionSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    source_kind: z.enum(SOURCE_KINDS),
    prompt: z.string(),
    config: z.record(z.string(), z.unknown()).openapi({ description: "The kind's config with its defaults applied." }),
    agent: z.string().nullable(),
    run_config: z.object({
      depth: z.enum(DEPTHS),
      actions_allowed: z.array(z.string()).nullable().openapi({ description: 'null: every cataloged action.' }),
      write_outputs: z.boolean(),
    }),
    enabled: z.boolean(),
    source: z
      .object({
        next_read_at: isoTimestamp()
          .nullable()
          .openapi({ description: 'When the source is read next; null while disabled.' }),
        last_read_at: isoTimestamp().nullable(),
        last_error: z.string().nullable().openapi({ description: 'Why the last read failed; null once one succeeds.' }),
      })
      .openapi({ description: 'How the source is being watched.' }),
    last_fire: z
      .object({
        fired_at: isoTimestamp(),
        chat_id: z.uuid().nullable(),
        run_id: z.uuid().nullable(),
        session_id: z.uuid().nullable(),
      })
      .nullable()
      .openapi({ description: 'The latest fire that started a run: its chat and its run (= session).' }),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .openapi('Subscription');
export type SubscriptionView = z.infer<typeof SubscriptionSchema>;

export const EventSnapshotSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    start: isoTimestamp(),
    end: isoTimestamp().nullable(),
    calendar_id: z.string(),
    organizer: z.string().nullable(),
    attendees: z.array(z.object({ email: z.string(), name: z.string().nullable() })),
    account: z
      .object({ id: z.uuid(), name: z.string(), domain: z.string() })
      .nullable()
      .openapi({ description: 'The account matched by attendee email domains, when the fire ran; null otherwise.' }),
  })
  .openapi('SubscriptionEvent');
export type EventSnapshot = z.infer<typeof EventSnapshotSchema>;

export const FireSchema = z
  .object({
    id: z.uuid(),
    subscription_id: z.uuid(),
    status: z.enum(SUBSCRIPTION_FIRE_STATUSES),
    skip_reason: z.string().nullable().openapi({
      description: 'When skipped: subscription_disabled, rate_limited, agent_unresolvable, meeting_started.',
    }),
    cancel_reason: z.string().nullable().openapi({
      description: 'When canceled: event_canceled, event_rescheduled, event_no_longer_matches, subscription_changed.',
    }),
    error: z
      .string()
      .nullable()
      .openapi({ description: 'When failed: why the run could not start (claim_expired: its worker died).' }),
    event_id: z.string(),
    event_start: isoTimestamp(),
    lead_minutes: z.number().int(),
    due_at: isoTimestamp(),
    event: EventSnapshotSchema,
    chat_id: z.uuid().nullable(),
    run_id: z.uuid().nullable(),
    settled_at: isoTimestamp().nullable(),
    created_at: isoTimestamp(),
  })
  .openapi('SubscriptionFire');
export type FireView = z.infer<typeof FireSchema>;

export const ListSubscriptionsQuery = z
  .object({
    source_kind: z.enum(SOURCE_KINDS).optional(),
    enabled: queryBool().openapi({ description: 'Only enabled (true) or paused (false) subscriptions.' }),
    ...pagingQuery,
  })
  .strict();

export const ListFiresQuery = z
  .object({
    status: z.enum(SUBSCRIPTION_FIRE_STATUSES).optional(),
    ...pagingQuery,
  })
  .strict();

export const SubscriptionIdParams = z
  .object({
    id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f' }),
  })
  .strict();
