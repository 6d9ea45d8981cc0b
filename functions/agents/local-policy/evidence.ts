import { contentWords, stemWord } from '../../../platform/model/local.js';
import { isSalient } from '../relevance.js';
import type { BlockDraft } from '../answer.js';

/**
 * Turning search rows into checkable evidence: verbatim quotes cut from transcript turns at
 * sentence boundaries (never rephrased), and table blocks whose rows are exactly the rows their
 * query returned.
 */

type Row = Record<string, unknown>;
type QuoteBlock = Extract<BlockDraft, { kind: 'quote' }>;
type TableBlock = Extract<BlockDraft, { kind: 'table' }>;

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** Sentences of a turn, each an exact substring of it. */
export function sentencesOf(text: string): string[] {
  return (text.match(/[^.!?]+[.!?]+["”’)]*|[^.!?]+$/g) ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
}

const stems = (text: string): Set<string> => new Set((text.toLowerCase().match(/[a-z][a-z'-]+/g) ?? []).map(stemWord));

/**
 * The one or two consecutive sentences of a turn that say most about the topic (by shared word
 * stems), as one verbatim substring; the first sentence when none shares a word.
 */
export function bestExcerpt(text: string, topic: string): string {
  const sentences = sentencesOf(text);
  if (sentences.length === 0) return text.trim();
  const wanted = stems(topic);
  const score = (s: string) => [...stems(s)].filter((w) => wanted.has(w)).length;
  let best = 0;
  sentences.forEach((s, i) => {
    if (score(s) > score(sentences[best]!)) best = i;
  });
  const first = sentences[best]!;
  const next = sentences[best + 1];
  // Two sentences when the first is short and the pair is still a verbatim run of the turn.
  if (next && first.length < 90) {
    const start = text.indexOf(first);
    const nextAt = start >= 0 ? text.indexOf(next, start + first.length) : -1;
    const pair = nextAt >= 0 ? text.slice(start, nextAt + next.length).trim() : '';
    if (pair && pair.length <= 400) return pair;
  }
  return first;
}

export interface QuoteCandidate {
  interactionId: string;
  /** The quoted turn; for an email, the interaction's id (its body is the quoted text: `email` is true). */
  turnId: string;
  email?: boolean;
  speaker: string | null;
  /** The speaker's side of the conversation; null for an email. */
  side: 'external' | 'internal' | null;
  occurredAt: string | null;
  account: string | null;
  /** The deal the interaction is linked to, when it is. */
  deal: string | null;
  text: string;
}

/**
 * The one place a quote candidate is attributed: from the warehouse row its words came from. Every
 * search lane's row names the interaction's account and deal (`account_name`, `deal_name`: the fuzzy
 * lane's interaction rows and the semantic lane's turn rows alike) and its date; the turn names its
 * speaker and side. A candidate therefore never needs a second lookup to say whose words it quotes,
 * and the prose and the block say the same.
 */
export function attributed(
  interaction: Row,
  quoted: { turnId: string; speaker: unknown; side: unknown; text: string; email?: boolean },
): QuoteCandidate {
  const side = quoted.side === 'external' || quoted.side === 'internal' ? quoted.side : null;
  return {
    interactionId: String(interaction.interaction_id ?? interaction.id),
    turnId: quoted.turnId,
    ...(quoted.email ? { email: true } : {}),
    speaker: str(quoted.speaker),
    side,
    occurredAt: str(interaction.occurred_at),
    account: str(interaction.account_name),
    deal: str(interaction.deal_name),
    text: quoted.text,
  };
}

export function quoteBlock(c: QuoteCandidate, topic: string, stance: QuoteBlock['stance'] = 'supports'): QuoteBlock {
  return {
    kind: 'quote',
    text: bestExcerpt(c.text, topic),
    source: {
      interaction_id: c.interactionId,
      turn_id: c.email ? null : c.turnId,
      speaker: c.speaker,
      occurred_at: c.occurredAt,
      account: c.account,
      deal: c.deal,
      side: c.side,
    },
    stance,
  };
}

/** Two statements say the same thing when most of the shorter one's topical word stems are in the other. */
const SAME_STATEMENT = 0.6;
export function sameStatement(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const smaller = a.size <= b.size ? a : b;
  const larger = smaller === a ? b : a;
  if (smaller.size === 0) return larger.size === 0;
  let shared = 0;
  for (const stem of smaller) if (larger.has(stem)) shared++;
  return shared / smaller.size >= SAME_STATEMENT;
}

/**
 * The candidates whose quoted excerpts say different things, in their order: the same sentence
 * said by six buyers with six openers ("Candidly, ...", "Look, ...") is one statement, and an answer
 * quoting it six times hides everything else they said about the topic.
 */
export function distinctStatements(candidates: readonly QuoteCandidate[], topic: string): QuoteCandidate[] {
  const kept: Set<string>[] = [];
  return candidates.filter((c) => {
    const stems = new Set(contentWords(bestExcerpt(c.text, topic)).map(stemWord));
    if (kept.some((other) => sameStatement(stems, other))) return false;
    kept.push(stems);
    return true;
  });
}

/** Customer-side turns matched by a fuzzy search, most relevant interaction first, one per interaction. */
export function externalTurnsOf(rows: readonly Row[], limit: number): QuoteCandidate[] {
  const out: QuoteCandidate[] = [];
  for (const row of rows) {
    const turns = Array.isArray(row.matching_turns) ? (row.matching_turns as Row[]) : [];
    const turn = turns.find((t) => t.side === 'external' && str(t.turn_id) && str(t.text));
    if (!turn) continue;
    out.push(
      attributed(row, {
        turnId: String(turn.turn_id),
        speaker: turn.speaker_name,
        side: turn.side,
        text: String(turn.text),
      }),
    );
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * Everything the customer side said in fuzzy-matched rows that names the topic: every external
 * matching turn of a call or meeting (not only the first, which may have matched on the account's
 * name alone) and the body of an email the customer wrote (inbound), in the search's rank order.
 */
export function customerSaidOf(rows: readonly Row[], namesTopic: (text: string) => boolean): QuoteCandidate[] {
  const out: QuoteCandidate[] = [];
  for (const row of rows) {
    const body = str(row.body);
    if (row.kind === 'email') {
      if (row.direction === 'inbound' && body && namesTopic(body))
        out.push(attributed(row, { turnId: String(row.id), email: true, speaker: null, side: null, text: body }));
      continue;
    }
    const turns = Array.isArray(row.matching_turns) ? (row.matching_turns as Row[]) : [];
    for (const t of turns) {
      const text = str(t.text);
      if (t.side !== 'external' || !str(t.turn_id) || !text || !namesTopic(text)) continue;
      out.push(attributed(row, { turnId: String(t.turn_id), speaker: t.speaker_name, side: t.side, text }));
    }
  }
  return out;
}

/** Hydrated semantic rows (one per turn, each naming its interaction's account and deal), distinct texts. */
export function semanticTurnsOf(rows: readonly Row[], limit: number): QuoteCandidate[] {
  const seen = new Set<string>();
  const out: QuoteCandidate[] = [];
  for (const row of rows) {
    const text = str(row.text);
    if (!text || row.side !== 'external' || !str(row.id) || !str(row.interaction_id)) continue;
    // The semantic mirror ignores exclusions (spec) and says so per row; an answer does not quote an
    // interaction the workspace excluded from search (the filter lane would not even name its account).
    if (row.interaction_excluded === true) continue;
    const key = text.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(attributed(row, { turnId: String(row.id), speaker: row.speaker, side: row.side, text }));
    if (out.length >= limit) break;
  }
  return out;
}

/** A table of rows exactly as the query returned them, on the given columns. */
export function tableBlock(
  title: string,
  columns: [key: string, label: string][],
  rows: readonly Row[],
  query: Record<string, unknown>,
): TableBlock {
  return {
    kind: 'table',
    title,
    columns: columns.map(([key, label]) => ({ key, label })),
    data: rows.map((r) => Object.fromEntries(columns.map(([key]) => [key, r[key] ?? null]))),
    query,
  };
}

/** "$80,800" for an amount cell (the verifier reads it back as 80800). */
export const money = (value: unknown): string | null =>
  typeof value === 'number' ? `$${Math.round(value).toLocaleString('en-US')}` : null;

/** "2026-11-20" from a timestamp cell (its digits are the cell's own). */
export const day = (value: unknown): string | null =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;

/** Words that recur across quotes (stems shared by at least two), for a plain summary line. */
export function recurringWords(texts: readonly string[], topic: string, max = 5): string[] {
  const skip = stems(
    `${topic} the and that this with have will would could should about they them their there what when your been just really also very much more some like know think going want need`,
  );
  const counts = new Map<string, { n: number; word: string }>();
  for (const text of texts) {
    const seen = new Set<string>();
    for (const word of text.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? []) {
      const stem = stemWord(word);
      // Words common everywhere ("before", "thing") come back in any two quotes and say nothing.
      if (skip.has(stem) || seen.has(stem) || !isSalient(stem)) continue;
      seen.add(stem);
      const entry = counts.get(stem) ?? { n: 0, word };
      entry.n++;
      counts.set(stem, entry);
    }
  }
  // A word is "coming back" when at least half the quotes hold it, and never from two quotes alone.
  if (texts.length < 3) return [];
  const enough = Math.max(2, Math.ceil(texts.length / 2));
  return [...counts.values()]
    .filter((e) => e.n >= enough)
    .sort((a, b) => b.n - a.n || a.word.localeCompare(b.word))
    .slice(0, max)
    .map((e) => e.word);
}
