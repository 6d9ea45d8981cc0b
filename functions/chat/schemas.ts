import { z } from '@hono/zod-openapi';
import { readsDates } from '../../platform/validation.js';
import { RUN_STATUSES } from '../../schema/runs.js';
import { AnswerSchema, ContentBlockSchema } from '../agents/index.js';
import { DEPTHS, ON_QUESTION, TRIGGERS } from '../agents/index.js';
import { isoTimestamp, pagingQuery } from '../schemas.js';

export const CHAT_LIMITS = { input: 20_000, name: 200 } as const;

export const StartChatBody = z
  .object({
    input: readsDates(z.string().trim().min(1).max(CHAT_LIMITS.input)).openapi({
      description: 'What to ask or do, in plain words.',
    }),
    chat_id: z
      .uuid()
      .optional()
      .openapi({ description: 'Continue this chat: the agent sees its earlier turns. Omitted: a new chat.' }),
    name: z
      .string()
      .trim()
      .min(1)
      .max(CHAT_LIMITS.name)
      .optional()
      .openapi({ description: 'Name of the chat (default: the start of the input).' }),
    agent: z
      .string()
      .min(1)
      .max(120)
      .optional()
      .openapi({ description: "The agent to run as, by slug or id (default: the chat's agent, else `researcher`)." }),
    on_question: z.enum(ON_QUESTION).optional().openapi({
      default: 'auto',
      description:
        '`auto` never pauses; `pause` may pause to ask a question, for approval of a write, or when the turn budget is spent.',
    }),
    config: z
      .object({
        depth: z
          .enum(DEPTHS)
          .optional()
          .openapi({ default: 'standard', description: 'Turn budget: quick 10, standard 50, deep 75.' }),
      })
      .strict()
      .optional(),
  })
  .strict()
  .openapi('StartChatRequest');

export const RunHandlesSchema = z
  .object({
    chat_id: z.uuid(),
    run_id: z.uuid().openapi({ description: 'Also the session_id of run control (resume, cancel).' }),
    status: z.literal('queued'),
    read_url: z
      .url()
      .openapi({ description: 'GET: the run (`wait_ms` long-polls; `Accept: text/event-stream` streams).' }),
    stream_url: z
      .url()
      .openapi({ description: "GET: the run's server-sent events (replay with ?after= or Last-Event-ID)." }),
    resume_url: z.url().openapi({ description: 'POST `{input: <reply>}` when the run is awaiting_input.' }),
  })
  .openapi('ChatRunHandles');

const AgentRefSchema = z.object({ id: z.string(), slug: z.string(), name: z.string() });

export const ChatRunSchema = z
  .object({
    run_id: z.uuid(),
    session_id: z.uuid().openapi({ description: 'The same id, as run control names it.' }),
    chat_id: z.uuid(),
    status: z.enum(RUN_STATUSES),
    trigger: z
      .enum(TRIGGERS)
      .openapi({ description: 'Who started it: api (REST), mcp, routine, delegate (a parent run), or subscription.' }),
    agent: AgentRefSchema,
    input: z.string().openapi({ description: "The user's words for this turn." }),
    on_question: z.enum(ON_QUESTION),
    depth: z.enum(DEPTHS),
    pending_input_type: z.enum(['question', 'approval', 'continue_or_finish']).nullable(),
    pending_input_schema: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: 'JSON Schema of the reply resume accepts (body `{input: <reply>}`).' }),
    pending_input_context: z.record(z.string(), z.unknown()).nullable(),
    answer: AnswerSchema.nullable().openapi({ description: 'Null until the run completes.' }),
    draft: z
      .object({ text: z.string().nullable(), content_blocks: z.array(ContentBlockSchema) })
      .nullable()
      .openapi({ description: 'While the run is in flight: what it has written so far (null once it has ended).' }),
    last_seq: z
      .number()
      .int()
      .openapi({ description: "The seq of the run's latest event; stream from here with ?after=." }),
    usage: z.object({
      turns_used: z.number().int(),
      turn_budget: z.number().int(),
      input_tokens: z
        .number()
        .int()
        .nullable()
        .openapi({ description: 'Null when the model does not report usage (the local model).' }),
      output_tokens: z.number().int().nullable(),
    }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    parent_run_id: z.uuid().nullable(),
    outputs: z
      .array(
        z.object({
          kind: z.enum(['document', 'action']),
          target: z.string().nullable().openapi({ description: 'The document id, or the action name.' }),
          version: z.number().int().nullable(),
          outcome: z.enum(['published', 'proposed', 'refused', 'sent']),
          reason: z.string().nullable().openapi({
            description:
              'Why it was refused or proposed (outputs_disabled, degraded_read, unverified numbers, action_not_allowed, ...).',
          }),
          at: isoTimestamp(),
        }),
      )
      .optional()
      .openapi({ description: 'What the run wrote or did, and what came of it.' }),
    created_at: isoTimestamp(),
    started_at: isoTimestamp().nullable(),
    completed_at: isoTimestamp().nullable(),
    updated_at: isoTimestamp(),
    read_url: z.url(),
    stream_url: z.url(),
    resume_url: z.url(),
  })
  .openapi('ChatRun');
export type ChatRunView = z.infer<typeof ChatRunSchema>;

export const ChatSummarySchema = z
  .object({
    chat_id: z.uuid(),
    name: z.string(),
    agent: z.object({ slug: z.string(), id: z.string().nullable() }),
    status: z.enum(RUN_STATUSES).nullable().openapi({ description: "Status of the chat's latest run." }),
    last_run_id: z.uuid().nullable(),
    routine_id: z.uuid().nullable(),
    subscription_id: z.uuid().nullable(),
    created_at: isoTimestamp(),
    last_activity_at: isoTimestamp(),
  })
  .openapi('ChatSummary');

export const ChatTurnSchema = z
  .object({
    seq: z.number().int(),
    role: z.enum(['user', 'assistant']),
    content: z.string().openapi({
      description: "The user's words, or the answer's text (or what happened instead, for a failed or canceled run).",
    }),
    run_id: z.uuid().nullable(),
    status: z.enum(RUN_STATUSES).nullable().openapi({ description: "An assistant turn's run outcome." }),
    answer: AnswerSchema.nullable(),
    created_at: isoTimestamp(),
  })
  .openapi('ChatTurn');

export const ChatSchema = ChatSummarySchema.extend({ turns: z.array(ChatTurnSchema) }).openapi('Chat');

export const ListChatsQuery = z
  .object({
    status: z.enum(RUN_STATUSES).optional().openapi({ description: 'Only chats whose latest run has this status.' }),
    agent_ref: z
      .string()
      .min(1)
      .max(120)
      .optional()
      .openapi({ description: 'Only chats run by this agent (slug or id).' }),
    routine_id: z.uuid().optional(),
    subscription_id: z.uuid().optional(),
    created_by: z
      .enum(['me'])
      .optional()
      .openapi({ description: "`me`: only the chats you started (the console lists a member's own threads with it)." }),
    ...pagingQuery,
  })
  .strict();

export const ChatIdParams = z
  .object({
    chat_id: z
      .uuid()
      .openapi({ param: { name: 'chat_id', in: 'path' }, example: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f' }),
  })
  .strict();

export const RenameChatBody = z
  .object({ name: z.string().trim().min(1).max(CHAT_LIMITS.name) })
  .strict()
  .openapi('RenameChatRequest');
