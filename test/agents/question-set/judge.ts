import type { PGlite } from '@electric-sql/pglite';
import type { Answer } from '../../../functions/agents/answer.js';
import { CORPUS_WORKSPACE_ID } from '../../support/corpus-fixture.js';

/**
 * How one answer is judged, as the person who asked would: the fact asked for is there (names,
 * numbers), the period asked for bounds every quote and dated row (or the answer says it did not
 * apply it), every quote's turn really is about the topic, and a question the model cannot map is
 * answered with what it understood and what it can answer instead, with no quotes. Every expected
 * fact comes from SQL over the seeded corpus written here, never from the code under test; the
 * turn texts the topic check reads come from the database too, not from the answer.
 */

export interface Expectation {
  /** Strings that must all appear in the answer: its text, a table cell or a metric value. */
  mentions?: (sql: Sql) => Promise<string[]>;
  /** At least one of these must appear (a list where any one correct item shows the answer found the set). */
  mentionsSome?: (sql: Sql) => Promise<string[]>;
  /** Each list as mentionsSome: one figure asked for more than once (two periods' win rates), each written its own ways. */
  mentionsEach?: (sql: Sql) => Promise<string[][]>;
  /**
   * A ranking: each item (written any of its ways, as mentionsEach) appears, and each first appears
   * after the one before it, so an answer that names the right items in the wrong order fails.
   */
  ordered?: (sql: Sql) => Promise<string[][]>;
  /** Numbers that must appear as a metric value, a table cell, or written in the text. */
  numbers?: (sql: Sql) => Promise<number[]>;
  /** Strings that must not appear anywhere in the answer (a row outside the asked set). */
  absent?: (sql: Sql) => Promise<string[]>;
  /** The text must not say this (a filler word read as the topic). */
  unsaid?: RegExp;
  /** Words the answer must not treat as a name ("I couldn't find an account called **Why**"). */
  notNamed?: string[];
  /** The asked period: every quote's interaction and every dated table cell of `field` inside [from, to). */
  period?: { from: string; to: string; field: 'occurred_at' | 'close_date' };
  /** Every quote's turn (or email body) must match this. */
  topic?: RegExp;
  /** Every quote must come from an interaction of one of these accounts. */
  quoteAccounts?: (sql: Sql) => Promise<string[]>;
  quotes?: 'required' | 'none';
  /** No two quotes are the same statement with another opener (judged by their last 40 characters). */
  distinctQuotes?: boolean;
  /** The text must say this (a signal named, a missing field named). */
  says?: RegExp;
  /** Not understood: says what it understood and what it did not, offers 2-3 phrasings, quotes nothing. */
  refusal?: boolean;
}

export interface Question {
  shape: string;
  /** Earlier asks of the same chat, oldest first (a follow-up). */
  thread?: string[];
  ask: string;
  expect: Expectation;
}

export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/** Raw SQL over the corpus workspace ($1 is always the workspace id). */
export function sqlOver(client: PGlite): Sql {
  return async <T>(text: string, params: unknown[] = []) =>
    (await client.query<T>(text, [CORPUS_WORKSPACE_ID, ...params])).rows;
}

/** Everything a reader sees of an answer, as one searchable text. */
function visible(answer: Answer): string {
  const parts = [answer.text];
  for (const b of answer.content_blocks) {
    if (b.kind === 'table') for (const row of b.data) parts.push(Object.values(row).map(String).join(' | '));
    if (b.kind === 'metric') parts.push(`${b.label}: ${String(b.value)}`);
    if (b.kind === 'callout' || b.kind === 'text') parts.push(b.markdown);
  }
  return parts.join('\n');
}

function hasNumber(answer: Answer, n: number): boolean {
  const near = (v: unknown) => v !== null && v !== '' && Number.isFinite(Number(v)) && Math.abs(Number(v) - n) < 0.005;
  for (const b of answer.content_blocks) {
    if (b.kind === 'metric' && near(b.value)) return true;
    if (b.kind === 'table' && b.data.some((row) => Object.values(row).some(near))) return true;
  }
  const written = [String(n), Math.round(n).toLocaleString('en-US')];
  return written.some((w) =>
    new RegExp(`(?<![\\d.,])\\$?${w.replace(/[.,$]/g, '\\$&')}(?![\\d,]*\\d)`).test(answer.text),
  );
}

/** Why a ranking's items are missing or out of order in the text (each item at its earliest form). */
function outOfOrder(items: string[][], lower: string): string[] {
  const why: string[] = [];
  let previous: { name: string; at: number } | null = null;
  for (const forms of items) {
    const seen = forms.map((f) => lower.indexOf(f.toLowerCase())).filter((at) => at >= 0);
    if (seen.length === 0) {
      why.push(`names none of ${forms.join(', ')}`);
      continue;
    }
    const at = Math.min(...seen);
    if (previous && at < previous.at) why.push(`ranks ${forms[0]} before ${previous.name}`);
    previous = { name: forms[0] ?? '', at };
  }
  return why;
}

const NOT_APPLIED =
  /not (limited|restricted) to|did(?: not|n't) apply|could(?: not|n't) apply|not applied|outside (that|the) (window|period)|whatever (the|their) date/i;

