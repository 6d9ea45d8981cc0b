import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, AnswerDraft, BlockDraft, GroundingCheck } from '../../functions/agents/answer.js';
import { verifyAnswer, type GroundingContext } from '../../functions/agents/grounding.js';
import { InterpretationSchema, type Interpretation } from '../../functions/agents/understanding/interpretation.js';
import { authenticateApiKey } from '../../functions/identity/api-keys.js';
import { invokeAsValue } from '../../functions/invoke.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * parts-answered: every part of a question the answer's interpretation read as several is answered
 * by a section of its own or declined by name, whatever model wrote it. The drafts are a hosted
 * model's (an interpretation with two parts, its own headings); the local model's multi-part answers
 * go through POST /chat. Every figure and quote is picked out, and every answer's figures checked, by
 * SQL written here.
 */

let h: Harness;
let ws: SeededWorkspace;
let ctx: GroundingContext;
const asked_at = CORPUS_NOW.toISOString();
/** The corpus's "now" is 2026-11-20: last month is October 2026. */
const OCTOBER = ['2026-10-01', '2026-11-01'] as const;
const QUESTION = 'How many calls did we have last month, and what did customers say about pricing?';
const PARTS = ['How many calls did we have last month', 'what did customers say about pricing?'];

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  const caller = await authenticateApiKey(h.database.db, ws.admin.key, new Date());
  const scope = {
    registry: h.registry,
    services: h.services,
    caller,
    correlationId: 'grounding-parts-test',
    signal: new AbortController().signal,
    origin: 'run' as const,
  };
  ctx = {
    db: h.database.db,
    workspaceId: CORPUS_WORKSPACE_ID,
    rerun: (q) => invokeAsValue(scope, 'search.query', q),
    question: { text: QUESTION, asked_at },
  };
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  return (await h.pglite.client.query<T>(text, [CORPUS_WORKSPACE_ID, ...params])).rows;
}
const checkOf = (checks: readonly GroundingCheck[], name: GroundingCheck['name']) =>
  checks.find((c) => c.name === name);

/** A hosted model's reading of the question: records it counts, in two parts. */
const interpretation = (parts: string[]): Interpretation =>
  InterpretationSchema.parse({
    analysis: 'records',
    subject: 'interactions',
    measure: { fn: 'count', field: null },
    filters: [],
    period: null,
    group_by: null,
    order: null,
    limit: null,
    show: [],
    compare_to: null,
    topic: null,
    names: { accounts: [], deals: [], people: [], competitors: [] },
    parts,
    inherited: [],
    unexplained: [],
    absent: [],
    confidence: 1,
  });

/** October's calls, counted here (excluded interactions aside, as search does), and the metric that says so. */
async function octoberCalls(): Promise<{ n: number; metric: BlockDraft }> {
  const [row] = await sql<{ n: number }>(
    `select count(*)::int as n from interactions i where i.workspace_id = $1 and i.kind = 'call'
       and i.occurred_at >= $2::date and i.occurred_at < $3::date
       and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
    [...OCTOBER],
  );
  const n = row?.n ?? 0;
  expect(n).toBeGreaterThan(0);
  return {
    n,
    metric: {
      kind: 'metric',
      label: 'Calls',
      value: n,
      column: 'count',
      query: {
        surface: 'interactions',
        filters: [
          { field: 'kind', op: 'eq', value: 'call' },
          { field: 'occurred_at', op: 'gte', value: OCTOBER[0] },
          { field: 'occurred_at', op: 'lt', value: OCTOBER[1] },
        ],
        metrics: [{ fn: 'count' }],
      },
    },
  };
}

/** A customer's words on pricing from October, read here. */
async function octoberPricingQuote(): Promise<BlockDraft & { kind: 'quote' }> {
  const [turn] = await sql<{ id: string; interaction_id: string; text: string }>(
    `select t.id, t.interaction_id, t.text from transcript_turns t join interactions i on i.id = t.interaction_id
     where t.workspace_id = $1 and t.side = 'external' and t.text ~* '\\mpric' and length(t.text) between 40 and 200
       and i.occurred_at >= $2::date and i.occurred_at < $3::date
     order by i.occurred_at, t.id limit 1`,
    [...OCTOBER],
  );
  if (!turn) throw new Error('no customer turn on pricing in October');
  return {
    kind: 'quote',
    text: turn.text,
    source: { interaction_id: turn.interaction_id, turn_id: turn.id, speaker: null, occurred_at: null, account: null },
    stance: 'supports',
  };
}

const draft = (text: string, blocks: BlockDraft[], parts = PARTS): AnswerDraft => ({
  text,
  content_blocks: blocks,
  follow_ups: [],
  interpretation: interpretation(parts),
});

describe('parts-answered: a hosted model’s answer to a question of two parts', () => {
  it('fails a draft that answers one part of two and does not name the other, and says which is missing', async () => {
    const { n, metric } = await octoberCalls();
    const result = await verifyAnswer(
      draft(`### Calls last month\n\nWe had **${n}** calls last month.`, [metric]),
      ctx,
    );
    // Every figure it gives holds: only the part it dropped fails it.
    expect(result.grounding.metrics).toMatchObject({ checked: 1, verified: 1 });
    expect(result.grounding.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(['parts-answered']);
    expect(checkOf(result.grounding.checks, 'parts-answered')?.detail).toContain(
      'not answered or declined by name: “what did customers say about pricing?”',
    );
    expect(result.grounding.verified).toBe(false);
    // The reader is told, in the answer, what it does not answer.
    expect(result.content_blocks).toContainEqual(
      expect.objectContaining({ kind: 'callout', markdown: expect.stringContaining(PARTS[1]!) }),
    );
  });

  it('passes the same draft when it declines the second part by name', async () => {
    const { n, metric } = await octoberCalls();
    const text = [
      '### Calls last month',
      '',
      `We had **${n}** calls last month.`,
      '',
      'I have not answered what customers said about pricing here: ask it on its own.',
    ].join('\n');
    const result = await verifyAnswer(draft(text, [metric]), ctx);
    expect(checkOf(result.grounding.checks, 'parts-answered')).toMatchObject({
      passed: true,
      detail: expect.stringContaining('declined by name: “what did customers say about pricing?”'),
    });
    expect(result.grounding.verified).toBe(true);
  });

  it('passes a draft with a section for each part, headed in its own words or not at all', async () => {
    const { n, metric } = await octoberCalls();
    const quote = await octoberPricingQuote();
    const sectioned = [
      '### Calls last month',
      `We had **${n}** calls last month.`,
      '',
      '### What customers said about pricing',
      `> ${quote.text}`,
    ].join('\n');
    const both = await verifyAnswer(draft(sectioned, [metric, quote]), ctx);
    expect(checkOf(both.grounding.checks, 'parts-answered')).toMatchObject({
      passed: true,
      detail: `answered: ${PARTS.map((p) => `“${p}”`).join(', ')}`,
    });
    expect(both.grounding.verified, JSON.stringify(both.grounding)).toBe(true);

    // Plain prose, one sentence per part: each sentence answers the part whose words it holds.
    const prose = `We had **${n}** calls last month. On pricing, one customer said:\n\n> ${quote.text}`;
    const plain = await verifyAnswer(draft(prose, [metric, quote]), ctx);
    expect(checkOf(plain.grounding.checks, 'parts-answered')?.passed).toBe(true);
  });

  it('counts a heading that names both parts as the answer to one of them', async () => {
    const { n, metric } = await octoberCalls();
    const result = await verifyAnswer(
      draft(`### Calls last month and pricing\n\nWe had **${n}** of them.`, [metric]),
      ctx,
    );
    expect(checkOf(result.grounding.checks, 'parts-answered')).toMatchObject({ passed: false });
    expect(result.grounding.verified).toBe(false);
  });

  it('does not hold an answer that reports no parts to the rule', async () => {
    const { n, metric } = await octoberCalls();
    const result = await verifyAnswer(
      { text: `We had **${n}** calls last month.`, content_blocks: [metric], follow_ups: [] },
      ctx,
    );
    expect(checkOf(result.grounding.checks, 'parts-answered')).toMatchObject({
      passed: true,
      detail: 'the answer reports no question of several parts',
    });
  });
});

