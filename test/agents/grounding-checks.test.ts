import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerDraft, BlockDraft, GroundingCheck } from '../../functions/agents/answer.js';
import { rerunCitedQuery } from '../../functions/agents/cited-query.js';
import { verifyAnswer, type GroundingContext } from '../../functions/agents/grounding.js';
import { searchWords } from '../../functions/agents/grounding-absence.js';
import { tidyAnswer } from '../../functions/agents/grounding-finished.js';
import { notUnderstood } from '../../functions/agents/local-policy/shape-refusal.js';
import { authenticateApiKey } from '../../functions/identity/api-keys.js';
import { invokeAsValue } from '../../functions/invoke.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness } from '../support/harness.js';

/**
 * What `verified` certifies: an absence is backed by what found
 * nothing, a quotation in the prose is a quote block, nothing unfinished reaches the reader, and
 * `grounding.checks[]` names each check with its result. Each case is one seen in an answer, rebuilt
 * on the demo corpus; every account, turn and count is picked out by SQL written here.
 */

let h: Harness;
let ctx: GroundingContext;
/** Any operation as the corpus admin (an analysis the answer cites is re-run through it). */
let invoke: (operationId: string, input: Record<string, unknown>) => ReturnType<typeof invokeAsValue>;
const asked_at = CORPUS_NOW.toISOString();
/** The corpus's "now" is 2026-11-20: last quarter is Q3 2026. */
const Q3 = ['2026-07-01', '2026-10-01'] as const;
const asOf = asked_at.slice(0, 10);

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  const ws = await h.corpusWorkspace();
  const caller = await authenticateApiKey(h.database.db, ws.admin.key, new Date());
  const scope = {
    registry: h.registry,
    services: h.services,
    caller,
    correlationId: 'grounding-checks-test',
    signal: new AbortController().signal,
    origin: 'run' as const,
  };
  invoke = (operationId, input) => invokeAsValue(scope, operationId, input);
  ctx = { db: h.database.db, workspaceId: CORPUS_WORKSPACE_ID, rerun: (q) => rerunCitedQuery(invoke, q) };
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  return (await h.pglite.client.query<T>(text, [CORPUS_WORKSPACE_ID, ...params])).rows;
}
type Turn = { id: string; interaction_id: string; text: string; account: string | null };
async function customerTurn(where: string, params: unknown[] = []): Promise<Turn> {
  const [turn] = await sql<Turn>(
    `select t.id, t.interaction_id, t.text, a.name as account from transcript_turns t
       join interactions i on i.id = t.interaction_id left join accounts a on a.id = i.account_id
     where t.workspace_id = $1 and t.side = 'external' and length(t.text) between 40 and 200 and ${where}
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
const checkOf = (checks: readonly GroundingCheck[], name: GroundingCheck['name']) =>
  checks.find((c) => c.name === name);
const countMetric = (label: string, surface: string, filters: unknown[], value: number): BlockDraft => ({
  kind: 'metric',
  label,
  value,
  column: 'count',
  query: { surface, filters, metrics: [{ fn: 'count' }] },
});
const countOf = async (text: string, params: unknown[] = []) => (await sql<{ n: number }>(text, params))[0]?.n ?? 0;

describe('grounding.checks[]', () => {
  it('names every check with its result; verified is true only when every one passed', async () => {
    const turn = await customerTurn(`t.text ~* 'pric'`);
    const good = await verifyAnswer(draft(`${turn.account ?? 'A customer'} said: “${turn.text}”`, [quote(turn)]), ctx);
    expect(good.grounding.checks.map((c) => c.name)).toEqual([
      'verbatim',
      'recomputed',
      'attributed',
      'period-bounded',
      'on-topic',
      'absence-backed',
      'parts-answered',
      'prose-quotes',
      'finished',
    ]);
    expect(good.grounding.checks.every((c) => c.passed)).toBe(true);
    expect(good.grounding.verified).toBe(true);

    const bad = await verifyAnswer(
      draft('Said:', [{ ...quote(turn), text: `${turn.text} banana` } as BlockDraft]),
      ctx,
    );
    expect(checkOf(bad.grounding.checks, 'verbatim')).toMatchObject({ passed: false, removed: 1 });
    expect(bad.grounding.verified).toBe(false);
  });
});

/** The account whose contacts named Pipewell the most, with how many of them did (SQL apart from the verifier). */
async function accountNamingPipewell(): Promise<{ account: string; n: number } | undefined> {
  const [named] = await sql<{ account: string; n: number }>(
    `select a.name as account, count(distinct t.speaker_name)::int as n from transcript_turns t
       join interactions i on i.id = t.interaction_id join accounts a on a.id = i.account_id
     where t.workspace_id = $1 and t.side = 'external' and t.text ~ '\\mPipewell\\M'
     group by a.name order by n desc, a.name limit 1`,
  );
  return named;
}

describe('absence-backed: a claim that something is absent rests on what found nothing', () => {
  it('removes “nobody named a competitor” when two of the account’s contacts named Pipewell and nothing found none', async () => {
    const named = await accountNamingPipewell();
    expect(named?.n).toBeGreaterThan(0);
    const account = named!.account;
    const result = await verifyAnswer(
      draft(`I looked at **${account}**'s conversations.\n\nNobody at ${account} named a competitor.`, []),
      {
        ...ctx,
        question: { text: 'Did they ever bring up a competitor?', asked_at },
        // The run's own competitor search found the mentions; none of its searches found nothing.
        searches: [{ request: { query: `${account} competitor Pipewell`, mode: 'fuzzy' }, results: named!.n }],
      },
    );
    expect(result.text).not.toMatch(/Nobody/);
    expect(result.text).toContain(`I looked at **${account}**'s conversations.`);
    expect(checkOf(result.grounding.checks, 'absence-backed')).toMatchObject({ passed: false, removed: 1 });
    expect(result.grounding.verified).toBe(false);
  });

  it('holds an absence said by a negative subject or a negated verb over any case to its backing, like “nobody”', async () => {
    const named = await accountNamingPipewell();
    expect(named?.n).toBeGreaterThan(0);
    const account = named!.account;
    const claims = [
      `No contact at ${account} named a competitor.`,
      `No competitors were named at ${account}.`,
      `Not one contact at ${account} brought up Pipewell.`,
      `Nothing was said about Pipewell at ${account}.`,
      `Pipewell did not come up in any of ${account}'s conversations.`,
      `Pipewell has not been raised by anyone at ${account}.`,
      `${account} has no conversation naming Pipewell.`,
      `The conversations of ${account} held no mention of a competitor.`,
      `${account} lacks any conversation naming Pipewell.`,
    ];
    for (const claim of claims) {
      const result = await verifyAnswer(draft(`I looked at **${account}**'s conversations.\n\n${claim}`, []), {
        ...ctx,
        question: { text: 'Did they ever bring up a competitor?', asked_at },
        searches: [{ request: { query: `${account} competitor Pipewell`, mode: 'fuzzy' }, results: named!.n }],
      });
      expect(result.text, claim).toBe(`I looked at **${account}**'s conversations.`);
      expect(checkOf(result.grounding.checks, 'absence-backed'), claim).toMatchObject({ passed: false, removed: 1 });
      expect(result.grounding.verified).toBe(false);
    }
    // "No" that quantifies nothing is no claim; a count of 0 on the records asked about backs "No calls match."
    const before1900 = await countOf(
      `select count(*)::int as n from interactions where workspace_id = $1 and kind = 'call' and occurred_at < '1900-01-01'`,
    );
    expect(before1900).toBe(0);
    const zero = countMetric(
      'Number of calls',
      'interactions',
      [
        { field: 'kind', op: 'eq', value: 'call' },
        { field: 'occurred_at', op: 'lt', value: '1900-01-01' },
      ],
      before1900,
    );
    const plain =
      'No calls match.\n\nA renewal is due no later than the quarter’s end. The plan has no more than two steps.';
    const kept = await verifyAnswer(draft(plain, [zero]), { ...ctx, searches: [] });
    expect(kept.text).toBe(plain);
    expect(checkOf(kept.grounding.checks, 'absence-backed')?.passed).toBe(true);
    // A claim with a topic of its own is not backed by a count of 0 that shares only the records' word.
    const topical = await verifyAnswer(draft('No calls mentioned Pipewell.', [zero]), { ...ctx, searches: [] });
    expect(topical.text).toBe('');
    expect(checkOf(topical.grounding.checks, 'absence-backed')).toMatchObject({ passed: false, removed: 1 });
  });

  it('does not take a verified quote’s “No linked account” label for an absence claim', async () => {
    const [t] = await sql<Turn & { account_id: string; deal_id: string | null }>(
      `select t.id, t.interaction_id, t.text, i.account_id, i.deal_id from transcript_turns t
         join interactions i on i.id = t.interaction_id
       where t.workspace_id = $1 and t.side = 'external' and length(t.text) between 40 and 200 and t.text ~* '\\mbudget'
       order by t.id limit 1`,
    );
    // The interaction taken off its account for this case (and put back): the warehouse then has none.
    await sql(`update interactions set account_id = null, deal_id = null where workspace_id = $1 and id = $2`, [
      t!.interaction_id,
    ]);
    try {
      const text = `What they said:\n- No linked account, a customer: “${t!.text}”`;
      const result = await verifyAnswer(draft(text, [quote(t!)]), { ...ctx, searches: [] });
      expect(result.text).toBe(text);
      expect(checkOf(result.grounding.checks, 'absence-backed')?.passed).toBe(true);
      expect(result.grounding.verified).toBe(true);
    } finally {
      await sql(`update interactions set account_id = $3, deal_id = $4 where workspace_id = $1 and id = $2`, [
        t!.interaction_id,
        t!.account_id,
        t!.deal_id,
      ]);
    }
  });

  it('keeps an absence a metric of 0 backs, and removes one its own figures contradict', async () => {
    const none = await countOf(`select count(*)::int as n from deals where workspace_id = $1 and amount > 1e12`);
    const negotiation = await countOf(
      `select count(*)::int as n from deals where workspace_id = $1 and stage = 'negotiation'`,
    );
    expect(none).toBe(0);
    expect(negotiation).toBeGreaterThan(0);
    const zero = countMetric('Deals over a trillion', 'deals', [{ field: 'amount', op: 'gt', value: 1e12 }], none);
    const backed = await verifyAnswer(draft('There are no deals over a trillion.', [zero]), ctx);
    expect(backed.text).toBe('There are no deals over a trillion.');
    expect(checkOf(backed.grounding.checks, 'absence-backed')?.passed).toBe(true);
    expect(backed.grounding.verified).toBe(true);

    const some = countMetric(
      'Deals in negotiation',
      'deals',
      [{ field: 'stage', op: 'eq', value: 'negotiation' }],
      negotiation,
    );
    const contradicted = await verifyAnswer(draft('None of the deals is in negotiation.', [some]), ctx);
    expect(contradicted.text).not.toMatch(/None of the deals/);
    expect(checkOf(contradicted.grounding.checks, 'absence-backed')).toMatchObject({ passed: false, removed: 1 });
  });

  it('holds no gloss in parentheses to it, nor a sentence that bounds itself by its own search', async () => {
    const text =
      'Status reads: unknown (nobody identified), identified, validated.\n\nNo one on the customer side said it in a transcript I can quote.';
    const result = await verifyAnswer(draft(text, []), { ...ctx, searches: [{ request: { query: 'x' }, results: 3 }] });
    expect(result.text).toBe(text);
    expect(checkOf(result.grounding.checks, 'absence-backed')?.passed).toBe(true);
    const unsearched = await verifyAnswer(draft(text, []), { ...ctx, searches: [] });
    expect(unsearched.text).not.toContain('No one');
    expect(checkOf(unsearched.grounding.checks, 'absence-backed')).toMatchObject({ passed: false, removed: 1 });
  });

  it('holds no word in a list after a colon, nor what a verified quote says, to it', async () => {
    const turn = await customerTurn(`t.text ilike '%nobody%'`);
    const text = `Words that come back across these quotes: nobody, owns, tool.\n\n> ${turn.text}`;
    const result = await verifyAnswer(draft(text, [quote(turn)]), { ...ctx, searches: [] });
    expect(result.text).toContain('Words that come back');
    expect(result.text).toContain(turn.text);
    expect(checkOf(result.grounding.checks, 'absence-backed')?.passed).toBe(true);
  });

  it('bounds an absence a search of the run found nothing for by that search, and cites it', async () => {
    const [acct] = await sql<{ name: string }>(
      `select name from accounts where workspace_id = $1 order by name limit 1`,
    );
    const request = { query: `${acct!.name} Zorblax`, mode: 'fuzzy' };
    const result = await verifyAnswer(draft(`No one at ${acct!.name} mentioned Zorblax.`, []), {
      ...ctx,
      searches: [{ request, results: 0 }],
    });
    expect(result.text).toBe(
      `No one at ${acct!.name} mentioned Zorblax — found none in a search for “${acct!.name} Zorblax”.`,
    );
    expect(result.content_blocks).toContainEqual(
      expect.objectContaining({ kind: 'citation', cite: 'query', snippet: '0 results' }),
    );
    expect(result.grounding.verified).toBe(true);
  });

  it('holds an absence the answer’s own verified rows state: “no champion identified” beside an unknown Champion cell', async () => {
    // The open renewals' latest champion assessment as of the corpus's end, read here.
    const renewals = await sql<{ deal_name: string; champion: string | null }>(
      `select d.name as deal_name,
         (select q.status from deal_qualification q where q.deal_id = d.id and q.criterion = 'champion'
            and q.occurred_at < $2::date + 1 order by q.occurred_at desc, q.id limit 1) as champion
       from deals d where d.workspace_id = $1 and not d.is_closed and d.name ~* 'renewal' order by d.name`,
      [asOf],
    );
    const unknown = renewals.find((r) => r.champion === 'unknown');
    const identified = renewals.find((r) => r.champion === 'identified');
    expect(unknown && identified).toBeTruthy();
    const out = await invoke('analyses.renewal_risk', { as_of: asOf, limit: 50 });
    if (!out.ok) throw new Error(JSON.stringify(out.error));
    const analysis = out.output as { summary: string[]; blocks: BlockDraft[] };
    const table = analysis.blocks.find((b) => b.kind === 'table' && b.title === 'Open renewals, at risk first');
    expect(table).toBeTruthy();

    const said = (deal: string) => `No champion is identified on ${deal}.`;
    const backed = await verifyAnswer(draft(said(unknown!.deal_name), [table!]), ctx);
    expect(backed.text).toBe(said(unknown!.deal_name));
    expect(checkOf(backed.grounding.checks, 'absence-backed')).toMatchObject({ passed: true });
    expect(backed.grounding.verified).toBe(true);

    // The same words beside a renewal whose champion is identified are contradicted by its own row.
    const wrong = await verifyAnswer(draft(said(identified!.deal_name), [table!]), ctx);
    expect(wrong.text).toBe('');
    expect(checkOf(wrong.grounding.checks, 'absence-backed')).toMatchObject({ passed: false, removed: 1 });

    // The analysis's own lines ("… (…, owner@domain.io): no champion identified; no conversation in 45 days.")
    // are its "Why at risk" cells: they stand as written.
    const lines = analysis.summary.join('\n');
    expect(lines).toMatch(/: no (?:champion|economic buyer) identified/);
    const own = await verifyAnswer(draft(lines, analysis.blocks), ctx);
    expect(own.text).toBe(lines);
    expect(checkOf(own.grounding.checks, 'absence-backed')).toMatchObject({ passed: true });
    expect(own.grounding.verified).toBe(true);
  });

  it('holds a verdict on the question (“Nothing in the data settles it yet.”) to nothing: it claims no record is absent', async () => {
    const hedges = [
      'Nothing in the data settles it yet.',
      'No record proves it either way.',
      'None of these conversations tells us why they left.',
      'Nothing here answers the question for now.',
    ];
    for (const hedge of hedges) {
      const result = await verifyAnswer(draft(hedge, []), { ...ctx, searches: [] });
      expect(result.text, hedge).toBe(hedge);
      expect(checkOf(result.grounding.checks, 'absence-backed'), hedge).toMatchObject({ passed: true });
      expect(result.grounding.verified, hedge).toBe(true);
    }
    // What people did, or what the records hold, is a claim whatever verb it uses.
    for (const claim of ['Nobody confirmed it.', 'Nothing was said about it.', 'No call shows that pricing came up.']) {
      const result = await verifyAnswer(draft(claim, []), { ...ctx, searches: [] });
      expect(result.text, claim).toBe('');
      expect(checkOf(result.grounding.checks, 'absence-backed'), claim).toMatchObject({ passed: false, removed: 1 });
    }
  });

  it('backs “No … are synced” by a search of every such record that found none, not by a narrower one', async () => {
    const [none] = await sql<{ kind: string }>(
      `select k as kind from unnest(array['post', 'meeting', 'email', 'call']) k
       where not exists (select 1 from interactions i where i.workspace_id = $1 and i.kind = k) limit 1`,
    );
    if (!none) throw new Error('every kind of interaction is in the corpus');
    const every = { filters: [{ field: 'kind', op: 'eq', value: none.kind }], limit: 1 };
    const found = await invoke('search.query', every);
    expect(found.ok && (found.output as { results: unknown[] }).results).toEqual([]);
    const claim = `No ${none.kind}s are synced in this workspace yet.`;
    const result = await verifyAnswer(draft(claim, []), { ...ctx, searches: [{ request: every, results: 0 }] });
    expect(result.text).toBe(`${claim.slice(0, -1)} — found none in ${searchWords(every)}.`);
    expect(result.grounding.verified).toBe(true);
    // A search of last century's only says nothing of those.
    const narrower = { filters: [...every.filters, { field: 'occurred_at', op: 'lt', value: '1900-01-01' }] };
    const unbacked = await verifyAnswer(draft(claim, []), { ...ctx, searches: [{ request: narrower, results: 0 }] });
    expect(unbacked.text).toBe('');
    expect(checkOf(unbacked.grounding.checks, 'absence-backed')).toMatchObject({ passed: false, removed: 1 });
  });
});

