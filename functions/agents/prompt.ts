import type { AgentMessage } from '../../platform/model/port.js';
import { TURN_BUDGET, type AgentRunInput, type AgentRunState } from './run-state.js';

/** An earlier turn of the thread, as the agent sees it. */
export interface ThreadTurn {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * What the deep tier asks for (research jobs run at it): the facets a researcher covers and the
 * report's sections. The local policy's research plan (local-policy/research-plan.ts) does exactly this.
 */
const DEEP_INSTRUCTIONS =
  'Go deeper than a chat answer: plan the facets of the question (who: which accounts; what: the themes of what customers said; when: how it moved over the last quarters; how many: counts), run a search for each, and answer with a sectioned report: a summary, evidence by theme, by account, over time, counts, and last "What this rests on".';

/**
 * The system message every agent run starts with: the agent's own instructions, then what the loop
 * guarantees and expects (dates, tools, the answer format, grounding). "Today is" is fixed when the
 * run starts, so every turn (and every retry of one) reads the same date.
 */
export function systemPrompt(input: AgentRunInput, now: Date, background: string | null = null): string {
  return [
    input.agent.prompt,
    '',
    `Today is ${now.toISOString().slice(0, 10)}.`,
    `Agent: ${input.agent.slug}`,
    `Depth: ${input.depth}`,
    ...(input.depth === 'deep' ? [DEEP_INSTRUCTIONS] : []),
    input.pauses.question
      ? 'You may ask the user one clarifying question with ask_user when the data is ambiguous in a way that changes the answer.'
      : 'You cannot ask the user anything: choose the most likely reading and say which one you chose.',
    ...(input.routine
      ? [
          `Routine: ${input.routine.id}`,
          "You are running on a schedule with no one to ask. Commit your findings as a document with outputs_write_doc (its digits must come from your queries' cells to publish), then call final_answer.",
        ]
      : []),
    ...(input.subscription
      ? [
          `Subscription: ${input.subscription.id}`,
          'An event woke you (it is described in the message) and no one is there to answer: finish on your own, and deliver through the actions you are allowed when the prompt asks for it.',
        ]
      : []),
    'Use the workspace tools to find evidence, then call final_answer exactly once with markdown text, content blocks and up to four follow-up questions.',
    'Quote blocks must be verbatim words from the cited transcript turn (or email body) with its interaction_id and turn_id; table and metric blocks must carry the search.query request their cells came from, unchanged.',
    'Every quote, cell and number is checked against the data before the answer is shown; anything that does not check out is removed.',
    'To quote an uploaded document, use a document_quote block with its verbatim words and source {document_group_id, node_key, document_title} from a context_search result of source knowledge (its refs and title).',
    // The member's pinned nodes, then the workspace's and the member's background (functions/knowledge/agent-context.ts).
    ...(background ? ['', background] : []),
  ].join('\n');
}

/** A new run's state: the system message, the thread so far, and the user's words for this turn. */
export function initialAgentState(
  input: AgentRunInput,
  history: readonly ThreadTurn[],
  now: Date,
  background: string | null = null,
): Partial<AgentRunState> & { messages: AgentMessage[] } {
  return {
    messages: [
      { role: 'system', content: systemPrompt(input, now, background) },
      ...history.map((t) => ({ role: t.role, content: t.content }) as AgentMessage),
      { role: 'user', content: input.message },
    ],
    turns_used: 0,
    turn_budget: TURN_BUDGET[input.depth],
  };
}
