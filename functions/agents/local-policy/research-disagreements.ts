import type { BlockDraft } from '../answer.js';
import { sentencesOf, type QuoteCandidate } from './evidence.js';

/**
 * Where the sources of a research report disagree: two customer remarks that give different figures
 * for the same thing. A report that only piles up quotes reads as if they all agreed; a researcher
 * says when they do not. Read from the words themselves, so every figure named is inside a verbatim
 * quote (the verifier checks each like any other):
 *
 * - the discount a buyer asks for ("at least a 20 percent discount") and the size of a buyer's team or
 *   seat count ("45 reps", "120 seats"): the same account giving two different figures, first and
 *   later, disagrees with itself;
 * - the per-seat price ("$55 per seat"): one price list, so any two buyers quoting different prices
 *   disagree, whichever accounts they are at.
 *
 * Each disagreement is two quote blocks (stance `contradicts`: the turn whole when it is short, so the
 * figure keeps what it is about) and one line saying they disagree.
 */

type QuoteBlock = Extract<BlockDraft, { kind: 'quote' }>;

interface Quantity {
  /** What the figure is of, in words: "the discount they ask for". */
  what: string;
  /** The figure in a sentence, or null when the sentence states none. */
  read(sentence: string): number | null;
  /** Whether two figures disagree only within one account (a buyer's own numbers) or across any two. */
  within: 'account' | 'any';
}

const numberOf = (m: RegExpExecArray | null): number | null => (m ? Number(m[1]!.replace(/,/g, '')) : null);

const QUANTITIES: readonly Quantity[] = [
  {
    what: 'the discount they ask for',
    read: (s) => (/\bdiscount\b/i.test(s) ? numberOf(/\b(\d{1,2})\s*(?:percent\b|%)/i.exec(s)) : null),
    within: 'account',
  },
  {
    what: 'the size of their team',
    read: (s) => numberOf(/\b(\d{1,3}(?:,\d{3})?)\s+(?:people|reps|agents|sellers|users)\b/i.exec(s)),
    within: 'account',
  },
  {
    what: 'the number of seats',
    read: (s) => numberOf(/\b(\d{1,3}(?:,\d{3})?)\s+(?:seats|licen[cs]es)\b/i.exec(s)),
    within: 'account',
  },
  {
    what: 'the per-seat price',
    read: (s) => numberOf(/\$(\d{1,4}(?:\.\d+)?)\s*(?:per|a|\/)\s*(?:seat|user|licen[cs]e)\b/i.exec(s)),
    within: 'any',
  },
];

export interface Disagreement {
  what: string;
  /** The account both remarks are from, when the disagreement is within one. */
  account: string | null;
  first: QuoteBlock;
  later: QuoteBlock;
}

/** At most this many disagreements are named: the strongest case is made, not every pair. */
const MAX = 3;

/**
 * The disagreements among remarks; `onTopic` says whether a quote would stand as about the question
 * (the verifier's own relevance rule), so a pair is never named that the verifier would then cut in half.
 */
export function disagreementsIn(
  candidates: readonly QuoteCandidate[],
  onTopic: (text: string) => boolean = () => true,
): Disagreement[] {
  const found: Disagreement[] = [];
  const dated = [...candidates].sort((a, b) => (a.occurredAt ?? '').localeCompare(b.occurredAt ?? ''));
  for (const q of QUANTITIES) {
    const stated = dated.flatMap((c) => {
      for (const sentence of sentencesOf(c.text)) {
        const value = q.read(sentence);
        const text = excerpt(c.text, sentence);
        if (value !== null && onTopic(text)) return [{ c, text, value }];
      }
      return [];
    });
    const groups = new Map<string, typeof stated>();
    for (const s of stated) {
      if (q.within === 'account' && !s.c.account) continue;
      const key = q.within === 'account' ? (s.c.account as string) : '*';
      groups.set(key, [...(groups.get(key) ?? []), s]);
    }
    for (const [key, group] of groups) {
      const first = group[0]!;
      const later = group.find(
        (s) =>
          s.value !== first.value &&
          s.c.turnId !== first.c.turnId &&
          (q.within === 'account' || s.c.account !== first.c.account),
      );
      if (!later) continue;
      found.push({
        what: q.what,
        account: key === '*' ? null : key,
        first: block(first.c, first.text),
        later: block(later.c, later.text),
      });
      if (found.length >= MAX) return found;
    }
  }
  return found;
}

/** A short turn whole (the figure with what it is about), a long one's sentence stating the figure. */
const excerpt = (text: string, sentence: string): string => (text.trim().length <= 320 ? text.trim() : sentence);

function block(c: QuoteCandidate, text: string): QuoteBlock {
  return {
    kind: 'quote',
    text,
    source: {
      interaction_id: c.interactionId,
      turn_id: c.email ? null : c.turnId,
      speaker: c.speaker,
      occurred_at: c.occurredAt,
      account: c.account,
      deal: c.deal,
      side: c.side,
    },
    stance: 'contradicts',
  };
}

const who = (q: QuoteBlock, withAccount: boolean): string => {
  const speaker = q.source.speaker ?? 'a customer';
  return withAccount && q.source.account ? `**${q.source.account}** (${speaker})` : speaker;
};

/** The report's section naming them, or null when the sources do not disagree. */
export function disagreementSection(
  found: readonly Disagreement[],
): { heading: string; lines: string[]; blocks: BlockDraft[] } | null {
  if (found.length === 0) return null;
  const lines = ['The figures customers gave do not agree with each other:'];
  for (const d of found) {
    const subject = d.account ? `**${d.account}**, on ${d.what}` : `Buyers at different accounts, on ${d.what}`;
    lines.push(
      `- ${subject}: ${who(d.first, !d.account)} said “${d.first.text}”; later, ${who(d.later, !d.account)} said “${d.later.text}”`,
    );
  }
  return {
    heading: '### Where the sources disagree',
    lines,
    blocks: found.flatMap((d) => [d.first, d.later]),
  };
}