describe('prose-quotes: a quotation in the prose is a quote block of the same answer', () => {
  it('takes out budget quotes printed in the prose whose blocks are not in the answer, and keeps the one that is', async () => {
    const kept = await customerTurn(`t.text ~* '\\mbudget'`);
    const [a, b] = await sql<Turn>(
      `select t.id, t.interaction_id, t.text, null as account from transcript_turns t
       where t.workspace_id = $1 and t.side = 'external' and t.text ~* '\\mbudget' and t.text <> $2
         and length(t.text) > 60
       order by t.id limit 2`,
      [kept.text],
    );
    const result = await verifyAnswer(
      draft(
        [
          '### Evidence by theme',
          '**“budget”**',
          `- A buyer: “${kept.text}”`,
          `- A buyer: “${a!.text}”`,
          `- Another, as they put it, “${b!.text.slice(0, 60)}”`,
        ].join('\n'),
        [quote(kept)],
      ),
      ctx,
    );
    expect(result.text).toContain(kept.text);
    expect(result.text).not.toContain(a!.text);
    expect(result.text).not.toContain(b!.text.slice(0, 60));
    expect(result.text).toContain('**“budget”**');
    expect(checkOf(result.grounding.checks, 'prose-quotes')).toMatchObject({ passed: false, removed: 2 });
    expect(result.grounding.verified).toBe(false);
  });

  it('takes a quote left out for its period out of the prose too, as a removal by design', async () => {
    const before = await customerTurn(`i.occurred_at < $2::date and t.text ~* '\\mbudget'`, [Q3[0]]);
    const result = await verifyAnswer(draft(`What customers said:\n- “${before.text}”`, [quote(before)]), {
      ...ctx,
      question: { text: 'What did customers say about budget last quarter?', asked_at },
    });
    expect(result.content_blocks.some((b) => b.kind === 'quote')).toBe(false);
    expect(result.text).not.toContain(before.text);
    expect(result.text).not.toContain('What customers said:');
    expect(checkOf(result.grounding.checks, 'period-bounded')).toMatchObject({ passed: true, removed: 1 });
    expect(checkOf(result.grounding.checks, 'prose-quotes')?.passed).toBe(true);
    expect(result.grounding.verified).toBe(true);
  });

  it('names the period as the question asked it, with its dates, in the note on quotes left out for it', async () => {
    const before = await customerTurn(`i.occurred_at < $2::date and t.text ~* '\\mbudget'`, [Q3[0]]);
    const ask = (text: string, period?: { from: string; to: string; phrase: string }) =>
      verifyAnswer(draft(`What customers said:\n- “${before.text}”`, [quote(before)]), {
        ...ctx,
        question: { text, asked_at, ...(period ? { period } : {}) },
      });
    const noteOf = (r: Awaited<ReturnType<typeof ask>>) =>
      r.content_blocks.flatMap((b) => (b.kind === 'callout' && /left out/.test(b.markdown) ? [b.markdown] : []));
    // Q3 2026 is 2026-07-01 to 2026-09-30 (the quarter the corpus's "last quarter" is).
    const dates = `(${Q3[0]} – 2026-09-30)`;
    const cases: [string, { from: string; to: string; phrase: string } | undefined, string][] = [
      ['What did customers say about budget last quarter?', undefined, `last quarter ${dates}`],
      // A model's reading that masks the period's digits or names it by an internal label is not the asker's words.
      [
        'What did customers say about budget last quarter?',
        { from: Q3[0], to: Q3[1], phrase: 'Q# ####' },
        `last quarter ${dates}`,
      ],
      [
        'What did customers say about budget last quarter?',
        { from: Q3[0], to: Q3[1], phrase: 'last_quarter' },
        `last quarter ${dates}`,
      ],
      ['What did customers say about budget in Q3 2026?', undefined, `Q3 2026 ${dates}`],
    ];
    for (const [question, period, words] of cases) {
      const result = await ask(question, period);
      expect(
        result.content_blocks.some((b) => b.kind === 'quote'),
        question,
      ).toBe(false);
      const notes = noteOf(result);
      expect(notes, `${question} ${period?.phrase ?? ''}`).toHaveLength(1);
      expect(notes[0]).toContain(`Quotes from outside ${words} were left out`);
      expect(notes[0]).not.toMatch(/#|_|the period you asked about/);
      expect(result.grounding.numbers.unverified).toEqual([]);
      expect(result.grounding.verified).toBe(true);
    }
  });

  it('accepts a quoted cell of a verified table (a qualification note), and leaves a JSON string alone', async () => {
    const [note] = await sql<{ notes: string; deal_name: string }>(
      `select q.notes, d.name as deal_name from deal_qualification q join deals d on d.id = q.deal_id
       where q.workspace_id = $1 and q.notes is not null and length(q.notes) > 20 order by q.id limit 1`,
    );
    if (!note) throw new Error('no qualification note');
    const table: BlockDraft = {
      kind: 'table',
      title: 'Notes',
      columns: [{ key: 'notes', label: 'Notes' }],
      data: [{ notes: note.notes }],
      query: { surface: 'deal_qualification', filters: [{ field: 'notes', op: 'eq', value: note.notes }] },
    };
    const text = `The latest note says: “${note.notes}”\n\nYou chose: {"answer":"Acme Health","option_id":"acme-health"}`;
    const result = await verifyAnswer(draft(text, [table]), ctx);
    expect(result.text).toBe(text);
    expect(checkOf(result.grounding.checks, 'prose-quotes')?.passed).toBe(true);
    // Without the table, the same note is an unbacked quotation.
    const bare = await verifyAnswer(draft(text, []), ctx);
    expect(bare.text).not.toContain(note.notes);
  });

  it('accepts a quotation that is part of a quote block, across an ellipsis, with straight quotation marks', async () => {
    const turn = await customerTurn(`array_length(regexp_split_to_array(t.text, '\\s+'), 1) >= 12`);
    const words = turn.text.split(/\s+/);
    const result = await verifyAnswer(
      draft(`They said: "${words.slice(0, 4).join(' ')} … ${words.slice(-4).join(' ')}"`, [quote(turn)]),
      ctx,
    );
    expect(checkOf(result.grounding.checks, 'prose-quotes')).toMatchObject({ passed: true });
    expect(result.text).toContain(words.slice(0, 4).join(' '));
  });

  it('holds quotations in other marks and forms to the kept quotes: ‘…’, «…», „…“, a blockquote, a name’s list line', async () => {
    const kept = await customerTurn(`t.text ~* '\\mbudget' and t.text !~ '[‘’«»„“”"]'`);
    const invented = 'We would sign tomorrow if the price dropped by half';
    const [said] = await sql<{ n: number }>(
      `select count(*)::int as n from transcript_turns where workspace_id = $1 and text ilike '%' || $2 || '%'`,
      [invented],
    );
    expect(said!.n).toBe(0);
    const forms = [
      `- One buyer put it as ‘${invented}’.`,
      `- In French notes: «${invented}»`,
      `- In German notes: „${invented}“`,
      `> ${invented}.`,
      `- Dana Reyes: ${invented}.`,
      `- Dana (Acme): “${invented}.”`,
    ];
    const honest = [
      `- A buyer said ‘${kept.text}’`,
      `> ${kept.text}`,
      // Apostrophes inside and at the end of words, and a short word in single marks, quote nothing.
      '- The customers’ view: they don’t want the ‘platform’ tier.',
      // A description of a person is not her words.
      '- Dana Reyes: head of operations, on the renewal since March.',
      '> **Note:** the counts leave out internal calls.',
    ];
    const result = await verifyAnswer(draft(['What buyers said:', ...honest, ...forms].join('\n'), [quote(kept)]), ctx);
    for (const line of honest) expect(result.text, line).toContain(line);
    expect(result.text).not.toContain(invented);
    expect(checkOf(result.grounding.checks, 'prose-quotes')).toMatchObject({ passed: false, removed: 1 });
    expect(result.grounding.problems.filter((p) => p.includes(invented))).toHaveLength(1);
    // Each form on its own is removed and fails the check.
    for (const form of forms) {
      const alone = await verifyAnswer(
        draft(`What buyers said:\n${form}\n- A buyer: “${kept.text}”`, [quote(kept)]),
        ctx,
      );
      expect(alone.text, form).not.toContain(invented);
      expect(alone.text, form).toContain(kept.text);
      expect(checkOf(alone.grounding.checks, 'prose-quotes'), form).toMatchObject({ passed: false, removed: 1 });
    }
  });
});

describe('finished: nothing unfinished reaches the reader', () => {
  it('fails a placeholder period and takes its line out; a period written as asked is backed by the question', async () => {
    const masked = await verifyAnswer(
      draft('I understood the period "Q# ####"; I did not understand what to look up.\n\nAsk another way.', []),
      ctx,
    );
    expect(masked.text).not.toContain('#');
    expect(checkOf(masked.grounding.checks, 'finished')).toMatchObject({ passed: false });
    expect(masked.grounding.verified).toBe(false);

    const refusal = notUnderstood(['the period "Q3 2025"'], null);
    const plain = await verifyAnswer(refusal, {
      ...ctx,
      question: { text: 'What was the weather like in Q3 2025?', asked_at },
    });
    expect(plain.text).toContain('the period "Q3 2025"');
    expect(plain.grounding.numbers.unverified).toEqual([]);
    expect(plain.grounding.verified).toBe(true);
  });

  it('fails a report with an empty “Evidence by theme” and a “By account” that says none is linked, and drops both', async () => {
    const report = [
      '## Summary',
      'Customers talk about pricing.',
      '',
      '### Evidence by theme',
      'The wider searches found no further customer remarks to quote.',
      '',
      '### By account',
      'None of the conversations behind this evidence is linked to a CRM account.',
      '',
      '### What this rests on',
      'The searches above.',
    ].join('\n');
    const result = await verifyAnswer(draft(report, []), ctx);
    expect(result.text).not.toContain('Evidence by theme');
    expect(result.text).not.toContain('By account');
    expect(result.text).toContain('### What this rests on');
    expect(checkOf(result.grounding.checks, 'finished')).toMatchObject({ passed: false, removed: 2 });
    expect(result.grounding.verified).toBe(false);
  });

  it('fails a bold label with nothing under it and a heading whose body is only an empty label; keeps a heading over filled subheadings', async () => {
    const calls = { field: 'kind', op: 'eq', value: 'call' };
    const n = await countOf(
      `select count(*)::int as n from interactions i where i.workspace_id = $1 and i.kind = 'call'
         and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
    );
    expect(n).toBeGreaterThan(0);
    const report = [
      '## Summary',
      `**In short:** the workspace holds **${n}** calls.`,
      '',
      '**By account**',
      '',
      '### Over time',
      '**Calls per quarter**',
      '',
      '## Findings',
      '### Counts',
      'How much this report rests on: the calls, counted in the metric.',
    ].join('\n');
    const result = await verifyAnswer(draft(report, [countMetric('Calls', 'interactions', [calls], n)]), ctx);
    expect(result.grounding.metrics).toMatchObject({ checked: 1, verified: 1 });
    expect(result.text).not.toContain('By account');
    expect(result.text).not.toContain('Over time');
    expect(result.text).not.toContain('Calls per quarter');
    // A heading over a subheading with a body is not empty, nor is a bold lead-in with words after it.
    expect(result.text).toContain('## Findings\n### Counts');
    expect(result.text).toContain(`**In short:** the workspace holds **${n}** calls.`);
    const finished = checkOf(result.grounding.checks, 'finished');
    expect(finished).toMatchObject({ passed: false, removed: 2 });
    expect(finished?.detail).toContain('the section “By account” is empty');
    expect(finished?.detail).toContain('the section “Over time” is empty');
    expect(result.grounding.verified).toBe(false);
  });

  it('the renderer’s pass never shows a bold label over nothing, and leaves a bold sentence alone', () => {
    const tidied = tidyAnswer(
      ['Customers raise budget often.', '', '**Budget comes up most.**', '', '**By account**'].join('\n'),
      [],
    );
    expect(tidied.text).toBe('Customers raise budget often.\n\n**Budget comes up most.**');
    expect(tidied.unfinished).toEqual(['the section “By account” is empty']);
  });

  it('fails a total of 0 beside a quarter of its own breakdown that counts more, and removes the total', async () => {
    const calls = { field: 'kind', op: 'eq', value: 'call' };
    const inQ3 = await countOf(
      `select count(*)::int as n from interactions i where i.workspace_id = $1 and i.kind = 'call'
         and i.occurred_at >= $2::date and i.occurred_at < $3::date
         and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
      [...Q3],
    );
    const before1900 = await countOf(
      `select count(*)::int as n from interactions where workspace_id = $1 and kind = 'call' and occurred_at < '1900-01-01'`,
    );
    expect(inQ3).toBeGreaterThan(0);
    expect(before1900).toBe(0);
    const total = countMetric(
      'Calls',
      'interactions',
      [calls, { field: 'occurred_at', op: 'lt', value: '1900-01-01' }],
      0,
    );
    const part = countMetric(
      'Calls, the quarter from 2026-07-01',
      'interactions',
      [calls, { field: 'occurred_at', op: 'gte', value: Q3[0] }, { field: 'occurred_at', op: 'lt', value: Q3[1] }],
      inQ3,
    );
    const result = await verifyAnswer(draft('### Over time\nCalls per quarter (metrics below).', [total, part]), ctx);
    expect(result.grounding.metrics).toMatchObject({ checked: 2, verified: 2 });
    expect(result.content_blocks.filter((b) => b.kind === 'metric')).toEqual([part]);
    expect(checkOf(result.grounding.checks, 'finished')).toMatchObject({ passed: false, removed: 1 });
    expect(result.grounding.verified).toBe(false);
  });

  it('a question the data cannot answer: no “in their own words” or “the table” is left once every quote is off topic', async () => {
    const turns = await sql<Turn>(
      `select t.id, t.interaction_id, t.text, null as account from transcript_turns t
       where t.workspace_id = $1 and t.side = 'external' and t.text ~* '\\mpric' and length(t.text) between 40 and 200
       order by t.id limit 2`,
    );
    const text = [
      'What customers said about the weather on Mars, in their own words (buyers only; each quote carries its date):',
      '',
      ...turns.map((t) => `- A customer: “${t.text}”`),
      '',
      'The conversations they come from are in the table, newest first.',
    ].join('\n');
    const ids = turns.map((t) => t.interaction_id);
    const titles = await sql<{ title: string }>(
      `select title from interactions where workspace_id = $1 and id = any($2::uuid[])`,
      [ids],
    );
    const sources: BlockDraft = {
      kind: 'table',
      title: 'Conversations behind these quotes',
      columns: [{ key: 'title', label: 'Title' }],
      data: titles,
      query: { surface: 'interactions', filters: [{ field: 'id', op: 'in', value: ids }], limit: ids.length },
    };
    const result = await verifyAnswer(draft(text, [...turns.map(quote), sources]), {
      ...ctx,
      question: { text: 'What do customers say about the weather on Mars?', asked_at },
    });
    expect(result.grounding.quotes.off_topic).toBe(2);
    expect(result.text).not.toMatch(/in their own words|the table|they come from/);
    // The quotes were left out by design (the answer says so): the answer stays verified, and now holds nothing unfinished.
    expect(checkOf(result.grounding.checks, 'finished'), JSON.stringify(result.grounding.checks)).toMatchObject({
      passed: true,
    });
    expect(result.grounding.verified).toBe(true);
  });

  it('fails a value masked by letters (“XX%”, “$X,XXX”, “N accounts”) or a slot (“[Account Name]”, “<company>”)', async () => {
    const [acct] = await sql<{ name: string }>(
      `select name from accounts where workspace_id = $1 order by name limit 1`,
    );
    const real = [
      `## ${acct!.name}`,
      'They moved their books to Xero and asked about X-ray style tracing for their SaaS rollout.',
      'The X1 plan came up; see [the pricing page](https://example.com/pricing).',
      '| Account | Region |',
      '| --- | --- |',
      `| ${acct!.name} | N/A |`,
    ];
    const masked = [
      'Win rate held at XX% this quarter.',
      'The average deal is $X,XXX.',
      'We logged X,XXX conversations.',
      'Talk to [Account Name] before the renewal.',
      'A note from [Customer] on pricing.',
      'Send the recap to <company> by Friday.',
      'N accounts raised pricing.',
      'Across XX deals the champion changed.',
    ];
    for (const line of masked) {
      const result = await verifyAnswer(draft([...real, line].join('\n'), []), ctx);
      expect(result.text, line).toBe(real.join('\n'));
      expect(checkOf(result.grounding.checks, 'finished'), line).toMatchObject({ passed: false });
      expect(checkOf(result.grounding.checks, 'finished')?.detail, line).toContain('a placeholder');
      expect(result.grounding.verified, line).toBe(false);
    }
    const clean = await verifyAnswer(draft(real.join('\n'), []), ctx);
    expect(clean.text).toBe(real.join('\n'));
    expect(checkOf(clean.grounding.checks, 'finished')?.passed).toBe(true);
  });

  it('the renderer’s pass keeps a bracketed name the blocks hold and a quote’s own words, and takes a slot out', () => {
    const said = 'We need X seats by March, and N accounts is not a thing we track.';
    const quoteBlock: BlockDraft = {
      kind: 'quote',
      text: said,
      source: { interaction_id: CORPUS_WORKSPACE_ID, turn_id: null, speaker: null, occurred_at: null, account: 'Acme' },
      stance: 'supports',
    };
    const table: BlockDraft = {
      kind: 'table',
      title: 'Accounts',
      columns: [{ key: 'name', label: 'Account' }],
      data: [{ name: 'Acme Health' }],
      query: { surface: 'accounts', filters: [] },
    };
    const text = ['- [Acme Health] renews in March.', `- A buyer: “${said}”`, '- [Account Name] renews next.'].join(
      '\n',
    );
    const tidied = tidyAnswer(text, [quoteBlock, table]);
    expect(tidied.text).toBe(['- [Acme Health] renews in March.', `- A buyer: “${said}”`].join('\n'));
    expect(tidied.unfinished).toEqual(['a placeholder (“[Account Name]”) in “- [Account Name] renews next.”']);
  });

  it('fails a section or label whose only body says nothing (“N/A”, “—”, “(none)”, “Competitors: none.”), and keeps “None: …”', async () => {
    const report = [
      '## Summary',
      'Customers talk about pricing.',
      '',
      '### Risks',
      'N/A',
      '',
      '### Blockers',
      '—',
      '',
      '### Open questions',
      '(none)',
      '',
      '### Next steps',
      'Nothing to report.',
      '',
      '### Dependencies',
      'Not applicable.',
      '',
      '### No call, meeting or email in the last month',
      'None: every customer has a touch in the last month.',
      '',
      '### What this rests on',
      'Competitors: none.',
      '**Risks:** n/a',
      'Owners:',
      'None.',
      '',
      'The searches above.',
    ].join('\n');
    const result = await verifyAnswer(draft(report, []), ctx);
    expect(result.text).toBe(
      [
        '## Summary',
        'Customers talk about pricing.',
        '',
        '### No call, meeting or email in the last month',
        'None: every customer has a touch in the last month.',
        '',
        '### What this rests on',
        '',
        'The searches above.',
      ].join('\n'),
    );
    const finished = checkOf(result.grounding.checks, 'finished');
    expect(finished).toMatchObject({ passed: false });
    for (const name of ['Risks', 'Blockers', 'Open questions', 'Next steps', 'Dependencies', 'Competitors', 'Owners'])
      expect(finished?.detail, name).toContain(`the section “${name}”`);
    expect(result.grounding.verified).toBe(false);
    // Where nothing else is said, saying there is nothing is the answer.
    const alone = tidyAnswer('Competitors: none.', []);
    expect(alone.text).toBe('Competitors: none.');
    expect(alone.unfinished).toEqual([]);
  });

  it('fails a total of 0 beside a breakdown of the same thing that counts more, whatever the labels’ order', async () => {
    const calls = { field: 'kind', op: 'eq', value: 'call' };
    const before1900 = await countOf(
      `select count(*)::int as n from interactions where workspace_id = $1 and kind = 'call' and occurred_at < '1900-01-01'`,
    );
    const inQ3 = await countOf(
      `select count(*)::int as n from interactions i where i.workspace_id = $1 and i.kind = 'call'
         and i.occurred_at >= $2::date and i.occurred_at < $3::date
         and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
      [...Q3],
    );
    expect(before1900).toBe(0);
    expect(inQ3).toBeGreaterThan(0);
    const zero = (label: string) =>
      countMetric(label, 'interactions', [calls, { field: 'occurred_at', op: 'lt', value: '1900-01-01' }], before1900);
    const q3Calls = countMetric(
      'Q3 calls',
      'interactions',
      [calls, { field: 'occurred_at', op: 'gte', value: Q3[0] }, { field: 'occurred_at', op: 'lt', value: Q3[1] }],
      inQ3,
    );
    const byAccountQuery = {
      surface: 'interactions',
      filters: [calls],
      group_by: ['account_name'],
      metrics: [{ fn: 'count' }],
      order_by: { field: 'count', dir: 'desc' },
      limit: 3,
    };
    const grouped = await invoke('search.query', byAccountQuery);
    if (!grouped.ok) throw new Error(JSON.stringify(grouped.error));
    const rows = (grouped.output as { results: Record<string, unknown>[] }).results;
    // The first row's count, read here: that account's calls.
    const first = await countOf(
      `select count(*)::int as n from interactions i left join accounts a on a.id = i.account_id
       where i.workspace_id = $1 and i.kind = 'call' and a.name is not distinct from $2
         and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
      [rows[0]!.account_name ?? null],
    );
    expect(first).toBeGreaterThan(0);
    expect(Number(rows[0]!.count)).toBe(first);
    const byAccount: BlockDraft = {
      kind: 'table',
      title: 'Calls by account',
      columns: [
        { key: 'account_name', label: 'Account' },
        { key: 'count', label: 'Calls' },
      ],
      data: rows,
      query: byAccountQuery,
    };
    for (const [label, breakdown] of [
      ['Q3 calls', q3Calls],
      ['Calls by account', byAccount],
    ] as const) {
      const result = await verifyAnswer(
        draft('Calls, and where they were (blocks below).', [zero('Calls'), breakdown]),
        ctx,
      );
      expect(
        result.content_blocks.filter((b) => b.kind === 'metric' && b.label === 'Calls'),
        label,
      ).toEqual([]);
      expect(checkOf(result.grounding.checks, 'finished'), label).toMatchObject({ passed: false, removed: 1 });
      expect(checkOf(result.grounding.checks, 'finished')?.detail, label).toContain('is 0 beside');
      expect(result.grounding.verified, label).toBe(false);
    }
    // A 0 that names its own period stands beside a breakdown of another.
    const ofItsYear = zero('Calls before 1900');
    const stands = await verifyAnswer(draft('Calls before 1900, and in Q3 (blocks below).', [ofItsYear, q3Calls]), ctx);
    expect(stands.content_blocks.filter((b) => b.kind === 'metric')).toEqual([ofItsYear, q3Calls]);
    expect(checkOf(stands.grounding.checks, 'finished')?.passed).toBe(true);
  });
});
