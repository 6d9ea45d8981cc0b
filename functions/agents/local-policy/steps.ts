import type { StepResult, ToolCall } from '../../../platform/model/port.js';
import type { AnswerDraft } from '../answer.js';
import { FINAL_ANSWER } from '../tool-names.js';
import type { PolicyContext } from './context.js';

/** The pieces every plan builds its steps from: a tool call with a purpose id, a final answer, and how a period is said. */

const SEARCH = 'search_query';
export type Query = Record<string, unknown>;

export const call = (ctx: PolicyContext, purpose: string, args: Query, tool = SEARCH): ToolCall => ({
  id: `s${ctx.step}_${purpose}`,
  name: tool,
  arguments: args,
});
export const calls = (...toolCalls: ToolCall[]): StepResult => ({ content: null, tool_calls: toolCalls, usage: null });
export const finish = (answer: AnswerDraft): StepResult => ({
  content: null,
  tool_calls: [{ id: 'final', name: FINAL_ANSWER, arguments: answer }],
  usage: null,
});

/**
 * The user's period phrase, echoed only when it holds no digits: "last quarter" reads back as is,
 * but "in 2019" would be a number in the answer that no cell backs, so it becomes words.
 */
export const said = (phrase: string): string => (/\d/.test(phrase) ? 'in the period you asked about' : phrase);

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Whether a row's timestamp lies inside the asked period (always, when none was asked). */
export function inPeriod(value: unknown, period: { from: string; to: string } | null): boolean {
  if (!period) return true;
  if (typeof value !== 'string') return false;
  const d = value.slice(0, 10);
  return d >= period.from && d < period.to;
}
