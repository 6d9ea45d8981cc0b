import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { interactions, runEvents, transcriptTurns } from '../../schema/index.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Research goes deeper than chat (issue 22, item 7): the same question sent to POST /chat and to
 * POST /research on the demo corpus with the local model. The research job must cover strictly
 * more — more distinct accounts, more quotes, more searches — and come back as a sectioned report,
 * every block of it still passing the grounding verifier. Searches are counted from the runs'
 * own events (SQL on run_events), accounts and quotes from the answers' blocks; quotes are re-read
 * from the transcripts here.
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

const SECTIONS = [
  '## Summary',
  '### Evidence by theme',
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
  quotes: number;
  searches: number;
}

/** Distinct accounts named by the answer's quotes and table cells, its quotes, and the run's searches. */
async function coverageOf(runId: string, answer: Answer): Promise<Coverage> {
  const accounts = new Set<string>();
  let quotes = 0;
  for (const block of answer.content_blocks) {
    if (block.kind === 'quote') {
      quotes++;
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
  return { accounts, quotes, searches };
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
      expect(research.accounts.size, detail).toBeGreaterThan(chat.accounts.size);
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
      // (counted in quotes.off_topic): the wider searches still surface some (a known gap, issue 22).
      const offTopic = answer.grounding.problems.filter((p) => p.includes('about something other than'));
      expect(answer.grounding.problems, JSON.stringify(answer.grounding)).toEqual(offTopic);
      expect(answer.grounding.quotes.off_topic).toBe(offTopic.length);
      await expectVerbatim(answer);
      expect(answer.content_blocks.some((b) => b.kind === 'metric')).toBe(true);
    },
    180_000,
  );

  it('quotes more than chat on at least eight of the questions, and names more accounts over the set', () => {
    // The demo corpus has little more to say on some topics (competitors: two distinct customer
    // sentences); the report then says the wider searches found nothing further.
    expect(moreQuotes.length, JSON.stringify(moreQuotes)).toBeGreaterThanOrEqual(8);
    expect(totals.research.size).toBeGreaterThan(totals.chat.size);
  });
});

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
