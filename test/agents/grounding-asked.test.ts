import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerDraft, BlockDraft } from '../../functions/agents/answer.js';
import { verifyAnswer, type GroundingContext } from '../../functions/agents/grounding.js';
import { authenticateApiKey } from '../../functions/identity/api-keys.js';
import { invokeAsValue } from '../../functions/invoke.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness } from '../support/harness.js';

/** The same quote of the same turn (its labels are the warehouse's after the verifier, grounding-attribution.ts). */
const sameQuote = (b: BlockDraft) =>
  b.kind === 'quote'
    ? { kind: 'quote', text: b.text, source: { interaction_id: b.source.interaction_id, turn_id: b.source.turn_id } }
    : b;

/**
 * The verifier against what was asked: a quote naming a rival is about competitors; a
 * heading whose quotes were all left out goes with them; "nothing mentions X" is not said above a
 * ranking of X; a period that qualifies deals' close dates bounds the quotes by those deals' lives;
 * a count in an answer about a period comes from a query bounded in time. Every quote, deal and
 * count is picked out of the demo corpus by SQL written here.
 */

let h: Harness;
let ctx: GroundingContext;
const asked_at = CORPUS_NOW.toISOString();
/** The corpus's "now" is 2026-11-20: last quarter is Q3 2026, this quarter Q4. */
const Q3 = ['2026-07-01', '2026-10-01'] as const;
const Q4 = ['2026-10-01', '2027-01-01'] as const;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  const ws = await h.corpusWorkspace();
  const caller = await authenticateApiKey(h.database.db, ws.admin.key, new Date());
  const scope = {
    registry: h.registry,
    services: h.services,
    caller,
    correlationId: 'grounding-asked-test',
    signal: new AbortController().signal,
    origin: 'run' as const,
  };
  ctx = { db: h.database.db, workspaceId: CORPUS_WORKSPACE_ID, rerun: (q) => invokeAsValue(scope, 'search.query', q) };
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

type Turn = { id: string; interaction_id: string; text: string };
async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  return (await h.pglite.client.query<T>(text, [CORPUS_WORKSPACE_ID, ...params])).rows;
}
/** One customer turn (under 200 characters) of an interaction `i` that the condition picks. */
async function customerTurn(where: string, params: unknown[] = []): Promise<Turn> {
  const [turn] = await sql<Turn>(
    `select t.id, t.interaction_id, t.text from transcript_turns t join interactions i on i.id = t.interaction_id
     where t.workspace_id = $1 and t.side = 'external' and length(t.text) < 200 and ${where}
     order by i.occurred_at, t.id limit 1`,
    params,
  );
  if (!turn) throw new Error(`no customer turn where ${where}`);
  return turn;
}
const quote = (t: Turn): BlockDraft => ({
  kind: 'quote',
  text: t.text,
  source: { interaction_id: t.interaction_id, turn_id: t.id, speaker: null, occurred_at: null, account: null },
  stance: 'supports',
});
const draft = (text: string, blocks: BlockDraft[]): AnswerDraft => ({ text, content_blocks: blocks, follow_ups: [] });
const quotesOf = (blocks: readonly BlockDraft[]) => blocks.filter((b) => b.kind === 'quote');
const callouts = (blocks: readonly BlockDraft[]) => blocks.flatMap((b) => (b.kind === 'callout' ? [b.markdown] : []));

const COMPETITOR_WORDS = '\\m(competit|alternativ|vendor|switch|compar|versus|incumbent|bake-off)';

describe('competitors: a topic’s members count as the topic', () => {
  it('keeps a buyer’s quote that names a rival the conversations name, and leaves out one about something else', async () => {
    const rival = await customerTurn(`t.text ~ '\\mPipewell\\M' and t.text !~* '${COMPETITOR_WORDS}'`);
    const other = await customerTurn(`t.text ~* '\\mslack\\M' and t.text !~* '${COMPETITOR_WORDS}|Pipewell|Tallyhawk'`);
    const result = await verifyAnswer(
      draft(`What buyers said about them:\n- “${rival.text}”\n- “${other.text}”`, [quote(rival), quote(other)]),
      { ...ctx, question: { text: 'Which competitors come up most often?', asked_at } },
    );
    expect(result.grounding.quotes).toMatchObject({ checked: 2, verified: 1, off_topic: 1 });
    expect(quotesOf(result.content_blocks)).toMatchObject([sameQuote(quote(rival))]);
  });

  it('takes away a heading whose quotes were all left out, and never says “nothing mentions” above a ranking', async () => {
    const [negotiation] = await sql<{ n: number }>(
      `select count(*)::int as n from deals where workspace_id = $1 and stage = 'negotiation'`,
    );
    const n = negotiation?.n ?? 0;
    const metric: BlockDraft = {
      kind: 'metric',
      label: 'Deals in negotiation',
      value: n,
      column: 'count',
      query: {
        surface: 'deals',
        filters: [{ field: 'stage', op: 'eq', value: 'negotiation' }],
        metrics: [{ fn: 'count' }],
      },
    };
    const other = await customerTurn(`t.text ~* '\\mslack\\M' and t.text !~* '${COMPETITOR_WORDS}|Pipewell|Tallyhawk'`);
    const result = await verifyAnswer(
      draft(`Competitors by mentions:\n1. **Pipewell**: ${n}\n\nWhat buyers said about them:\n- “${other.text}”`, [
        metric,
        quote(other),
      ]),
      { ...ctx, question: { text: 'Which competitors come up most often?', asked_at } },
    );
    expect(result.grounding.quotes.off_topic).toBe(1);
    expect(result.text).not.toContain('What buyers said about them');
    expect(result.text).toContain(`1. **Pipewell**: ${n}`);
    expect(result.text).not.toMatch(/Nothing in the data mentions/);
    expect(callouts(result.content_blocks).some((m) => /left out: verbatim, but about something other/.test(m))).toBe(
      true,
    );
    expect(result.grounding.verified).toBe(true);
  });
});

