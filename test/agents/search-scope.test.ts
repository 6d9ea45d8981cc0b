import { beforeAll, describe, expect, it } from 'vitest';
import { localAgentStep } from '../../functions/agents/local-policy/index.js';
import type { AgentMessage, ToolCall } from '../../platform/model/port.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';

/**
 * The local policy narrows its searches by meaning to what the ask fixes: the period it names and
 * the account the workspace resolved its company name to, as semantic-lane filters (applied inside
 * the vector search), not as a cut of the nearest statements overall afterwards.
 */

const ACCOUNT_ID = '0193a1f2-0000-7000-8000-000000000001';
const tools = ['search_query', 'search_fields', 'final_answer'].map((name) => ({
  name,
  description: name,
  parameters: { type: 'object' },
}));

/** Run the policy over canned tool results (the resolve step finds the account) and collect its calls. */
function callsFor(ask: string, depth: 'standard' | 'deep'): ToolCall[] {
  const messages: AgentMessage[] = [
    { role: 'system', content: `You are the researcher.\n\nToday is 2026-03-01.\nAgent: researcher\nDepth: ${depth}` },
    { role: 'user', content: ask },
  ];
  const seen: ToolCall[] = [];
  for (let i = 0; i < 10; i++) {
    const step = localAgentStep({ messages, tools });
    if (step.tool_calls.length === 0 || step.tool_calls.some((c) => c.name === 'final_answer')) break;
    messages.push({ role: 'assistant', content: null, tool_calls: step.tool_calls });
    for (const c of step.tool_calls) {
      seen.push(c);
      const purpose = c.id.replace(/^s\d+_/, '');
      const output =
        purpose === 'vocab_accounts'
          ? { results: [{ account_name: 'Tidewater Logistics', count: 3 }] }
          : purpose === 'resolve'
            ? {
                results: [],
                detail: {
                  internal: {
                    plan: {
                      accounts: [
                        { asked: 'Tidewater Logistics', matched: [{ id: ACCOUNT_ID, name: 'Tidewater Logistics' }] },
                      ],
                    },
                  },
                },
              }
            : { results: [] };
      messages.push({ role: 'tool', tool_call_id: c.id, name: c.name, content: JSON.stringify({ ok: true, output }) });
    }
  }
  return seen;
}

const semantic = (calls: ToolCall[]) => calls.filter((c) => c.arguments.mode === 'semantic');
const LAST_QUARTER = [
  { field: 'occurred_at', op: 'gte', value: '2025-10-01' },
  { field: 'occurred_at', op: 'lt', value: '2026-01-01' },
];

// The local model's reader needs its NLP library loaded (the agent step task does this before a run's first step).
beforeAll(loadTokenizer);
describe('searches by meaning carry the scope the ask fixes', () => {
  it('a voice question with a period searches that period', () => {
    const found = semantic(callsFor('what do customers say about pricing last quarter?', 'standard'));
    expect(found.length).toBeGreaterThan(0);
    for (const c of found) expect(c.arguments.filters).toEqual(LAST_QUARTER);
  });

  it('a voice question without a period searches everything', () => {
    const found = semantic(callsFor('what do customers say about pricing?', 'standard'));
    expect(found.length).toBeGreaterThan(0);
    for (const c of found) expect(c.arguments.filters).toBeUndefined();
  });

  it('research about one account and a period searches that account in that period', () => {
    const found = semantic(callsFor('what did Tidewater Logistics say about pricing last quarter?', 'deep')).filter(
      (c) => /_r_voice/.test(c.id),
    );
    expect(found.length).toBeGreaterThan(0);
    for (const c of found)
      expect(c.arguments.filters).toEqual([{ field: 'account_id', op: 'eq', value: ACCOUNT_ID }, ...LAST_QUARTER]);
  });
});

describe('searches by meaning for what was said are ranked hybrid', () => {
  it("chat's voice searches ask for ranking hybrid; research's picks its quotes by the topic's words and ranks by similarity", () => {
    const chat = semantic(callsFor('what do customers say about pricing last quarter?', 'standard')).filter(
      (c) => c.arguments.hydrate === true,
    );
    expect(chat.length).toBeGreaterThan(0);
    for (const c of chat) expect(c.arguments.ranking, c.id).toBe('hybrid');
    const deep = semantic(callsFor('what did Tidewater Logistics say about pricing last quarter?', 'deep')).filter(
      (c) => c.arguments.hydrate === true,
    );
    const research = deep.filter(
      (c) => c.arguments.limit === 30 && c.arguments.query === 'pricing' && !c.arguments.ranking,
    );
    expect(research.length, JSON.stringify(deep.map((c) => c.arguments))).toBeGreaterThan(0);
  });

  it("one account's topic is searched by meaning in that account and period, the name no topic word", () => {
    const found = semantic(callsFor('what did Tidewater Logistics say about pricing last quarter?', 'standard'));
    expect(found.map((c) => c.arguments)).toEqual([
      expect.objectContaining({
        query: 'pricing',
        ranking: 'hybrid',
        hydrate: true,
        audience: 'customer_voice',
        filters: [{ field: 'account_name', op: 'eq', value: 'Tidewater Logistics' }, ...LAST_QUARTER],
      }),
    ]);
  });
});
