import type { Owner, Vocabulary } from './vocabulary.js';

/**
 * Linking the names in an ask to the workspace's vocabulary: accounts (whole names with a typo or
 * two, or a distinctive first word), deal owners by name, deals by their account and kind
 * ("the Acme Logistics renewal"), regions and industries. A word is a name only when it matches
 * one; its capital letter and its place in the sentence count for nothing, and punctuation around
 * it ("Tidewater Logistics.") never becomes part of it.
 */

export interface LinkedAccount {
  /** The words as the user wrote them. */
  asked: string;
  /** The accounts they match (one, or several when only a shared first word was given). */
  matches: string[];
}

export interface Entities {
  accounts: LinkedAccount[];
  owners: Owner[];
  /** Deals named by account and kind. */
  deals: string[];
  regions: string[];
  industries: string[];
  /** Competitors the conversations name, as the ask wrote them and as the vocabulary writes them. */
  competitors: { asked: string; name: string }[];
  /** The ask with each linked name written as the vocabulary writes it. */
  normalized: string;
}

interface Word {
  text: string;
  lower: string;
  start: number;
  end: number;
}

const wordsOf = (s: string): Word[] =>
  [...s.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'&-]*/gu)].map((m) => {
    const text = m[0].replace(/'s$/i, '');
    return { text, lower: text.toLowerCase(), start: m.index, end: m.index + text.length };
  });

/** Optimal string alignment distance (a transposition counts one edit). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/** Close enough to be the same word: exact for short words, one edit from 5 letters, two from 9. */
export const sameWord = (written: string, known: string): boolean => {
  if (written === known) return true;
  const allowed = known.length >= 9 ? 2 : known.length >= 5 ? 1 : 0;
  return allowed > 0 && Math.abs(written.length - known.length) <= allowed && editDistance(written, known) <= allowed;
};

/** Where a multi-word name occurs in the ask's words (typos allowed per word unless `exact`), or -1. */
function findRun(words: readonly Word[], name: string, exact = false): number {
  const parts = name.toLowerCase().split(/\s+/);
  const same = exact ? (a: string, b: string) => a === b : sameWord;
  for (let i = 0; i + parts.length <= words.length; i++)
    if (parts.every((p, k) => same(words[i + k]!.lower, p))) return i;
  return -1;
}

const DEAL_KINDS = [
  'renewal',
  'expansion',
  'pilot',
  'enterprise',
  'team plan',
  'new business',
  'second attempt',
  'rollout',
];

export function linkEntities(ask: string, vocab: Vocabulary): Entities {
  const words = wordsOf(ask);
  const used = new Set<number>();
  const replacements: { start: number; end: number; text: string }[] = [];
  const take = (i: number, n: number, canonical: string | null) => {
    for (let k = i; k < i + n; k++) used.add(k);
    if (canonical) replacements.push({ start: words[i]!.start, end: words[i + n - 1]!.end, text: canonical });
  };

  // Accounts by their whole name, longest first ("Acme Logistics" before a bare "Acme"); every name
  // written exactly (in any case) before any name with a typo, so "ES2004c Design" is never taken for
  // "ES2004b Design", one letter away, when both exist.
  const accounts: LinkedAccount[] = [];
  const byLength = [...vocab.accounts].sort((a, b) => b.name.length - a.name.length);
  const linked = new Set<string>();
  for (const exact of [true, false])
    for (const account of byLength) {
      if (linked.has(account.name)) continue;
      const n = account.name.split(/\s+/).length;
      const at = findRun(words, account.name, exact);
      if (at < 0 || [...Array(n).keys()].some((k) => used.has(at + k))) continue;
      take(at, n, account.name);
      linked.add(account.name);
      accounts.push({ asked: ask.slice(words[at]!.start, words[at + n - 1]!.end), matches: [account.name] });
    }
  // Accounts by a distinctive first word: capitalised, or exact and long enough not to be an everyday
  // word; a first word written exactly wins over one a typo away ("ES2004c" is not "ES2004b").
  const heads = new Map<string, string[]>();
  for (const a of vocab.accounts) {
    const head = a.name.split(/\s+/)[0]!.toLowerCase();
    if (head.length >= 3) heads.set(head, [...(heads.get(head) ?? []), a.name]);
  }
  words.forEach((w, i) => {
    if (used.has(i)) return;
    const capital = /^\p{Lu}/u.test(w.text) && i > 0;
    const exact = heads.get(w.lower);
    const typo = capital ? [...heads].find(([head]) => sameWord(w.lower, head)) : undefined;
    const names = exact && (capital || w.lower.length >= 7) ? exact : exact ? undefined : typo?.[1];
    if (!names) return;
    take(i, 1, names.length === 1 ? names[0]! : null);
    accounts.push({ asked: w.text, matches: names });
  });

  // Deal owners by full name, or by a first or last name that only one of them has.
  const owners: Owner[] = [];
  for (const owner of vocab.owners) {
    if (!owner.name) continue;
    const at = findRun(words, owner.name);
    if (at >= 0 && !used.has(at)) {
      take(at, owner.name.split(/\s+/).length, null);
      owners.push(owner);
    }
  }
  if (owners.length === 0) {
    words.forEach((w, i) => {
      if (used.has(i) || !/^\p{Lu}/u.test(w.text)) return;
      const hits = vocab.owners.filter((o) =>
        o.name
          ?.toLowerCase()
          .split(' ')
          .some((p) => sameWord(w.lower, p)),
      );
      if (hits.length === 1 && !owners.includes(hits[0]!)) {
        take(i, 1, null);
        owners.push(hits[0]!);
      }
    });
  }

  // Competitors by their whole name, as accounts are (any case, a typo or two), on the words no account took.
  const competitors: Entities['competitors'] = [];
  for (const exact of [true, false])
    for (const name of [...vocab.competitors].sort((a, b) => b.length - a.length)) {
      if (competitors.some((c) => c.name === name)) continue;
      const n = name.split(/\s+/).length;
      const at = findRun(words, name, exact);
      if (at < 0 || [...Array(n).keys()].some((k) => used.has(at + k))) continue;
      take(at, n, name);
      competitors.push({ asked: ask.slice(words[at]!.start, words[at + n - 1]!.end), name });
    }

  // Deals: an account linked plus a kind of deal ("the Willow Logistics renewal").
  const lower = ask.toLowerCase();
  const kinds = DEAL_KINDS.filter((k) => lower.includes(k));
  const deals =
    kinds.length > 0 && accounts.length > 0
      ? vocab.deals
          .filter((d) => d.account && accounts.some((a) => a.matches.includes(d.account!)))
          .filter((d) => kinds.some((k) => d.name.toLowerCase().includes(k)))
          .map((d) => d.name)
      : vocab.deals.filter((d) => lower.includes(d.name.toLowerCase())).map((d) => d.name);

  // A region or industry also as its adjective or plural ("North American customers", "retailers" aside).
  const phrase = (p: string) =>
    new RegExp(`\\b${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:ns?|s)?\\b`, 'i').test(ask);
  let normalized = ask;
  for (const r of [...replacements].sort((a, b) => b.start - a.start))
    normalized = normalized.slice(0, r.start) + r.text + normalized.slice(r.end);
  return {
    accounts,
    owners,
    deals: [...new Set(deals)],
    regions: vocab.regions.filter(phrase),
    industries: vocab.industries.filter(phrase),
    competitors,
    normalized,
  };
}
