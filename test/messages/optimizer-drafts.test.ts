import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { OPTIMIZER_DRAFTS, type OptimizerDraft } from './optimizer-drafts.js';

/**
 * POST /messages/optimize never damages a draft, on 36 drafts of every kind (thank-you notes and recaps among them).
 * Every check here is written independently of the optimizer's code: its own sentence splitter,
 * its own idea of an ask, the facts listed by hand in the fixture, the rounds read back from the
 * run row with SQL.
 */
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('Optimizer drafts');
}, 300_000);
afterAll(async () => h.close());

/** Body sentences: no subject line; split after . ! ? only where whitespace follows (so 99.95% stays whole). */
function bodySentences(message: string): string[] {
  const body = message.replace(/^\s*subject:[^\n]*\n/i, '');
  return body
    .split(/\n\s*\n/)
    .flatMap((block) => block.replace(/\s*\n\s*/g, ' ').split(/(?<=[.!?])\s+(?=\S)/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const GREETING_OR_SIGNOFF =
  /^((hi|hello|hey|dear)\b.{0,40},?$|(thanks|thank you|best|regards|best regards|cheers|yours faithfully)\b.{0,30}$|[A-Z][a-z]+$)/i;
const ENDS_OPEN =
  /\b(is|are|was|were|be|the|a|an|our|your|their|its|my|to|of|for|with|and|or|but|at|in|on|by|from|that|very|will|would|can)[.!?]$/i;

/** Why a sentence the optimizer wrote is not complete, or null. */
function incomplete(sentence: string): string | null {
  if (GREETING_OR_SIGNOFF.test(sentence)) return null;
  if (!/[.!?]["”’)]?$/.test(sentence)) return 'no terminal punctuation';
  const words = sentence.match(/[A-Za-z0-9][\w'’%.,$-]*/g) ?? [];
  if (words.length < 3 && !sentence.endsWith('?')) return 'fewer than three words';
  if (ENDS_OPEN.test(sentence)) return 'ends on a word that needs another';
  return null;
}

/** An ask: a question, or a sentence that requests something in so many words. */
const isAsk = (sentence: string): boolean =>
  sentence.endsWith('?') ||
  /\b(let me know|would love to|i'd love to|could you|can you|please (send|share|reply)|happy to chat|walk you through)\b/i.test(
    sentence,
  );

const optimize = (draft: OptimizerDraft) =>
  h.request('POST', '/messages/optimize', {
    key: ws.editor.key,
    body: { message: draft.message, ...(draft.channel ? { channel: draft.channel } : {}) },
  });

interface RecordedRound {
  round: number;
  message: string;
  score: number | null;
  excluded: string | null;
}

async function roundsOf(runId: string): Promise<RecordedRound[]> {
  const rows = await h.pglite.client.query<{ rounds: RecordedRound[] }>(
    `select outputs->'result'->'rounds' as rounds from runs where id = $1 and workspace_id = $2`,
    [runId, ws.id],
  );
  return rows.rows[0]?.rounds ?? [];
}

describe('the optimizer never damages a draft', () => {
  it('has at least 30 drafts of every kind to try', () => {
    expect(OPTIMIZER_DRAFTS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(OPTIMIZER_DRAFTS.map((d) => d.id)).size).toBe(OPTIMIZER_DRAFTS.length);
  });

  for (const draft of OPTIMIZER_DRAFTS) {
    it(`keeps "${draft.id}" whole: complete sentences, the writer's facts and ask, honest rounds`, async () => {
      const res = await optimize(draft);
      expect(res.status, res.text).toBe(200);
      const data = res.body.data as { ok: boolean; message: string; unchanged: boolean; run_id: string };
      expect(data.ok).toBe(true);
      const out = data.message;

      // Every sentence the optimizer wrote (not one the writer wrote as it stands) is complete.
      const written = new Set(bodySentences(draft.message));
      for (const sentence of bodySentences(out)) {
        if (written.has(sentence)) continue;
        expect(incomplete(sentence), `"${sentence}" in ${draft.id}`).toBeNull();
      }
      // The facts the writer gave are all still there, as written.
      for (const fact of draft.facts) expect(out, `${draft.id} lost "${fact}"`).toContain(fact);
      // The writer's own ask is kept; there is at most one ask (or no more than the draft had).
      if (draft.ownAsk) expect(out).toContain(draft.ownAsk);
      const asksBefore = bodySentences(draft.message).filter(isAsk).length;
      expect(bodySentences(out).filter(isAsk).length).toBeLessThanOrEqual(Math.max(1, asksBefore));
      // A note without an ask of its own does not come back with a generic one.
      if (asksBefore === 0 && draft.channel === 'whatsapp') expect(out).not.toMatch(/15-minute call/);
      // A thank-you or a recap asks for nothing on purpose, and gains no ask.
      if (draft.noAsk) expect(bodySentences(out).filter(isAsk), `${draft.id} gained an ask`).toEqual([]);

      // Up to three rounds ran, each graded, recorded on the run.
      const rounds = await roundsOf(data.run_id);
      expect(rounds[0]).toMatchObject({ round: 0, message: draft.message });
      expect(rounds.length - 1).toBeGreaterThanOrEqual(1);
      expect(rounds.length - 1).toBeLessThanOrEqual(3);
      for (const r of rounds) {
        if (r.excluded === 'could not be graded') continue;
        expect(typeof r.score, `round ${r.round} of ${draft.id}`).toBe('number');
      }
      // unchanged is honest: the draft itself when nothing beat it, else a round that scored higher.
      const submitted = rounds[0]?.score as number;
      if (data.unchanged) {
        expect(out).toBe(draft.message);
        for (const r of rounds.slice(1))
          if (r.excluded === null && r.score !== null) expect(r.score).toBeLessThanOrEqual(submitted);
      } else {
        const chosen = rounds.find((r) => r.round > 0 && r.message === out && r.excluded === null);
        expect(chosen, `${draft.id}: the returned text is a graded round`).toBeDefined();
        expect(chosen?.score as number).toBeGreaterThan(submitted);
      }
    });
  }
});
