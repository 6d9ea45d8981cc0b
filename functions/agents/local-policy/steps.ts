import type { StepResult, ToolCall } from '../../../platform/model/port.js';
import type { AnswerDraft } from '../answer.js';
import { FINAL_ANSWER } from '../tool-names.js';
import { searchNotes, type PolicyContext, type Result } from './context.js';

/** The pieces every plan builds its steps from: a tool call with a purpose id, a final answer, the words for an empty search. */

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
 * Why a search came back empty, in words. The search's own message is not repeated: it carries
 * counts that no table in the answer would back.
 */
export function whyEmpty(result: Result | undefined): string {
  if (!result) return 'the search did not run';
  if (!result.ok) return `the search failed (${result.error.code})`;
  switch (searchNotes(result).emptyReason) {
    case 'not_synced':
      return 'nothing has been synced to this workspace yet';
    case 'scope_disjoint':
      return "the period asked for lies outside the data's span";
    case 'read_failed':
      return 'the search could not read the data (try again)';
    default:
      return 'nothing in the data matched';
  }
}

export function staleNote(result: Result | undefined): string {
  return searchNotes(result).stale ? 'Note: the synced data is behind, so recent activity may be missing.' : '';
}

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

/** Words customers use for the topics sales teams ask about most, so a search finds them in any wording. */
const SYNONYMS: [RegExp, string][] = [
  [/\b(pric\w*|budget|cost\w*)\b/i, 'pricing price cost budget discount expensive'],
  [/\bsecurity\b/i, 'security SOC audit compliance'],
  [/\b(onboarding|training)\b/i, 'onboarding training implementation rollout'],
  [/\brenewals?\b/i, 'renewal renew renewing'],
  [/\bprivacy\b/i, 'privacy GDPR DPA residency'],
];

/** The ask with the topic's other words added, in the same facet (the fuzzy lane's recall variant matches any). */
export function withSynonyms(question: string): string {
  const hit = SYNONYMS.find(([pattern]) => pattern.test(question));
  return hit
    ? question.replace(hit[0], (m) => `${m} ${hit[1].replace(new RegExp(`\\b${m}\\b`, 'i'), '')}`.replace(/\s+/g, ' '))
    : question;
}

/** The other words customers use for the topic's subject (none when it is not one of the common topics). */
export function synonymsOf(topic: string): string[] {
  const hit = SYNONYMS.find(([pattern]) => pattern.test(topic));
  return hit ? hit[1].split(' ') : [];
}