describe('parts-answered: the local model’s multi-part answers through POST /chat', () => {
  const ask = async (input: string): Promise<Answer> => {
    const started = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
    expect(started.status, started.text).toBe(202);
    await (h.services.queue as LocalTransport).drain();
    const run = (await h.request('GET', `/chat/runs/${started.body.data.run_id}`, { key: ws.viewer.key })).body.data;
    expect(run.status).toBe('complete');
    return run.answer as Answer;
  };
  const scalar = async (text: string) => Number((await sql<{ v: unknown }>(text))[0]?.v);
  const OPEN_EMEA = `from deals d join accounts a on a.id = d.account_id
    where d.workspace_id = $1 and not d.is_closed and a.region = 'EMEA'`;

  it('answers each part under its own heading, with the figures SQL gives', async () => {
    const answer = await ask(
      'whats the total open pipeline in EMEA, and how many of those deals are still in discovery?',
    );
    expect(answer.interpretation?.parts).toHaveLength(2);
    expect(checkOf(answer.grounding.checks, 'parts-answered'), JSON.stringify(answer.grounding.checks)).toMatchObject({
      passed: true,
    });
    expect(answer.grounding.verified).toBe(true);
    const total = await scalar(`select coalesce(sum(d.amount), 0) as v ${OPEN_EMEA}`);
    const discovery = await scalar(`select count(*) as v ${OPEN_EMEA} and d.stage = 'discovery'`);
    const [first, second] = answer.text.split(/^2\. /m);
    expect(first).toContain(`$${total.toLocaleString('en-US')}`);
    expect(second).toContain(`**${discovery}** deals`);
  }, 120_000);

  it('names the part it does not answer, and passes', async () => {
    const answer = await ask('which deals close this quarter, and what did customers say about pricing?');
    expect(answer.text).toContain('Not answered here: what did customers say about pricing?');
    expect(checkOf(answer.grounding.checks, 'parts-answered')).toMatchObject({
      passed: true,
      detail: expect.stringContaining('declined by name: “what did customers say about pricing?”'),
    });
    expect(answer.grounding.verified).toBe(true);
  }, 120_000);

  it.each([
    'two things: biggest open deal in EMEA, and how many inbound emails landed last month',
    'EMEA snapshot: total open pipeline, weighted pipeline and win rate',
    'how many calls last week, how many meetings last month',
    'biggest deal sitting in negotiation, plus the weighted value of the whole negotiation stage',
  ])(
    '%s: every part answered',
    async (input) => {
      const answer = await ask(input);
      expect(answer.interpretation?.parts.length).toBeGreaterThan(1);
      expect(checkOf(answer.grounding.checks, 'parts-answered'), JSON.stringify(answer.grounding.checks)).toMatchObject(
        {
          passed: true,
          detail: expect.not.stringContaining('not answered'),
        },
      );
      expect(answer.grounding.verified).toBe(true);
    },
    120_000,
  );
});
