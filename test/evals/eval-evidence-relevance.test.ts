import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Eval evidence is on topic: the quotes an eval grades against pass the same
 * relevance check as an answer's, the ones left out are counted in the report card's evidence, and
 * retrieval reads deep enough that a topic the customers talk about often still finds its floor of
 * quotes. Whether a quote is on the topic is read here from its turn in the database, by words a
 * reader would accept for the topic, not by the relevance code under test.
 */
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

const ONBOARDING_EMAIL =
  'Subject: Onboarding in weeks, not months\n\nHi Dana,\n\nTeams like yours told us onboarding took 3 months and the setup needed too many manual steps. Our rollout for a 200-seat team took 3 weeks with a guided import.\n\nWould a 15-minute call next Tuesday be useful to see if that fits your timeline?\n\nBest, Sam';
/** Words a reader takes as being about onboarding, rollout and adoption (the email's subject). */
const ONBOARDING =
  /onboard|train|implement|rollout|roll (this |it )?out|go-live|go live|kickoff|migrat|set ?up|launch|adoption|ramp|import|weeks|months|timeline|manual/i;

const WATCH_NOTE =
  'Subject: Smartwatch app\n\nHi Dana,\n\nOur smartwatch app is out for iPhone and Android.\n\nBest, Sam';
/** The corpus's customer side on phones and watches: nothing, checked below by SQL. */
const WATCH = /iphone|android|smartwatch|mobile/i;

async function evaluate(message: string, scope?: Record<string, unknown>) {
  const res = await h.request('POST', '/evals/run', {
    key: ws.editor.key,
    body: { inputs: { message, artifact_type: 'email' }, ...(scope ? { scope } : {}) },
  });
  expect(res.status, res.text).toBe(202);
  await (h.services.queue as LocalTransport).drain();
  const read = await h.request('GET', `/eval-runs/${res.body.data.run_id}`, { key: ws.viewer.key });
  expect(read.status).toBe(200);
  const evidence = (await h.request('GET', `/eval-runs/${res.body.data.run_id}/evidence`, { key: ws.viewer.key })).body
    .data.evidence;
  return {
    verdict: read.body.data.run.verdict,
    quotes: evidence.quotes as { text: string; source: { turn_id: string } }[],
  };
}

async function turnTexts(ids: string[]): Promise<Map<string, string>> {
  const rows = await queryRows<{ id: string; text: string }>(
    h.database.db,
    sql`select id, text from transcript_turns where workspace_id = ${ws.id} and id in ${ids}`,
  );
  return new Map(rows.map((r) => [r.id, r.text]));
}

describe('eval evidence', () => {
  it('grades an email whose topic customers raise often against quotes about that topic, counting those left out', async () => {
    const { verdict, quotes } = await evaluate(ONBOARDING_EMAIL);
    expect(verdict.verdict).not.toBe('abstain');
    expect(verdict.evidence).toMatchObject({ retrieval_status: 'ok', off_topic: expect.any(Number) });
    expect(quotes.length).toBeGreaterThanOrEqual(3);
    const turns = await turnTexts(quotes.map((q) => q.source.turn_id));
    for (const q of quotes) {
      const turn = turns.get(q.source.turn_id) ?? '';
      expect(turn.replace(/\s+/g, ' '), 'verbatim').toContain(q.text.replace(/\s+/g, ' '));
      expect(q.text, 'on the email topic').toMatch(ONBOARDING);
    }
    // Statements found by meaning but about something else are left out, and the report says how many.
    expect(verdict.evidence.off_topic).toBeGreaterThan(0);
    expect(verdict.evidence.notes.join(' ')).toContain(`${verdict.evidence.off_topic} of the`);
  });

  it('abstains on an email whose topic customers barely touch, and counts what it left out', async () => {
    const [said] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from transcript_turns where workspace_id = ${ws.id} and side = 'external' and text ~* ${WATCH.source}`,
    );
    expect(said?.n).toBe(0);
    const { verdict, quotes } = await evaluate(WATCH_NOTE);
    expect(verdict).toMatchObject({
      verdict: 'abstain',
      overall_score: null,
      evidence: { retrieval_status: expect.stringMatching(/^(none|thin)$/), abstain_reason: expect.any(String) },
    });
    expect(verdict.evidence.off_topic).toBeGreaterThan(0);
    // What little is quoted is about the app (customers never name a phone or a watch).
    for (const q of quotes) expect(q.text).toMatch(/\bapps?\b/i);
    const allowed = await evaluate(WATCH_NOTE, { allow_thin_evidence: true });
    expect(allowed.verdict.verdict).not.toBe('abstain');
  });
});
