import { z } from 'zod';

/**
 * The names and argument shapes of an agent's tools. Registry operations become tools named after
 * their id ("search.query" → "search_query": providers allow only [A-Za-z0-9_-]); three built-ins
 * sit beside them.
 */

export const toolNameFor = (operationId: string): string => operationId.replace(/[^A-Za-z0-9_-]/g, '_');

export const ASK_USER = 'ask_user';
export const DELEGATE = 'delegate';
export const FINAL_ANSWER = 'final_answer';
export const BUILTIN_TOOLS = [ASK_USER, DELEGATE, FINAL_ANSWER] as const;

export const AskUserArgsSchema = z
  .object({
    /** The question, in one or two sentences, saying why the answer changes the result. */
    question: z.string().min(1).max(1_000),
    /** Choices when the data offers them (each with a short id); the user may also write in. */
    options: z
      .array(z.object({ id: z.string().min(1).max(60), label: z.string().min(1).max(300) }).strict())
      .max(8)
      .optional(),
  })
  .strict();
export type AskUserArgs = z.infer<typeof AskUserArgsSchema>;

export const DelegateArgsSchema = z
  .object({
    /** Slug or id of another agent of the workspace's roster. */
    agent: z.string().min(1).max(120),
    /** What the other agent should find out, self-contained (it does not see this transcript). */
    task: z.string().min(1).max(4_000),
  })
  .strict();
export type DelegateArgs = z.infer<typeof DelegateArgsSchema>;
