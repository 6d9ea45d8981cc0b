import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../platform/db/port.js';
import { accounts, deals, interactions, transcriptTurns } from '../../schema/index.js';
import type { BlockDraft } from './answer.js';

/**
 * Whose words a quote is, read from the warehouse (the verifier's attribution check, for every
 * model): the quoted interaction's account, deal and date, and the quoted turn's speaker and side
 * (an email's side from its direction). What a model wrote in a quote's source is a claim like its
 * text; a verified quote carries the warehouse's labels, not the claim's, and the prose line quoting
 * it names the same account. A correction is counted (`grounding.quotes.relabeled`), not a failure:
 * the words are verbatim, only their label was wrong.
 */

type QuoteBlock = Extract<BlockDraft, { kind: 'quote' }>;
type Side = 'external' | 'internal';

/** What the prose says of a quote whose interaction is on no account. */
export const NO_ACCOUNT = 'No linked account';

export interface InteractionFacts {
  account: string | null;
  deal: string | null;
  occurredAt: string;
  /** An email's author side: inbound is the customer's, outbound the workspace's. */
  emailSide: Side | null;
}

/** A quoted turn as the warehouse holds it: its words (the verbatim check) and who said them. */
export interface TurnFacts {
  text: string;
  interactionId: string;
  speaker: string | null;
  side: Side;
}

export interface Attributions {
  interactions: Map<string, InteractionFacts>;
  turns: Map<string, TurnFacts>;
  /** The bodies of the quoted emails (the verbatim check of a quote without a turn). */
  emailBodies: Map<string, string>;
}

const emailSideOf = (kind: string, direction: string | null): Side | null =>
  kind !== 'email' ? null : direction === 'inbound' ? 'external' : direction === 'outbound' ? 'internal' : null;

/**
 * Everything the verifier reads of the quoted conversations, in at most two statements (each a round
 * trip on the edge): the quoted turns with their interaction's account, deal and date, and the quoted
 * emails with their body and the same labels.
 */
export async function readAttributions(
  db: Queryable,
  workspaceId: string,
  blocks: readonly BlockDraft[],
): Promise<Attributions> {
  const quotes = blocks.filter((b): b is QuoteBlock => b.kind === 'quote');
  const turnIds = [...new Set(quotes.flatMap((b) => (b.source.turn_id ? [b.source.turn_id] : [])))];
  const emailIds = [...new Set(quotes.flatMap((b) => (b.source.turn_id ? [] : [b.source.interaction_id])))];
  const labels = {
    account: accounts.name,
    deal: deals.name,
    occurredAt: interactions.occurredAt,
    kind: interactions.kind,
    direction: interactions.direction,
  };
  const [turnRows, emailRows] = await Promise.all([
    turnIds.length === 0
      ? []
      : db
          .select({
            id: transcriptTurns.id,
            text: transcriptTurns.text,
            interactionId: transcriptTurns.interactionId,
            speaker: transcriptTurns.speakerName,
            side: transcriptTurns.side,
            ...labels,
          })
          .from(transcriptTurns)
          .innerJoin(
            interactions,
            and(eq(interactions.id, transcriptTurns.interactionId), eq(interactions.workspaceId, workspaceId)),
          )
          .leftJoin(accounts, and(eq(accounts.id, interactions.accountId), eq(accounts.workspaceId, workspaceId)))
          .leftJoin(deals, and(eq(deals.id, interactions.dealId), eq(deals.workspaceId, workspaceId)))
          .where(and(eq(transcriptTurns.workspaceId, workspaceId), inArray(transcriptTurns.id, turnIds))),
    emailIds.length === 0
      ? []
      : db
          .select({ id: interactions.id, body: interactions.body, ...labels })
          .from(interactions)
          .leftJoin(accounts, and(eq(accounts.id, interactions.accountId), eq(accounts.workspaceId, workspaceId)))
          .leftJoin(deals, and(eq(deals.id, interactions.dealId), eq(deals.workspaceId, workspaceId)))
          .where(
            and(
              eq(interactions.workspaceId, workspaceId),
              eq(interactions.kind, 'email'),
              inArray(interactions.id, emailIds),
            ),
          ),
  ]);
  const facts = (r: {
    account: string | null;
    deal: string | null;
    occurredAt: Date | string;
    kind: string;
    direction: string | null;
  }): InteractionFacts => ({
    account: r.account,
    deal: r.deal,
    occurredAt: new Date(r.occurredAt).toISOString(),
    emailSide: emailSideOf(r.kind, r.direction),
  });
  return {
    interactions: new Map([
      ...turnRows.map((r) => [r.interactionId, facts(r)] as const),
      ...emailRows.map((r) => [r.id, facts(r)] as const),
    ]),
    turns: new Map(
      turnRows.map((r) => [r.id, { text: r.text, interactionId: r.interactionId, speaker: r.speaker, side: r.side }]),
    ),
    emailBodies: new Map(emailRows.flatMap((r) => (r.body ? [[r.id, r.body] as const] : []))),
  };
}

