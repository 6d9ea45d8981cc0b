import { z } from '@hono/zod-openapi';
import { isoTimestamp } from '../schemas.js';

/** Limits of the agent library (spec, Limits: Agents). */
export const AGENT_LIMITS = { name: 120, description: 2_000, prompt: 20_000, slug: 60, blocklist: 200 } as const;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const AgentSummarySchema = z
  .object({
    id: z.uuid(),
    slug: z.string().openapi({ description: 'Stable kebab-case dispatch key; never changes.' }),
    name: z.string(),
    description: z.string().nullable(),
    tool_blocklist: z.array(z.string()).openapi({
      description:
        "Operation ids the agent is not offered as tools (not a security boundary: the caller's own rights are).",
    }),
    authored_by: z
      .enum(['amdahl', 'tenant'])
      .openapi({ description: "`amdahl` for the code-defined library, `tenant` for the workspace's own agents." }),
    locked: z
      .boolean()
      .openapi({ description: 'Library agents are locked: they refuse edits and deletes (409 locked).' }),
    created_at: isoTimestamp().nullable().openapi({ description: 'Null for library agents.' }),
    updated_at: isoTimestamp().nullable(),
  })
  .openapi('AgentSummary');

export const AgentSchema = AgentSummarySchema.extend({ prompt: z.string() }).openapi('Agent');
export type AgentView = z.infer<typeof AgentSchema>;

export const AgentRefParams = z
  .object({
    id: z
      .string()
      .min(1)
      .max(120)
      .openapi({ param: { name: 'id', in: 'path' }, description: "The agent's uuid or slug.", example: 'researcher' }),
  })
  .strict();

const nameField = z.string().trim().min(1).max(AGENT_LIMITS.name);
const descriptionField = z.string().max(AGENT_LIMITS.description);
const promptField = z.string().trim().min(1).max(AGENT_LIMITS.prompt);
const blocklistField = z
  .array(z.string().min(1).max(100))
  .max(AGENT_LIMITS.blocklist)
  .openapi({ description: 'Operation ids (as in openapi.json operationId), each checked against the live registry.' });

export const CreateAgentBody = z
  .object({
    name: nameField.openapi({ description: `Display name, up to ${AGENT_LIMITS.name} characters.` }),
    prompt: promptField.openapi({ description: "The agent's instructions." }),
    slug: z
      .string()
      .max(AGENT_LIMITS.slug)
      .regex(SLUG_PATTERN, 'must be kebab-case: lower-case letters and digits separated by single hyphens')
      .optional()
      .openapi({
        description:
          'Omitted: derived from the name and made unique with -2, -3... Supplied and taken (or a library slug): 409 slug_conflict.',
      }),
    description: descriptionField.optional().openapi({ description: `Up to ${AGENT_LIMITS.description} characters.` }),
    tool_blocklist: blocklistField.optional(),
  })
  .strict()
  .openapi('CreateAgentRequest');

export const UpdateAgentBody = z
  .object({
    name: nameField.optional(),
    prompt: promptField.optional(),
    description: descriptionField.nullable().optional().openapi({ description: 'null clears it.' }),
    tool_blocklist: blocklistField.optional(),
    slug: z
      .string()
      .max(AGENT_LIMITS.slug)
      .optional()
      .openapi({ description: 'Accepted and ignored: a slug never changes once created.' }),
  })
  .strict()
  .openapi('UpdateAgentRequest');