describe('a period that qualifies deals’ close dates', () => {
  /** A deal of the kind asked about, closing in the window, and a customer turn on its account while it was open but before the window. */
  async function saidDuringDeal(dealWhere: string, window: readonly [string, string]): Promise<Turn> {
    return customerTurn(
      `i.occurred_at < $2::date and exists (select 1 from deals d where d.workspace_id = $1 and ${dealWhere}
         and d.close_date >= $2::date and d.close_date < $3::date
         and (d.id = i.deal_id or d.account_id = i.account_id)
         and i.occurred_at >= d.occurred_at and i.occurred_at::date <= d.close_date)`,
      [window[0], window[1]],
    );
  }
  /** A customer turn inside the window that no deal closing in the window was open for. */
  async function saidOutsideAnyDeal(window: readonly [string, string]): Promise<Turn> {
    return customerTurn(
      `i.occurred_at >= $2::date and i.occurred_at < $3::date and not exists (
         select 1 from deals d where d.workspace_id = $1 and d.close_date >= $2::date and d.close_date < $3::date
           and (d.id = i.deal_id or d.account_id = i.account_id)
           and i.occurred_at >= d.occurred_at and i.occurred_at::date <= d.close_date)`,
      [window[0], window[1]],
    );
  }

  it('keeps what a lost deal’s buyers said while it was open, before the quarter, and leaves out what no such deal was open for', async () => {
    const during = await saidDuringDeal('d.is_closed and not d.is_won', Q3);
    const elsewhere = await saidOutsideAnyDeal(Q3);
    const result = await verifyAnswer(draft('What their buyers said:', [quote(during), quote(elsewhere)]), {
      ...ctx,
      question: { text: 'Why did we lose deals last quarter?', asked_at },
    });
    expect(quotesOf(result.content_blocks)).toMatchObject([sameQuote(quote(during))]);
    expect(callouts(result.content_blocks).some((m) => /the period bounds the deals' close dates/.test(m))).toBe(true);
  });

  it('keeps a quote from before the quarter for a deal closing this quarter', async () => {
    const during = await saidDuringDeal('not d.is_closed', Q4);
    const result = await verifyAnswer(draft('What their buyers said:', [quote(during)]), {
      ...ctx,
      question: { text: 'Which deals close this quarter?', asked_at },
    });
    expect(quotesOf(result.content_blocks)).toMatchObject([sameQuote(quote(during))]);
  });

  it('still bounds a quote by its own date when the period is not about deals closing', async () => {
    const before = await customerTurn(`i.occurred_at < $2::date and t.text ~* 'pric'`, [Q3[0]]);
    const result = await verifyAnswer(draft('What customers said:', [quote(before)]), {
      ...ctx,
      question: { text: 'What did customers say about pricing last quarter?', asked_at },
    });
    expect(quotesOf(result.content_blocks)).toEqual([]);
  });
});

describe('counts in an answer about a period', () => {
  const calls = { field: 'kind', op: 'eq', value: 'call' };
  const metricOf = (value: number, filters: unknown[], label = 'Calls'): BlockDraft => ({
    kind: 'metric',
    label,
    value,
    column: 'count',
    query: { surface: 'interactions', filters, metrics: [{ fn: 'count' }] },
  });
  const countCalls = async (from = '1900-01-01', to = '2999-01-01') =>
    (
      await sql<{ n: number }>(
        `select count(*)::int as n from interactions i where i.workspace_id = $1 and i.kind = 'call'
           and i.occurred_at >= $2::date and i.occurred_at < $3::date
           and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
        [from, to],
      )
    )[0]?.n ?? 0;

  it('removes a count over all time from an answer about last quarter, and keeps the quarter’s own count', async () => {
    const allTime = await countCalls();
    const quarter = await countCalls(...Q3);
    expect(allTime).toBeGreaterThan(quarter);
    const question = { text: 'How many calls did we have last quarter?', asked_at };
    const wrong = await verifyAnswer(draft(`We had **${allTime}** calls.`, [metricOf(allTime, [calls])]), {
      ...ctx,
      question,
    });
    expect(wrong.grounding.verified).toBe(false);
    expect(wrong.content_blocks.some((b) => b.kind === 'metric')).toBe(false);
    expect(wrong.grounding.problems.join(' ')).toMatch(/for all time, not for last quarter/);
    expect(wrong.grounding.numbers.unverified).toContain(String(allTime));

    const bounded = [
      calls,
      { field: 'occurred_at', op: 'gte', value: Q3[0] },
      { field: 'occurred_at', op: 'lt', value: Q3[1] },
    ];
    const right = await verifyAnswer(draft(`We had **${quarter}** calls.`, [metricOf(quarter, bounded)]), {
      ...ctx,
      question,
    });
    expect(right.grounding.verified).toBe(true);
    // The same all-time count is fine where it says so, or where no period was asked.
    const labelled = await verifyAnswer(draft('Calls:', [metricOf(allTime, [calls], 'Calls, all time')]), {
      ...ctx,
      question,
    });
    expect(labelled.grounding.verified).toBe(true);
    const noPeriod = await verifyAnswer(draft('Calls:', [metricOf(allTime, [calls])]), {
      ...ctx,
      question: { text: 'How many calls have we had?', asked_at },
    });
    expect(noPeriod.grounding.verified).toBe(true);
  });
});