/** Two dates are the same instant (a model may write the date in another ISO form); a missing or unreadable one is not. */
const sameInstant = (claimed: string | null, actual: string): boolean =>
  claimed !== null && Date.parse(claimed) === Date.parse(actual);

/**
 * A verified quote with the warehouse's labels, and whether any label the draft gave (or left
 * out) was different. `deal` and `side` are additive: leaving them out is not a wrong label.
 */
export function relabelQuote(block: QuoteBlock, facts: Attributions): { block: QuoteBlock; changed: boolean } {
  const interaction = facts.interactions.get(block.source.interaction_id);
  if (!interaction) return { block, changed: false };
  const turn = block.source.turn_id ? facts.turns.get(block.source.turn_id) : undefined;
  const source = block.source;
  const speaker = turn ? turn.speaker : source.speaker;
  const side = turn ? turn.side : interaction.emailSide;
  const changed =
    source.account !== interaction.account ||
    !sameInstant(source.occurred_at, interaction.occurredAt) ||
    source.speaker !== speaker ||
    (source.deal !== undefined && source.deal !== interaction.deal) ||
    (source.side !== undefined && source.side !== side);
  return {
    block: {
      ...block,
      source: {
        ...source,
        speaker,
        occurred_at: sameInstant(source.occurred_at, interaction.occurredAt)
          ? source.occurred_at
          : interaction.occurredAt,
        account: interaction.account,
        deal: interaction.deal,
        side,
      },
    },
    changed,
  };
}