/** The reasons an answer fails its question; empty when it answers it right. */
export async function judge(q: Question, answer: Answer, status: string, sql: Sql): Promise<string[]> {
  const why: string[] = [];
  if (status !== 'complete') return [`run ended ${status}`];
  if (!answer.grounding.verified) why.push(`grounding not verified: ${answer.grounding.problems.join('; ')}`);
  const seen = visible(answer);
  const lower = seen.toLowerCase();
  const e = q.expect;
  const quotes = answer.content_blocks.flatMap((b) => (b.kind === 'quote' ? [b] : []));

  for (const s of (await e.mentions?.(sql)) ?? []) if (!lower.includes(s.toLowerCase())) why.push(`missing "${s}"`);
  const some = (await e.mentionsSome?.(sql)) ?? null;
  if (some && !some.some((s) => lower.includes(s.toLowerCase())))
    why.push(`names none of ${some.slice(0, 4).join(', ')}${some.length > 4 ? '…' : ''}`);
  for (const forms of (await e.mentionsEach?.(sql)) ?? [])
    if (!forms.some((s) => lower.includes(s.toLowerCase()))) why.push(`names none of ${forms.join(', ')}`);
  why.push(...outOfOrder((await e.ordered?.(sql)) ?? [], lower));
  for (const n of (await e.numbers?.(sql)) ?? []) if (!hasNumber(answer, n)) why.push(`missing the number ${n}`);
  for (const word of e.notNamed ?? [])
    if (new RegExp(`\\*\\*${word}\\.?\\*\\*|(called|named|name is) \\**"?${word}\\b`, 'i').test(answer.text))
      why.push(`treated "${word}" as a name`);
  if (/\*\*[^*]+\.\*\*/.test(answer.text) && /couldn't find|no deals match/i.test(answer.text))
    why.push('a full stop stayed in a name');
  for (const s of (await e.absent?.(sql)) ?? [])
    if (lower.includes(s.toLowerCase())) why.push(`names "${s}", outside the asked set`);
  if (e.says && !e.says.test(answer.text)) why.push(`does not say ${e.says}`);
  if (e.unsaid?.test(answer.text)) why.push(`says ${e.unsaid}`);
  if (e.quotes === 'required' && quotes.length === 0) why.push('no quotes');
  if (e.distinctQuotes) {
    const endings = quotes.map((q) => q.text.trim().slice(-40).toLowerCase());
    const repeated = endings.filter((end, i) => endings.indexOf(end) !== i);
    if (repeated.length > 0) why.push(`the same statement quoted ${repeated.length + 1} times: "…${repeated[0]}"`);
  }
  if ((e.quotes === 'none' || e.refusal) && quotes.length > 0) why.push(`${quotes.length} quotes where none belong`);

  if (e.refusal) {
    if (!/understood|understand|I read (this|it|your)/i.test(answer.text)) why.push('does not say what it understood');
    if (answer.follow_ups.length < 2 || answer.follow_ups.length > 3) why.push('does not offer 2-3 phrasings');
  }

  if (quotes.length > 0 && (e.topic || e.period || e.quoteAccounts)) {
    const turnIds = quotes.flatMap((b) => (b.source.turn_id ? [b.source.turn_id] : []));
    const interactionIds = quotes.map((b) => b.source.interaction_id);
    const turns = new Map(
      (
        await sql<{ id: string; text: string }>(
          'select id, text from transcript_turns where workspace_id = $1 and id = any($2::uuid[])',
          [turnIds],
        )
      ).map((r) => [r.id, r.text]),
    );
    const sources = new Map(
      (
        await sql<{ id: string; body: string | null; occurred_at: string; account: string | null }>(
          `select i.id, i.body, i.occurred_at::text, a.name as account from interactions i
           left join accounts a on a.id = i.account_id where i.workspace_id = $1 and i.id = any($2::uuid[])`,
          [interactionIds],
        )
      ).map((r) => [r.id, r]),
    );
    const accounts = e.quoteAccounts ? new Set((await e.quoteAccounts(sql)).map((s) => s.toLowerCase())) : null;
    const periodWaived = NOT_APPLIED.test(answer.text);
    for (const b of quotes) {
      const source = sources.get(b.source.interaction_id);
      const text = b.source.turn_id ? turns.get(b.source.turn_id) : source?.body;
      if (e.topic && !e.topic.test(text ?? '')) why.push(`off-topic quote: "${b.text.slice(0, 60)}"`);
      if (e.period?.field === 'occurred_at' && !periodWaived) {
        const at = source?.occurred_at.slice(0, 10) ?? '';
        if (at < e.period.from || at >= e.period.to)
          why.push(`quote from ${at} outside ${e.period.from}..${e.period.to}`);
      }
      if (accounts && !accounts.has((source?.account ?? '').toLowerCase()))
        why.push(`quote from ${source?.account ?? 'no account'}, not the account asked about`);
    }
  }
  if (e.period && !NOT_APPLIED.test(answer.text)) {
    const { field, from, to } = e.period;
    for (const b of answer.content_blocks) {
      if (b.kind !== 'table' || /^What the .* cover/.test(b.title ?? '')) continue;
      for (const row of b.data) {
        const v = row[field];
        if (typeof v !== 'string') continue;
        const d = v.slice(0, 10);
        if (d < from || d >= to) why.push(`table row ${field} ${d} outside ${from}..${to}`);
      }
    }
  }
  return [...new Set(why)];
}
