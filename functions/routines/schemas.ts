import { z } from '@hono/zod-openapi';
import { readsDates } from '../../platform/validation.js';
import { DEPTHS } from '../agents/index.js';
import { isoTimestamp, pagingQuery, queryBool } from '../schemas.js';

export const ROUTINE_LIMITS = { name: 200, prompt: 20_000, agents: 20 } as const;

/** The config keys a routine takes (spec: Routine), all optional on write; defaults below apply on read. */
export const RoutineConfigSchema = z
  .object({
    agents: z
      .union([
        z.literal('all'),
        z.string().min(1).max(120),
        z.array(z.string().min(1).max(120)).min(1).max(ROUTINE_LIMITS.agents),
      ])
      .optional()
      .openapi({
        description:
          '`all`; one agent ref (the fire runs as that agent); or several (the run may delegate only within that roster).',
      }),
    write_outputs: z
      .boolean()
      .optional()
      .openapi({ description: 'Allow document commits through the verified write gate (default true).' }),
    write_memory: z.boolean().optional().openapi({
      description:
        'Long-term memory commits (default false): the fire may call memory.remember, and its verified answer is remembered (source kg) when it completes.',
    }),
    actions_allowed: z.array(z.string().min(1)).max(50).optional().openapi({
      description: 'Narrows the action catalog; `[]` disables actions; absent allows every cataloged action.',
    }),
    external_search: z
      .boolean()
      .optional()
      .openapi({ description: 'Market fan-outs (default false; stored: no external search exists yet).' }),
    include_divergence: z
      .boolean()
      .optional()
      .openapi({ description: 'Divergence-map fusion on external reads (default false; stored).' }),
    depth: z.enum(DEPTHS).optional().openapi({ description: 'Turn budget of each fire (default deep: 75 turns).' }),
  })
  .strict()
  .openapi('RoutineConfig');
export type RoutineConfigInput = z.infer<typeof RoutineConfigSchema>;

export const CONFIG_DEFAULTS = {
  agents: null,
  write_outputs: true,
  write_memory: false,
  actions_allowed: null,
  external_search: false,
  include_divergence: false,
  depth: 'deep',
} as const;

export type RoutineConfig = {
  agents: 'all' | string | string[] | null;
  write_outputs: boolean;
  write_memory: boolean;
  actions_allowed: string[] | null;
  external_search: boolean;
  include_divergence: boolean;
  depth: (typeof DEPTHS)[number];
};

/** The config with every default applied (what a fire runs with, and what a read shows). */
export const effectiveConfig = (stored: Record<string, unknown>): RoutineConfig => ({
  ...CONFIG_DEFAULTS,
  ...(stored as Partial<RoutineConfig>),
});

/** Config keys earlier revisions wrote; refused on write with a message saying so. */
export const LEGACY_CONFIG_KEYS = ['output_slug', 'full_regen'] as const;

const base = {
  name: z.string().trim().min(1).max(ROUTINE_LIMITS.name),
  prompt: readsDates(z.string().trim().min(1).max(ROUTINE_LIMITS.prompt)).openapi({
    description: 'What each fire should do, as a chat input.',
  }),
  cron: z.string().trim().min(1).max(200).openapi({
    description: 'Five fields: minute hour day-of-month month day-of-week (no seconds), read in `timezone`.',
    example: '0 8 * * 1',
  }),
  timezone: z
    .string()
    .min(1)
    .max(100)
    .openapi({ description: 'IANA time zone (default UTC).', example: 'Europe/Berlin' }),
  agent: z
    .string()
    .min(1)
    .max(120)
    .openapi({ description: 'Legacy single-agent pin (slug or id); not together with config.agents.' }),
  config: z
    .record(z.string(), z.unknown())
    .openapi({ description: 'See RoutineConfig; unknown and legacy keys are refused.' }),
  enabled: z.boolean(),
};

export const CreateRoutineBody = z
  .object({
    name: base.name,
    prompt: base.prompt,
    cron: base.cron,
    timezone: base.timezone.optional(),
    agent: base.agent.optional(),
    config: base.config.optional(),
    enabled: base.enabled.optional().openapi({ default: true }),
  })
  .strict()
  .openapi('CreateRoutineRequest');

export const UpdateRoutineBody = z
  .object({
    name: base.name.optional(),
    prompt: base.prompt.optional(),
    cron: base.cron.optional(),
    timezone: base.timezone.optional(),
    agent: base.agent.nullable().optional().openapi({ description: 'null clears the pin.' }),
    config: base.config.optional().openapi({ description: 'Replaces the whole config.' }),
    enabled: base.enabled.optional(),
  })
  .strict()
  .openapi('UpdateRoutineRequest');

export const RoutineSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prompt: z.string(),
    cron: z.string(),
    timezone: z.string(),
    agent: z.string().nullable(),
    config: z.object({
      agents: z.union([z.string(), z.array(z.string())]).nullable(),
      write_outputs: z.boolean(),
      write_memory: z.boolean(),
      actions_allowed: z.array(z.string()).nullable().openapi({ description: 'null: every cataloged action.' }),
      external_search: z.boolean(),
      include_divergence: z.boolean(),
      depth: z.enum(DEPTHS),
    }),
    enabled: z.boolean(),
    next_run_at: isoTimestamp().nullable().openapi({ description: 'The next scheduled time; null while disabled.' }),
    last_fire: z
      .object({
        scheduled_for: isoTimestamp(),
        chat_id: z.uuid().nullable(),
        run_id: z.uuid().nullable(),
        session_id: z.uuid().nullable(),
      })
      .nullable()
      .openapi({ description: 'The latest fire: its scheduled time, its chat and its run (= session).' }),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .openapi('Routine');
export type RoutineView = z.infer<typeof RoutineSchema>;

export const ListRoutinesQuery = z
  .object({
    enabled: queryBool().openapi({ description: 'Only enabled (true) or disabled (false) routines.' }),
    ...pagingQuery,
  })
  .strict();

export const RoutineIdParams = z
  .object({
    id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f' }),
  })
  .strict();