/** Account names of this workspace written in the given text (one read for the whole answer). */
export async function accountNamesIn(db: Queryable, workspaceId: string, text: string): Promise<string[]> {
  if (text.trim() === '') return [];
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select distinct name from accounts where workspace_id = ${workspaceId} and length(name) > 1 and strpos(${text}, name) > 0`,
  );
  return rows.map((r) => r.name);
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Words in quotation marks on a line (curly or straight). */
const QUOTATION = /“([^”\n]{1,2000})”|"([^"\n]{1,2000})"/g;
/** How a quotation is compared with a quote's text: quotation marks, whitespace runs and the punctuation at either end aside. */
const comparable = (s: string): string =>
  squash(s.replace(/[“”„‟]/g, '"').replace(/[‘’‚‛]/g, "'")).replace(/^[\s"'.,;:!?…-]+|[\s"'.,;:!?…-]+$/g, '');

/** A verified quote the prose may quote, as drafted and as the warehouse labels it; `changed`: a label the draft gave was wrong. */
export interface QuoteLabels {
  drafted: QuoteBlock;
  verified: QuoteBlock;
  changed: boolean;
}

/** A quote a line quotes, and the words of the line that quote it (all its text, or the part in quotation marks). */
interface Quoting extends QuoteLabels {
  words: string;
  span: string;
}

/** Any of the names standing on its own, not inside another word (`flags` beside the Unicode flag). */
const wholeWords = (names: readonly string[], flags = ''): RegExp =>
  new RegExp(`(?<![\\p{L}\\p{N}])(?:${names.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, `u${flags}`);

/** Whether `name` stands on its own (not inside another word) in `text`. */
const namesIn = (text: string, name: string): boolean => wholeWords([name]).test(text);

/**
 * The verified quotes a line quotes: those whose whole text is on it, and those a quotation on it (four
 * words or more in quotation marks) is a part of.
 */
function quotesOn(line: string, quotes: readonly QuoteLabels[]): Quoting[] {
  const flat = squash(line);
  const whole = quotes.flatMap((q) => {
    const words = squash(q.verified.text);
    return words.length > 0 && flat.includes(words) ? [{ ...q, words, span: q.verified.text }] : [];
  });
  const parts = [...line.matchAll(QUOTATION)].flatMap((m) => {
    const quoted = m[1] ?? m[2] ?? '';
    const piece = comparable(quoted);
    if (piece.split(' ').length < 4 || whole.some((w) => squash(quoted).includes(w.words))) return [];
    return quotes.flatMap((q) =>
      comparable(q.verified.text).includes(piece) ? [{ ...q, words: squash(q.verified.text), span: quoted }] : [],
    );
  });
  return [...whole, ...parts];
}

/** A line quoting verified quotes of one attribution, what it quotes, and whether it must be corrected. */
function lineToRelabel(line: string, quotes: readonly QuoteLabels[]): Quoting[] | null {
  const here = quotedIn(line, quotesOn(line, quotes));
  if (!here) return null;
  const account = here[0]!.verified.source.account;
  const beside = besideQuotes(
    line,
    here.map((c) => c.span),
  );
  // A label the draft got wrong is corrected; a right one the line does not name is named.
  return here.some((c) => c.changed) || (account !== null && !namesIn(beside, account)) ? here : null;
}

/** The prose lines whose account, speaker, deal or date beside a quote must be corrected or named (relabelProse). */
export function linesToRelabel(text: string, quotes: readonly QuoteLabels[]): string[] {
  if (quotes.length === 0) return [];
  return text.split('\n').filter((line) => lineToRelabel(line, quotes) !== null);
}

/**
 * The prose with each quoting line naming its quote's account: a line that quotes a verified quote's
 * words (all of them, or four or more in quotation marks) and says "No linked account", another
 * account of the workspace or the draft's wrong account beside them, has that name replaced by the
 * warehouse's; a line that names no account beside a quote that has one gets it, in parentheses after
 * the quotation. So the same interaction is labelled the same way wherever the answer quotes it (the
 * quote's own words are never touched). A wrong speaker, deal or date the draft gave is corrected the
 * same way. A line quoting two quotes of different attributions is left as written: which name
 * belongs to which is not knowable.
 */
export function relabelProse(
  text: string,
  quotes: readonly QuoteLabels[],
  workspaceAccounts: readonly string[],
): string {
  if (quotes.length === 0) return text;
  return text
    .split('\n')
    .map((line) => {
      const here = lineToRelabel(line, quotes);
      if (!here) return line;
      const { drafted, verified } = here[0]!;
      const spans = here.map((c) => c.span);
      const fixed = outsideQuotes(line, spans, (part) => correctPart(part, drafted, verified, workspaceAccounts));
      const account = verified.source.account;
      if (account === null || namesIn(besideQuotes(fixed, spans), account)) return fixed;
      return withAccountAfter(fixed, spans, account);
    })
    .join('\n');
}

/** The line with `(account)` after the first quotation of the quote (after its closing quotation mark). */
function withAccountAfter(line: string, spans: readonly string[], account: string): string {
  const at = spans
    .map((s) => ({ s, i: line.indexOf(s) }))
    .filter((x) => x.i >= 0)
    .sort((a, b) => a.i - b.i)[0];
  if (!at) return `${line} (${account})`;
  let end = at.i + at.s.length;
  while (end < line.length && /[”"’»“*_]/.test(line[end]!)) end++;
  return `${line.slice(0, end)} (${account})${line.slice(end)}`;
}

/**
 * The quotes a line quotes, all of one attribution, or null when it cannot be told: words quoted
 * inside a longer quote on the line are that quote's; of quotes saying the same words, those whose
 * speaker the line names.
 */
function quotedIn<T extends { words: string; drafted: QuoteBlock; verified: QuoteBlock }>(
  line: string,
  found: readonly T[],
): T[] | null {
  if (found.length === 0) return null;
  let here = found.filter((c) => !found.some((o) => o.words.length > c.words.length && o.words.includes(c.words)));
  const label = (c: T) => `${c.verified.source.account}|${c.verified.source.speaker}`;
  if (new Set(here.map(label)).size > 1) {
    const named = here.filter((c) =>
      [c.verified.source.speaker, c.drafted.source.speaker].some((s) => s && line.includes(s)),
    );
    here = named;
  }
  return here.length > 0 && new Set(here.map(label)).size === 1 ? here : null;
}

/** What a line says beside the quoted texts on it. */
const besideQuotes = (line: string, quotes: readonly string[]): string => outsideQuotes(line, quotes, (p) => p, true);

/** Apply `fix` to the parts of a line that are not one of the quoted texts (`drop`: leave the quoted texts out). */
function outsideQuotes(line: string, quotes: readonly string[], fix: (part: string) => string, drop = false): string {
  const found = [...new Set(quotes)].filter((q) => line.includes(q)).sort((a, b) => b.length - a.length);
  if (found.length === 0) return fix(line);
  const pattern = new RegExp(`(${found.map(escapeRegExp).join('|')})`, 'g');
  return line
    .split(pattern)
    .map((part, i) => (i % 2 === 1 ? (drop ? ' ' : part) : fix(part)))
    .join('');
}

function correctPart(part: string, drafted: QuoteBlock, verified: QuoteBlock, workspaceAccounts: readonly string[]) {
  const account = verified.source.account ?? NO_ACCOUNT;
  const wrongAccounts = new Set([NO_ACCOUNT, ...workspaceAccounts]);
  if (drafted.source.account) wrongAccounts.add(drafted.source.account);
  // The right name is an alternative too, so "Acme Logistics" is read whole, not as a wrong "Acme".
  let out = replaceNames(part, [...wrongAccounts, account], (name) => (name === account ? name : account));
  const pairs: [string | null | undefined, string | null | undefined][] = [
    [drafted.source.speaker, verified.source.speaker],
    [drafted.source.deal, verified.source.deal],
    [drafted.source.occurred_at?.slice(0, 10), verified.source.occurred_at?.slice(0, 10)],
  ];
  for (const [was, is] of pairs)
    if (was && is && was !== is && was.length > 1) out = replaceNames(out, [is, was], () => is);
  return out;
}

/** Each whole-word occurrence of any of the names (longest first) replaced by `to(name)`. */
function replaceNames(text: string, names: readonly string[], to: (name: string) => string): string {
  const distinct = [...new Set(names.filter((n) => n.length > 0))].sort((a, b) => b.length - a.length);
  if (distinct.length === 0) return text;
  return text.replace(wholeWords(distinct, 'g'), (m) => to(m));
}
