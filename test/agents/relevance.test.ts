import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrate } from '../../bench/relevance-threshold.js';
import type { AnswerDraft, BlockDraft } from '../../functions/agents/answer.js';
import { verifyAnswer, type GroundingContext } from '../../functions/agents/grounding.js';
import { RELEVANCE_THRESHOLD, relevanceScore, topicOf } from '../../functions/agents/relevance.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness } from '../support/harness.js';

/** The same quote of the same turn (its labels are the warehouse's after the verifier, grounding-attribution.ts). */
const sameQuote = (b: BlockDraft) =>
  b.kind === 'quote'
    ? { kind: 'quote', text: b.text, source: { interaction_id: b.source.interaction_id, turn_id: b.source.turn_id } }
    : b;

/**
 * Relevance in the grounding verifier (functions/agents/relevance.ts): a verbatim quote about
 * something other than what was asked is left out, counted and said; a question with no topic
 * keeps everything. The quotes come from the demo corpus, found by independent SQL on their words.
 */

let h: Harness;
let ctx: GroundingContext;
const asked_at = CORPUS_NOW.toISOString();

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ctx = {
    db: h.database.db,
    workspaceId: CORPUS_WORKSPACE_ID,
    rerun: async () => ({ ok: false, error: { code: 'internal', message: 'no query in these answers' } }),
  };
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

/** A customer turn of the corpus whose text matches the pattern (case-insensitive), as a quote of all of it. */
async function quoteMatching(pattern: string, avoid = '^$'): Promise<BlockDraft> {
  const [turn] = await queryRows<{ id: string; interaction_id: string; text: string }>(
    h.database.db,
    sql`select id, interaction_id, text from transcript_turns
        where workspace_id = ${CORPUS_WORKSPACE_ID} and side = 'external' and text ~* ${pattern} and text !~* ${avoid}
          and length(text) < 200
        order by id limit 1`,
  );
  if (!turn) throw new Error(`no customer turn matches ${pattern}`);
  return {
    kind: 'quote',
    text: turn.text,
    source: { interaction_id: turn.interaction_id, turn_id: turn.id, speaker: null, occurred_at: null, account: null },
    stance: 'supports',
  };
}

const draftOf = (blocks: BlockDraft[], intro: string): AnswerDraft => ({
  text: [intro, ...blocks.flatMap((b) => (b.kind === 'quote' ? [`- “${b.text}”`] : []))].join('\n'),
  content_blocks: blocks,
  follow_ups: [],
});

describe('the topic of a question', () => {
  it('is its salient words, without the words a question is made of, periods or the names it mentions', () => {
    expect(topicOf('Which competitors come up most often?')?.label).toBe('competitors');
    expect(topicOf('What do customers say about mobile?')?.label).toBe('mobile');
    expect(topicOf('What did Acme Logistics say about pricing last quarter?', ['Acme Logistics'])?.label).toBe(
      'pricing',
    );
    expect(topicOf('List deals closing this quarter')).toBeNull();
    expect(topicOf('How many calls did we have in the last 30 days?')).toBeNull();
  });

  it('sets aside the same scaffolding the local model does (understanding/question-words.ts, one list)', () => {
    expect(topicOf('What are folks telling us about pricing?')?.label).toBe('pricing');
    expect(topicOf('What have buyers told us regarding onboarding?')?.label).toBe('onboarding');
    expect(topicOf('What do posts say about pricing?')?.label).toBe('pricing');
  });

  it('sets aside how a question about a meeting asks: the discussion, its presentation, its conclusion', () => {
    const topic = topicOf('What did the group discuss about connecting the TV to the internet?');
    expect(topic?.label).toBe('group connecting tv internet');
    expect(topicOf('Summarize the presentation on market trends.')?.label).toBe('market trends');
    expect(topicOf("What's the conclusion on the age group when discussing the target group?")?.label).toBe(
      'age group target group',
    );
    // An on-topic spoken turn is kept: it holds three of the subject's four words.
    expect(relevanceScore(topic!, 'how will you connect the TV to internet')).toBeGreaterThanOrEqual(
      RELEVANCE_THRESHOLD,
    );
  });
});

describe('a question and a quote that say one thing as an acronym and its words', () => {
  it.each([
    ['did anyone ask about MFA?', 'Every admin needs multi-factor authentication before we sign.'],
    ['what do buyers say about role-based access control?', 'RBAC is a hard requirement for us.'],
    ['any asks for an ERP connector?', 'Invoices have to land in our enterprise resource planning system.'],
  ])('%j holds %j', (question, quote) => {
    expect(relevanceScore(topicOf(question)!, quote)).toBeGreaterThanOrEqual(RELEVANCE_THRESHOLD);
  });

  it('but not letters that start words across clauses, or the letters in lower case', () => {
    const mfa = topicOf('did anyone ask about MFA?')!;
    expect(relevanceScore(mfa, 'Managers, finance, auditors all agree.')).toBeLessThan(RELEVANCE_THRESHOLD);
    const spelledOut = topicOf('what do buyers say about role-based access control?')!;
    expect(relevanceScore(spelledOut, 'the rbac thing is for later')).toBeLessThan(RELEVANCE_THRESHOLD);
  });
});

