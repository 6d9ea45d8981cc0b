import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerDraft, BlockDraft } from '../../functions/agents/answer.js';
import { numericValue, verifyAnswer, type GroundingContext } from '../../functions/agents/grounding.js';
import { authenticateApiKey } from '../../functions/identity/api-keys.js';
import { invokeAsValue } from '../../functions/invoke.js';
import { newId } from '../../platform/ids.js';
import { interactions, themes, transcriptTurns } from '../../schema/index.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The grounding verifier against the demo corpus: what checks out stays, what was altered, invented
 * or borrowed from another workspace is removed or reported.
 */

let h: Harness;
let ws: SeededWorkspace;
let ctx: GroundingContext;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  const caller = await authenticateApiKey(h.database.db, ws.admin.key, new Date());
  const scope = {
    registry: h.registry,
    services: h.services,
    caller,
    correlationId: 'grounding-test',
    signal: new AbortController().signal,
    origin: 'run' as const,
  };
  ctx = { db: h.database.db, workspaceId: CORPUS_WORKSPACE_ID, rerun: (q) => invokeAsValue(scope, 'search.query', q) };
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const draft = (text: string, blocks: BlockDraft[]): AnswerDraft => ({ text, content_blocks: blocks, follow_ups: [] });

async function aTurn(side: 'external' | 'internal' = 'external') {
  const [turn] = await h.database.db
    .select({ id: transcriptTurns.id, interactionId: transcriptTurns.interactionId, text: transcriptTurns.text })
    .from(transcriptTurns)
    .where(and(eq(transcriptTurns.workspaceId, CORPUS_WORKSPACE_ID), eq(transcriptTurns.side, side)))
    .limit(1);
  return turn!;
}
const quote = (turn: { id: string; interactionId: string }, text: string): BlockDraft => ({
  kind: 'quote',
  text,
  source: { interaction_id: turn.interactionId, turn_id: turn.id, speaker: null, occurred_at: null, account: null },
  stance: 'supports',
});

const dealsQuery = {
  surface: 'deals',
  filters: [
    { field: 'amount', op: 'gt', value: 50000 },
    { field: 'stage', op: 'eq', value: 'negotiation' },
  ],
  limit: 10,
};
const totalsQuery = {
  surface: 'deals',
  filters: [{ field: 'stage', op: 'eq', value: 'negotiation' }],
  metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
};

describe('quotes', () => {
  it('keeps a verbatim quote (whitespace runs aside) and removes one with a changed word or case', async () => {
    const turn = await aTurn();
    const words = turn.text.split(' ');
    const piece = words.slice(0, 6).join(' ');
    const altered = [...words.slice(0, 5), 'banana'].join(' ');
    const result = await verifyAnswer(
      draft('Quoted.', [
        quote(turn, piece.replace(' ', '   ')),
        quote(turn, altered),
        quote(turn, piece.toUpperCase()),
      ]),
      ctx,
    );
    expect(result.grounding.quotes).toEqual({ checked: 3, verified: 1, removed: 2, off_topic: 0, relabeled: 1 });
    expect(result.grounding.verified).toBe(false);
    expect(result.content_blocks.filter((b) => b.kind === 'quote')).toHaveLength(1);
    expect(result.content_blocks.at(-1)).toMatchObject({
      kind: 'callout',
      tone: 'warning',
      markdown: expect.stringContaining('2 blocks'),
    });
    expect(result.grounding.problems.join(' ')).toMatch(/not verbatim/);
  });

  it('removes a quote citing a turn of another interaction or another workspace', async () => {
    const turn = await aTurn();
    const elsewhere = await aTurn('internal');
    const other = await h.seedWorkspace();
    const foreignInteraction = newId();
    const foreignTurn = newId();
    await h.database.db.insert(interactions).values({
      id: foreignInteraction,
      workspaceId: other.id,
      kind: 'call',
      title: 'Their call',
      occurredAt: new Date(),
      source: 'gong',
    });
    await h.database.db.insert(transcriptTurns).values({
      id: foreignTurn,
      workspaceId: other.id,
      interactionId: foreignInteraction,
      turnIndex: 0,
      side: 'external',
      text: 'Our secret pricing is fine.',
      occurredAt: new Date(),
    });
    const result = await verifyAnswer(
      draft('x', [
        quote(
          {
            id: turn.id,
            interactionId: elsewhere.interactionId === turn.interactionId ? newId() : elsewhere.interactionId,
          },
          turn.text.slice(0, 20),
        ),
        quote({ id: foreignTurn, interactionId: foreignInteraction }, 'Our secret pricing'),
      ]),
      ctx,
    );
    expect(result.grounding.quotes).toEqual({ checked: 2, verified: 0, removed: 2, off_topic: 0, relabeled: 0 });
  });

  it('checks an email quote against the email body', async () => {
    const [email] = await h.database.db
      .select({ id: interactions.id, body: interactions.body })
      .from(interactions)
      .where(and(eq(interactions.workspaceId, CORPUS_WORKSPACE_ID), eq(interactions.kind, 'email')))
      .limit(1);
    const block: BlockDraft = {
      kind: 'quote',
      text: email!.body!.slice(0, 40),
      source: { interaction_id: email!.id, turn_id: null, speaker: null, occurred_at: null, account: null },
      stance: 'context',
    };
    const made: BlockDraft = { ...block, text: 'We would love a 90% discount.' } as BlockDraft;
    const result = await verifyAnswer(draft('x', [block, made]), ctx);
    expect(result.grounding.quotes).toEqual({ checked: 2, verified: 1, removed: 1, off_topic: 0, relabeled: 1 });
  });
});

