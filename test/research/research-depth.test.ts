import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { interactions, runEvents, transcriptTurns } from '../../schema/index.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Research goes deeper than chat: the same question sent to POST /chat and to POST /research on the
 * demo corpus with the local model. The research job must cover strictly more — more searches, more
 * distinct accounts (a question about one account: only that account's, and more of its remarks),
 * never fewer distinct quoted turns — and come back as a sectioned report, every block of it still
 * passing the grounding verifier (so every quote kept is on the question's topic). The report states
 * its answer first, names sources that disagree, and breaks down by account and by quarter only where
 * the data has such a breakdown. Searches are counted from the runs' own events (SQL on run_events);
 * quotes, their accounts, the disagreeing figures and the per-quarter counts are read back with SQL
 * of this file.
 */

/** One question per shape the local policy reads: what customers say, deals, an account, activity. */
const QUESTIONS = [
  'Why do customers push back on pricing?',
  'What do security teams ask for during reviews?',
  'Which competitors come up in our calls, and what do buyers say about them?',
  'What do customers say about renewal pricing?',
  'Which deals over $50K are in negotiation?',
  'How many deals did we win?',
  'Brief me on Acme Logistics',
  'What did Acme Health say about pricing?',
  'How many calls did we have with Acme Logistics last month?',
  'What do customers want from reporting and dashboards?',
];

/** The questions about one account, named as the CRM names it: their reports stay with it. */
const ABOUT_ONE_ACCOUNT: Record<string, string> = {
  'Brief me on Acme Logistics': 'Acme Logistics',
  'What did Acme Health say about pricing?': 'Acme Health',
  'How many calls did we have with Acme Logistics last month?': 'Acme Logistics',
};

const SECTIONS = [
  '## Summary',
  '### Evidence by theme',
  '### Where the sources disagree',
  '### By account',
  '### Over time',
  '### Counts',
  '### What this rests on',
];

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const drain = () => (h.services.queue as LocalTransport).drain();

interface Coverage {
  accounts: Set<string>;
  /** Distinct quoted turns (an email: its interaction). */
  quotes: number;
  searches: number;
}

const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> =>
  (await h.pglite.client.query<T>(text, [CORPUS_WORKSPACE_ID, ...params])).rows;

type QuoteBlock = Extract<Answer['content_blocks'][number], { kind: 'quote' }>;
const quotesOf = (a: Answer) => a.content_blocks.filter((b): b is QuoteBlock => b.kind === 'quote');

/** The accounts of the quoted interactions, as SQL has them (null: on no account). */
async function quotedAccountsOf(answer: Answer): Promise<Map<string, string | null>> {
  const ids = [...new Set(quotesOf(answer).map((q) => q.source.interaction_id))];
  const rows = await sql<{ id: string; account: string | null }>(
    `select i.id, a.name as account from interactions i left join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and i.id = any($2::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.account]));
}

/** The body of a section of a report: from its heading to the next. */
function sectionOf(text: string, heading: string): string | null {
  const at = text.indexOf(`${heading}\n`);
  if (at < 0) return null;
  const rest = text.slice(at + heading.length + 1);
  const next = rest.search(/^#{2,3} /m);
  return next < 0 ? rest : rest.slice(0, next);
}

/** The interactions the report's evidence is, and the period bounding its counts: read from its counts metric's query. */
function evidenceOf(answer: Answer): { ids: string[]; from: string; to: string } | null {
  for (const b of answer.content_blocks) {
    if (b.kind !== 'metric' || b.column !== 'count' || !b.label.startsWith('Conversations behind the evidence'))
      continue;
    const filters = (b.query.filters ?? []) as { field: string; op: string; value: unknown }[];
    const ids = filters.find((f) => f.field === 'id' && f.op === 'in')?.value;
    const bound = (op: string) => filters.find((f) => f.field === 'occurred_at' && f.op === op)?.value as string;
    // The quarter metrics bound it too; the counts metric is the one without a quarter's label.
    if (/quarter/.test(b.label) || !Array.isArray(ids)) continue;
    return { ids: ids as string[], from: bound('gte') ?? '1900-01-01', to: bound('lt') ?? '2100-01-01' };
  }
  return null;
}

/** The last four quarters before the corpus's today (2026-11-20), oldest first. */
const QUARTERS = [
  ['2026-01-01', '2026-04-01'],
  ['2026-04-01', '2026-07-01'],
  ['2026-07-01', '2026-10-01'],
  ['2026-10-01', '2027-01-01'],
] as const;

/** Distinct accounts named by the answer's quotes and table cells, its quotes, and the run's searches. */
async function coverageOf(runId: string, answer: Answer): Promise<Coverage> {
  const accounts = new Set<string>();
  const quoted = new Set<string>();
  for (const block of answer.content_blocks) {
    if (block.kind === 'quote') {
      quoted.add(block.source.turn_id ?? block.source.interaction_id);
      if (block.source.account) accounts.add(block.source.account);
    }
    if (block.kind === 'table' && block.columns.some((c) => c.key === 'account_name'))
      for (const row of block.data) if (typeof row.account_name === 'string') accounts.add(row.account_name);
  }
  const events = await h.database.db
    .select({ data: runEvents.data })
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), eq(runEvents.type, 'tool.completed')));
  const searches = events.filter((e) => e.data.tool === 'search_query' && e.data.ok === true).length;
  return { accounts, quotes: quoted.size, searches };
}

async function expectVerbatim(answer: Answer): Promise<void> {
  for (const block of answer.content_blocks) {
    if (block.kind !== 'quote') continue;
    if (block.source.turn_id) {
      const [turn] = await h.database.db
        .select({ text: transcriptTurns.text, interactionId: transcriptTurns.interactionId })
        .from(transcriptTurns)
        .where(and(eq(transcriptTurns.id, block.source.turn_id), eq(transcriptTurns.workspaceId, CORPUS_WORKSPACE_ID)));
      expect(turn?.interactionId).toBe(block.source.interaction_id);
      expect(turn?.text).toContain(block.text);
    } else {
      const [email] = await h.database.db
        .select({ body: interactions.body })
        .from(interactions)
        .where(eq(interactions.id, block.source.interaction_id));
      expect(email?.body ?? '').toContain(block.text);
    }
  }
}

describe('research goes deeper than chat on the same question', () => {
  const totals = { chat: new Set<string>(), research: new Set<string>() };
  const moreQuotes: string[] = [];
  const disagreeing: string[] = [];

  it.each(QUESTIONS)(
    '%s',
    async (question) => {
      const chatStarted = await h.request('POST', '/chat', { key: ws.editor.key, body: { input: question } });
      const researchStarted = await h.request('POST', '/research', {
        key: ws.editor.key,
        body: { question, allow_questions: false },
      });
      expect(chatStarted.status, chatStarted.text).toBe(202);
      expect(researchStarted.status, researchStarted.text).toBe(202);
      await drain();
      const chatRun = (await h.request('GET', `/chat/runs/${chatStarted.body.data.run_id}`, { key: ws.viewer.key }))
        .body.data;
      const job = (await h.request('GET', `/research/${researchStarted.body.data.research_id}`, { key: ws.viewer.key }))
        .body.data;
      expect(chatRun.status).toBe('complete');
      expect(job.status).toBe('complete');
      const chat = await coverageOf(chatRun.run_id, chatRun.answer as Answer);
      const research = await coverageOf(job.research_id, job.answer as Answer);
      for (const a of chat.accounts) totals.chat.add(`${question}|${a}`);
      for (const a of research.accounts) totals.research.add(`${question}|${a}`);

      const counts = (c: Coverage) => ({ accounts: c.accounts.size, quotes: c.quotes, searches: c.searches });
      const detail = JSON.stringify({ chat: counts(chat), research: counts(research) });
      expect(research.searches, detail).toBeGreaterThan(chat.searches);
      const oneAccount = ABOUT_ONE_ACCOUNT[question];
      if (oneAccount) {
        // Deeper on the account asked about, not wider: every quote is that account's (SQL), and there are more.
        const accountsQuoted = new Set((await quotedAccountsOf(job.answer as Answer)).values());
        expect([...accountsQuoted], detail).toEqual([oneAccount]);
        expect(research.quotes, detail).toBeGreaterThan(chat.quotes);
      } else expect(research.accounts.size, detail).toBeGreaterThan(chat.accounts.size);
      // Never fewer quotes; more wherever the wider searches find customer remarks the chat answer did not show.
      expect(research.quotes, detail).toBeGreaterThanOrEqual(chat.quotes);
      if (research.quotes > chat.quotes) moreQuotes.push(question);
      else console.log(`no further quotes for: ${question} ${detail}`);
      // Deeper, not different: every account the chat answer named is in the report too.
      for (const a of chat.accounts) expect(research.accounts.has(a), `${a} missing from the report`).toBe(true);

      const answer = job.answer as Answer;
      // The summary and what it rests on always; each facet between them, in order, when it has something
      // to show (a section that would only say it found nothing is not rendered).
      for (const heading of [SECTIONS[0]!, SECTIONS.at(-1)!]) expect(answer.text, heading).toContain(heading);
      const order = SECTIONS.map((s) => answer.text.indexOf(s)).filter((at) => at >= 0);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(
        answer.grounding.checks.find((c) => c.name === 'finished')?.passed,
        JSON.stringify(answer.grounding.checks),
      ).toBe(true);
      expect(answer.grounding, JSON.stringify(answer.grounding)).toMatchObject({
        verified: true,
        numbers: { unverified: [] },
      });
      // The only problems allowed are quotes the relevance check left out as off the question's topic
      // (counted in quotes.off_topic): the wider searches still surface some, a known gap).
      const offTopic = answer.grounding.problems.filter((p) => p.includes('about something other than'));
      expect(answer.grounding.problems, JSON.stringify(answer.grounding)).toEqual(offTopic);
      expect(answer.grounding.quotes.off_topic).toBe(offTopic.length);
      await expectVerbatim(answer);
      expect(answer.content_blocks.some((b) => b.kind === 'metric')).toBe(true);
      await expectAnswerFirst(answer);
      await expectDisagreementsReal(answer);
      await expectBreakdownsOnlyWhereTheDataHasThem(answer, question);
      if (answer.text.includes('### Where the sources disagree')) disagreeing.push(question);
    },
    180_000,
  );

  it('names sources that disagree where the data has them: a buyer who asked for two different discounts', async () => {
    // The corpus holds such buyers (SQL): one account, two remarks, two different discount figures.
    const [pair] = await sql<{ account: string; n: number }>(
      `select a.name as account, count(distinct (regexp_match(t.text, '([0-9]+) percent discount'))[1])::int as n
       from transcript_turns t join interactions i on i.id = t.interaction_id join accounts a on a.id = i.account_id
       where t.workspace_id = $1 and t.side = 'external' and t.text ~ '[0-9]+ percent discount'
       group by a.name having count(distinct (regexp_match(t.text, '([0-9]+) percent discount'))[1]) > 1
       order by a.name limit 1`,
    );
    expect(pair?.n).toBeGreaterThan(1);
    expect(disagreeing, JSON.stringify(disagreeing)).toContain('Why do customers push back on pricing?');
  });

  it('quotes more than chat on at least eight of the questions, and names more accounts over the set', () => {
    // The demo corpus has little more to say on some topics (competitors: two distinct customer
    // sentences); the report then says the wider searches found nothing further.
    expect(moreQuotes.length, JSON.stringify(moreQuotes)).toBeGreaterThanOrEqual(8);
    expect(totals.research.size).toBeGreaterThan(totals.chat.size);
  });
});

/**
 * The summary states the answer first: its first paragraph holds a figure before any quote, and the
 * "In short" sentence's counts of conversations and accounts are those of the evidence (SQL).
 */
async function expectAnswerFirst(answer: Answer): Promise<void> {
  const summary = answer.text.slice(answer.text.indexOf('## Summary\n') + '## Summary\n'.length);
  const first = summary.trim().split('\n\n')[0] ?? '';
  expect(first, summary.slice(0, 300)).toMatch(/\*\*\$?\d/);
  for (const q of quotesOf(answer)) expect(first).not.toContain(q.text);
  const inShort =
    /^\*\*In short:\*\* .* It rests on \*\*(\d+)\*\* conversations?(?: with \*\*(\d+)\*\* accounts?)?/.exec(first);
  if (!inShort) return;
  const evidence = evidenceOf(answer);
  expect(evidence).not.toBeNull();
  const [truth] = await sql<{ n: number; accounts: number }>(
    `select count(*)::int as n, count(distinct a.name)::int as accounts
     from interactions i left join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and i.id = any($2::uuid[]) and i.occurred_at >= $3::date and i.occurred_at < $4::date
       and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
    [evidence!.ids, evidence!.from, evidence!.to],
  );
  expect(Number(inShort[1])).toBe(truth!.n);
  if (inShort[2]) expect(Number(inShort[2])).toBe(truth!.accounts);
}

/** Each disagreement named is two quotes of the report giving different figures, from one account (or, said so, two) by SQL. */
async function expectDisagreementsReal(answer: Answer): Promise<void> {
  const section = sectionOf(answer.text, '### Where the sources disagree');
  if (section === null) return;
  const accounts = await quotedAccountsOf(answer);
  const quotes = quotesOf(answer);
  const bullets = section.split('\n').filter((l) => l.startsWith('- '));
  expect(bullets.length).toBeGreaterThan(0);
  for (const line of bullets) {
    const quoted = [...line.matchAll(/“([^”]+)”/g)].map((m) => m[1]!);
    expect(quoted).toHaveLength(2);
    const [a, b] = quoted.map((text) => quotes.find((q) => q.text === text && q.stance === 'contradicts'));
    expect(a && b, line).toBeTruthy();
    const figure = (t: string) => /(\$?\d[\d,]*)\s*(?:percent|%|per seat|people|reps|seats|users)/.exec(t)?.[1];
    expect(figure(a!.text), line).toBeDefined();
    expect(figure(a!.text), line).not.toBe(figure(b!.text));
    const [accountA, accountB] = [accounts.get(a!.source.interaction_id), accounts.get(b!.source.interaction_id)];
    if (line.startsWith('- Buyers at different accounts')) expect(accountA).not.toBe(accountB);
    else {
      expect(accountA, line).toBe(accountB);
      expect(line).toContain(`**${accountA}**`);
    }
  }
}

/**
 * A breakdown only where the data has one: "By account" only when the quotes come from two accounts
 * or more (SQL), "Over time" only when two quarters or more hold some of the evidence (SQL over the
 * evidence's own interactions; for deals, the quarter metrics the verifier re-ran).
 */
async function expectBreakdownsOnlyWhereTheDataHasThem(answer: Answer, question: string): Promise<void> {
  const quotedAccounts = new Set([...(await quotedAccountsOf(answer)).values()].filter((a) => a !== null));
  const byAccount = answer.text.includes('### By account');
  if (quotesOf(answer).length > 0 && quotedAccounts.size <= 1) expect(byAccount, question).toBe(false);
  if (byAccount) {
    const table = answer.content_blocks.find((b) => b.kind === 'table' && / by account$/.test(b.title ?? ''));
    const named = new Set(
      (table?.kind === 'table' ? table.data : []).map((r) => r.account_name).filter((n) => typeof n === 'string'),
    );
    expect(named.size, question).toBeGreaterThan(1);
  }
  const overTime = answer.text.includes('### Over time');
  const ids = evidenceOf(answer)?.ids;
  if (ids) {
    const perQuarter = await Promise.all(
      QUARTERS.map(async ([from, to]) => {
        const [row] = await sql<{ n: number }>(
          `select count(*)::int as n from interactions i where i.workspace_id = $1 and i.id = any($2::uuid[])
             and i.occurred_at >= $3::date and i.occurred_at < $4::date
             and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
          [ids, from, to],
        );
        return row?.n ?? 0;
      }),
    );
    expect(overTime, `${question}: ${perQuarter.join(', ')}`).toBe(perQuarter.filter((n) => n > 0).length > 1);
  } else if (overTime) {
    const quarters = answer.content_blocks.filter(
      (b) => b.kind === 'metric' && /created, (?:the quarter from|this quarter)/.test(b.label),
    );
    expect(quarters.filter((b) => b.kind === 'metric' && Number(b.value) > 0).length, question).toBeGreaterThan(1);
  }
}

describe('choosing another library agent changes what the local model does', () => {
  const ask = async (input: string, agent: string) => {
    const started = await h.request('POST', '/chat', { key: ws.editor.key, body: { input, agent } });
    expect(started.status, started.text).toBe(202);
    await drain();
    const run = (await h.request('GET', `/chat/runs/${started.body.data.run_id}`, { key: ws.viewer.key })).body.data;
    expect(run.status).toBe('complete');
    expect(run.answer.grounding).toMatchObject({ verified: true, numbers: { unverified: [] } });
    return run.answer as Answer;
  };

  it('call prep briefs on the account a question names; the researcher answers the narrow question', async () => {
    const question = 'What did Acme Health say about pricing?';
    const researcher = await ask(question, 'researcher');
    const prep = await ask(question, 'call-prep');
    expect(researcher.text).not.toContain('### Where things stand with');
    expect(prep.text).toContain('### Where things stand with Acme Health');
    expect(prep.text).toContain('### Open deals');
  }, 180_000);

  it('deal review adds the pipeline facets and qualification gaps to a deal question', async () => {
    const question = 'Which open deals are in the proposal stage?';
    const researcher = await ask(question, 'researcher');
    const review = await ask(question, 'deal-review');
    expect(researcher.text).not.toContain('### Qualification gaps');
    expect(review.text).toContain('### Qualification gaps');
    const tables = (a: Answer) => a.content_blocks.filter((b) => b.kind === 'table').length;
    expect(tables(review)).toBeGreaterThan(tables(researcher));
  }, 180_000);

  it('voice of the customer groups wider evidence by theme', async () => {
    const question = 'Why do customers push back on pricing?';
    const researcher = await ask(question, 'researcher');
    const voice = await ask(question, 'voice-of-customer');
    expect(researcher.text).not.toContain('### Evidence by theme');
    expect(voice.text).toContain('### Evidence by theme');
    const quotes = (a: Answer) => a.content_blocks.filter((b) => b.kind === 'quote').length;
    expect(quotes(voice)).toBeGreaterThan(quotes(researcher));
  }, 180_000);
});
