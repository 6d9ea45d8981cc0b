import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { allOperations } from '../../functions/modules.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { interactions, transcriptTurns } from '../../schema/index.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { openToolRecorder } from '../support/tool-recording.js';
import { corpusClock } from './question-set/ask.js';

/**
 * The embedded default end to end: questions a sales team asks, through POST /chat, answered by the
 * local deterministic model on the demo corpus. Every answer must be grounded: every quote verbatim
 * in its turn of this workspace, every table and metric re-running to the same cells (the verifier
 * re-runs them before the answer is committed), every number in the prose backed by a cell. The runs
 * are asked on the corpus's day, so their tool calls are the same every day and replay from
 * recordings/demo-questions.json (test/support/tool-recording.ts).
 */

const QUESTIONS = [
  'prep me for my call with Acme Logistics',
  'brief me on Tidewater Logistics',
  "what's going on with Keystone Health?",
  'why do customers push back on pricing?',
  'what do customers say about onboarding and training?',
  'what are customers saying about SSO and SAML?',
  'which deals over $50K are in negotiation?',
  'which open deals are in the proposal stage?',
  'how many deals did we win?',
  'what is the total amount of deals in negotiation?',
  'what did Tidewater Logistics say about security last quarter?',
  'what did Acme Health say about pricing?',
  'how many calls did we have with Acme Logistics last month?',
  'how many emails did we exchange with Bramble Logistics?',
  'what are the top objections in renewals?',
  'is anyone worried about our champion leaving?',
  'what do customers say about data residency in the EU?',
  'which competitors come up in our calls?',
  'what did customers say about the Salesforce integration?',
  'show me recent calls about reliability and outages',
];

const recorder = openToolRecorder(join(import.meta.dirname, 'recordings', 'demo-questions.json'));
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({
    database: await openCorpusDatabase(),
    clock: corpusClock,
    operations: recorder.wrap(allOperations),
  });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  recorder.save();
  await h.close();
  await h.database.close();
});

async function ask(input: string): Promise<{ status: string; answer: Answer }> {
  const run = await recorder.asking(input, async () => {
    const res = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
    expect(res.status, res.text).toBe(202);
    await (h.services.queue as LocalTransport).drain();
    return (await h.request('GET', `/chat/runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data;
  });
  recorder.assertNoMisses();
  return { status: run.status, answer: run.answer };
}

describe('demo questions through the local model', () => {
  const answers = new Map<string, Answer>();

  it.each(QUESTIONS)('answers %j, grounded', async (question) => {
    const { status, answer } = await ask(question);
    expect(status).toBe('complete');
    answers.set(question, answer);
    expect(answer.text.length).toBeGreaterThan(40);
    expect(answer.grounding, JSON.stringify(answer.grounding)).toMatchObject({
      verified: true,
      numbers: { unverified: [] },
    });
    expect(answer.grounding.quotes.removed + answer.grounding.tables.removed + answer.grounding.metrics.removed).toBe(
      0,
    );
    // Independently of the verifier: every quote is verbatim in its turn of this workspace.
    for (const block of answer.content_blocks) {
      if (block.kind !== 'quote') continue;
      const { interaction_id, turn_id } = block.source;
      if (turn_id) {
        const [turn] = await h.database.db
          .select({ text: transcriptTurns.text, interactionId: transcriptTurns.interactionId })
          .from(transcriptTurns)
          .where(and(eq(transcriptTurns.id, turn_id), eq(transcriptTurns.workspaceId, CORPUS_WORKSPACE_ID)));
        expect(turn?.interactionId).toBe(interaction_id);
        expect(turn?.text).toContain(block.text);
      } else {
        const [email] = await h.database.db
          .select({ body: interactions.body })
          .from(interactions)
          .where(eq(interactions.id, interaction_id));
        expect(email?.body ?? '').toContain(block.text);
      }
    }
  });

  it('answers the four reference questions with the evidence each calls for', () => {
    const kinds = (q: string) => new Set(answers.get(q)?.content_blocks.map((b) => b.kind));
    expect([...kinds('prep me for my call with Acme Logistics')]).toEqual(expect.arrayContaining(['table']));
    expect([...kinds('why do customers push back on pricing?')]).toContain('quote');
    const deals = answers.get('which deals over $50K are in negotiation?')!;
    const table = deals.content_blocks.find((b) => b.kind === 'table');
    expect(table).toBeDefined();
    if (table?.kind === 'table') for (const row of table.data) expect(Number(row.amount)).toBeGreaterThan(50_000);
    expect(answers.get('what did Tidewater Logistics say about security last quarter?')!.text).toMatch(
      /Tidewater Logistics/,
    );
  });
});
