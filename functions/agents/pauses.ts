import { z } from 'zod';
import type { PendingInput } from '../../schema/runs.js';
import type { Pending } from './run-state.js';

/**
 * The three pauses of an agent run (spec: Chat run states; agents.md, "Pauses"). Each pause stores
 * the JSON Schema of the reply it accepts, generated from the same zod schema that validates the
 * reply on resume, so what a client reads in `pending_input_schema` is exactly what is enforced.
 */

export const WRITE_IN_OPTION = { id: 'other', label: 'Something else (write it in)' } as const;

/** `question`: `{response}` in the user's words, or `{option_id}` of an offered choice (`other` needs `response`). */
export function questionReplySchema(optionIds: readonly string[]) {
  const free = z.string().trim().min(1).max(4_000);
  if (optionIds.length === 0) return z.object({ response: free }).strict();
  return z
    .object({
      option_id: z.enum([WRITE_IN_OPTION.id, ...optionIds]).optional(),
      response: free.optional(),
    })
    .strict()
    .superRefine((reply, ctx) => {
      if (reply.option_id === undefined && reply.response === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['response'],
          message: 'send response (your answer) or option_id (one of the offered choices)',
        });
      }
      if (reply.option_id === WRITE_IN_OPTION.id && reply.response === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['response'],
          message: 'option_id "other" needs response: the answer in your words',
        });
      }
    });
}

/** `approval`: `{approved: true}`, or `{approved: false, feedback}` saying why not. */
export const ApprovalReplySchema = z.discriminatedUnion('approved', [
  z.object({ approved: z.literal(true) }).strict(),
  z.object({ approved: z.literal(false), feedback: z.string().trim().min(1).max(4_000) }).strict(),
]);

/** Extra turns one `continue` may grant (the deep tier's whole budget). */
export const MAX_ADDITIONAL_TURNS = 75;

/** `continue_or_finish`: `{action: "continue", additional_turns}` or `{action: "finish"}`. */
export const ContinueOrFinishReplySchema = z.discriminatedUnion('action', [
  z
    .object({ action: z.literal('continue'), additional_turns: z.number().int().min(1).max(MAX_ADDITIONAL_TURNS) })
    .strict(),
  z.object({ action: z.literal('finish') }).strict(),
]);

type PausePending = Exclude<Pending, { kind: 'child' }>;

function replySchema(pending: PausePending): z.ZodType {
  switch (pending.kind) {
    case 'question':
      return questionReplySchema(pending.options.map((o) => o.id));
    case 'approval':
      return ApprovalReplySchema;
    case 'continue_or_finish':
      return ContinueOrFinishReplySchema;
  }
}

/** The pending input a paused run shows (`pending_input_type`, `_schema`, `_context`). */
export function pendingInputFor(
  pending: PausePending,
  progress: { turns_used: number; turn_budget: number },
): PendingInput {
  const { $schema: _drop, ...schema } = z.toJSONSchema(replySchema(pending), { io: 'input' }) as Record<
    string,
    unknown
  >;
  switch (pending.kind) {
    case 'question':
      return {
        type: 'question',
        schema,
        context: {
          question: pending.question,
          options: pending.options.length > 0 ? [...pending.options, WRITE_IN_OPTION] : [],
        },
      };
    case 'approval':
      return {
        type: 'approval',
        schema,
        context: {
          tool: pending.tool,
          operation: pending.operation,
          arguments: pending.arguments,
          label: pending.label,
        },
      };
    case 'continue_or_finish':
      return {
        type: 'continue_or_finish',
        schema,
        context: { turns_used: progress.turns_used, turn_budget: progress.turn_budget },
      };
  }
}

/** The schema a stored pause accepts, rebuilt from what the pause stored (engine resume). */
export function replySchemaForPendingInput(pending: PendingInput): z.ZodType {
  switch (pending.type) {
    case 'question': {
      const options = (pending.context?.options as { id: string }[] | undefined) ?? [];
      return questionReplySchema(options.map((o) => o.id).filter((id) => id !== WRITE_IN_OPTION.id));
    }
    case 'approval':
      return ApprovalReplySchema;
    case 'continue_or_finish':
      return ContinueOrFinishReplySchema;
    default:
      return z.never();
  }
}