describe('quotes judged against the question', () => {
  it('leaves out a verbatim quote about something else, with its line of prose, and counts it', async () => {
    const price = await quoteMatching('\\mprice\\M', 'slack');
    const slack = await quoteMatching('\\mslack\\M', 'pric|cost|discount|budget');
    const result = await verifyAnswer(draftOf([price, slack], 'What customers said about pricing:'), {
      ...ctx,
      question: { text: 'What do customers say about pricing?', asked_at },
    });
    expect(result.grounding.quotes).toEqual({ checked: 2, verified: 1, removed: 0, off_topic: 1, relabeled: 1 });
    // True, only not an answer: the answer stays verified.
    expect(result.grounding.verified).toBe(true);
    const quotes = result.content_blocks.filter((b) => b.kind === 'quote');
    expect(quotes).toMatchObject([sameQuote(price)]);
    expect(result.text).toContain(price.kind === 'quote' ? price.text : '');
    expect(result.text).not.toContain(slack.kind === 'quote' ? slack.text : '');
    expect(result.grounding.problems.join(' ')).toMatch(/about something other than “pricing”/);
    const callouts = result.content_blocks.flatMap((b) => (b.kind === 'callout' ? [b.markdown] : []));
    // One on-topic quote is thin evidence, whatever the draft claimed; the left-out one is said.
    expect(callouts.some((m) => /^Thin evidence: only one quote is about “pricing”/.test(m))).toBe(true);
    expect(callouts.some((m) => /One quote was left out/.test(m))).toBe(true);
  });

  it('says out loud that nothing in the data mentions a topic none of the quotes is about', async () => {
    const blocks = [
      await quoteMatching('\\mprice\\M'),
      await quoteMatching('\\mslack\\M'),
      await quoteMatching('soc 2'),
    ];
    const result = await verifyAnswer(draftOf(blocks, 'What customers said about mobile:'), {
      ...ctx,
      question: { text: 'What do customers say about mobile?', asked_at },
    });
    expect(result.grounding.quotes.off_topic).toBe(3);
    expect(result.content_blocks.filter((b) => b.kind === 'quote')).toEqual([]);
    expect(result.text.startsWith('Nothing in the data mentions “mobile”')).toBe(true);
  });

  it('judges nothing when the question has no topic, or when no question is given', async () => {
    const blocks = [await quoteMatching('\\mprice\\M'), await quoteMatching('\\mslack\\M')];
    // No period either: a period the question names bounds quotes by date (grounding-period.ts), another check.
    for (const question of [{ text: 'list the open deals', asked_at }, undefined]) {
      const result = await verifyAnswer(draftOf(blocks, 'Quotes:'), { ...ctx, ...(question ? { question } : {}) });
      // Both kept as drafted, their labels (account and speaker left null in the draft) read from the warehouse.
      expect(result.grounding.quotes).toEqual({ checked: 2, verified: 2, removed: 0, off_topic: 0, relabeled: 2 });
      expect(result.content_blocks.map((b) => b.kind === 'quote' && [b.text, b.source.turn_id])).toEqual(
        blocks.map((b) => b.kind === 'quote' && [b.text, b.source.turn_id]),
      );
    }
  });

  it('does not take a mentioned account for the topic', async () => {
    const [account] = await queryRows<{ name: string }>(
      h.database.db,
      sql`select name from accounts where workspace_id = ${CORPUS_WORKSPACE_ID} and name ~ ' ' order by name limit 1`,
    );
    const price = await quoteMatching('\\mprice\\M');
    const result = await verifyAnswer(draftOf([price], 'Quotes:'), {
      ...ctx,
      question: { text: `What did ${account?.name} say about pricing?`, asked_at },
    });
    expect(result.grounding.quotes.off_topic).toBe(0);
  });
});

describe('the threshold', { timeout: 180_000 }, () => {
  it('is the one bench/relevance-threshold.ts calibrates on the corpus topic labels, and holds its precision and recall', () => {
    const { bestAllowed, chosen } = calibrate();
    expect(RELEVANCE_THRESHOLD).toBe(bestAllowed.threshold);
    // Lexical figures (see relevance.ts); a change that loses either is a regression.
    expect(chosen.precision).toBeGreaterThanOrEqual(0.55);
    expect(chosen.recall).toBeGreaterThanOrEqual(0.55);
  });
});