describe('tables and metrics', () => {
  it('keeps a table whose rows are its query\u2019s, removes one with a tampered cell', async () => {
    const res = await ctx.rerun(dealsQuery);
    const rows = (res.ok ? (res.output as { results: Record<string, unknown>[] }).results : []).map((r) => ({
      name: r.name,
      amount: r.amount,
    }));
    expect(rows.length).toBeGreaterThan(0);
    const table = (data: Record<string, unknown>[]): BlockDraft => ({
      kind: 'table',
      title: null,
      columns: [
        { key: 'name', label: 'Deal' },
        { key: 'amount', label: 'Amount' },
      ],
      data,
      query: dealsQuery,
    });
    const good = await verifyAnswer(
      draft('Deals.', [table(rows), table(rows.map((r) => ({ ...r, amount: String(r.amount) })))]),
      ctx,
    );
    expect(good.grounding.tables).toEqual({ checked: 2, verified: 2, removed: 0 });
    const bad = await verifyAnswer(
      draft('Deals.', [table(rows.map((r, i) => (i === 0 ? { ...r, amount: Number(r.amount) + 1 } : r)))]),
      ctx,
    );
    expect(bad.grounding.tables).toEqual({ checked: 1, verified: 0, removed: 1 });
    expect(bad.grounding.problems[0]).toMatch(/row 1 is not in its query's result/);
  });

  it('keeps a metric equal to its query\u2019s cell and removes a wrong one; a query that cannot run removes its block', async () => {
    const res = await ctx.rerun(totalsQuery);
    const row = res.ok ? (res.output as { results: Record<string, unknown>[] }).results[0]! : {};
    const metric = (value: unknown, column = 'count', query: Record<string, unknown> = totalsQuery): BlockDraft => ({
      kind: 'metric',
      label: 'Deals',
      value: value as number,
      column,
      query,
    });
    const result = await verifyAnswer(
      draft('Totals.', [
        metric(row.count),
        metric(row.sum_amount, 'sum_amount'),
        metric(Number(row.count) + 1),
        metric(1, 'count', { surface: 'deals', filters: [{ field: 'nope', op: 'eq', value: 1 }] }),
      ]),
      ctx,
    );
    expect(result.grounding.metrics).toEqual({ checked: 4, verified: 2, removed: 2 });
  });
});

describe('numbers in the prose', () => {
  it('accepts numbers backed by cells, by query values and inside verified quotes; ignores list markers and identifiers; reports the rest', async () => {
    const res = await ctx.rerun(dealsQuery);
    const top = (res.ok ? (res.output as { results: Record<string, unknown>[] }).results : [])[0]!;
    const turn = await aTurn();
    const sentence = turn.text;
    const text = [
      `1. The largest deal over $50K is ${String(top.name)} at $${Number(top.amount).toLocaleString('en-US')}, closing ${String(top.close_date)}.`,
      `2. It came up in Q3 and the SOC2 review.`,
      `> ${sentence}`,
      `About 37 customers agree, roughly 12.5% of them.`,
    ].join('\n');
    const table: BlockDraft = {
      kind: 'table',
      title: null,
      columns: [
        { key: 'name', label: 'Deal' },
        { key: 'amount', label: 'Amount' },
        { key: 'close_date', label: 'Close' },
      ],
      data: [{ name: top.name, amount: top.amount, close_date: top.close_date }],
      query: dealsQuery,
    };
    const result = await verifyAnswer(draft(text, [table, quote(turn, sentence)]), ctx);
    expect(result.grounding.numbers.unverified).toEqual(['37', '12.5%']);
    expect(result.grounding.verified).toBe(false);
    expect(result.content_blocks).toHaveLength(2);
  });

  it('reads money and scale suffixes as values', () => {
    expect(numericValue('$80,800')).toBe(80800);
    expect(numericValue('$50K')).toBe(50000);
    expect(numericValue('1.2M')).toBe(1_200_000);
    expect(numericValue('45%')).toBe(45);
  });
});

describe('theme findings and citations', () => {
  it('keeps a theme of this workspace with its member count, removes a wrong count or an unknown utterance', async () => {
    const [theme] = await h.database.db
      .select()
      .from(themes)
      .where(eq(themes.workspaceId, CORPUS_WORKSPACE_ID))
      .limit(1);
    const finding = (memberCount: number): BlockDraft => ({
      kind: 'theme_finding',
      theme_id: theme!.id,
      label: theme!.label,
      insight: 'It recurs.',
      member_count: memberCount,
    });
    const result = await verifyAnswer(
      draft('Themes.', [
        finding(theme!.memberCount),
        finding(theme!.memberCount + 3),
        { kind: 'citation', cite: 'utterance', ref: newId(), label: 'x', snippet: null },
      ]),
      ctx,
    );
    expect(result.grounding.themes).toEqual({ checked: 2, verified: 1, removed: 1 });
    expect(result.content_blocks.filter((b) => b.kind !== 'callout')).toHaveLength(1);
  });
});
