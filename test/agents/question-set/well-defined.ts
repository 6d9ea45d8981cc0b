import { h } from './held-out.js';
import type { Question, Sql } from './judge.js';

/**
 * What keeps a held-out set a fair measurement, shared by the sets' own tests: its wordings are its
 * own, and every truth is well defined on the corpus, so no question can be answered right vacuously.
 */

/** Compared as words alone: a wording does not become new by a question mark or a capital. */
const words = (ask: string) =>
  ask
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** The asks (thread turns included) of `set` that repeat a wording of `older`, and the set's own repeats. */
export function repeatedWordings(
  set: readonly Question[],
  older: readonly Question[],
): { ofOlder: string[]; withinSet: number } {
  const seen = new Set(older.flatMap((q) => [...(q.thread ?? []), q.ask].map(words)));
  const ofOlder = set.flatMap((q) => [...(q.thread ?? []), q.ask]).filter((ask) => seen.has(words(ask)));
  const asks = set.map((q) => `${(q.thread ?? []).join(' / ')} → ${q.ask}`.toLowerCase());
  return { ofOlder, withinSet: asks.length - new Set(asks).size };
}

/**
 * Why each truth of `set` is not well defined on the corpus: it expects nothing; a list to name or to
 * rank is empty; a figure is 0, not a number, or equal to another of the same question (or shares a
 * written form with one: 43% for 42.7% and 42.8%); a ranking has fewer than two items or one twice;
 * something that must be absent is part of a name that must appear; or an account whose words are
 * asked for never spoke on the topic.
 */
export async function truthProblems(set: readonly Question[], sql: Sql): Promise<string[]> {
  const problems: string[] = [];
  for (const q of set) {
    const e = q.expect;
    const mentions = (await e.mentions?.(sql)) ?? [];
    const some = await e.mentionsSome?.(sql);
    const each = await e.mentionsEach?.(sql);
    const ordered = await e.ordered?.(sql);
    const numbers = (await e.numbers?.(sql)) ?? [];
    const absent = (await e.absent?.(sql)) ?? [];
    if (
      !e.mentions &&
      !e.mentionsSome &&
      !e.mentionsEach &&
      !e.ordered &&
      !e.numbers &&
      !e.says &&
      e.quotes !== 'required'
    )
      problems.push(`${q.ask}: expects nothing`);
    if (e.mentions && (mentions.length === 0 || mentions.some((m) => m.trim() === '')))
      problems.push(`${q.ask}: an empty name to mention`);
    if (some && some.length === 0) problems.push(`${q.ask}: nothing in mentionsSome`);
    if (
      each &&
      (each.length === 0 || each.some((forms) => forms.length === 0 || forms.some((f) => /^(0|NaN)/.test(f))))
    )
      problems.push(`${q.ask}: an empty or zero figure in mentionsEach`);
    if (each && new Set(each.map((forms) => forms[0])).size !== each.length)
      problems.push(`${q.ask}: two figures asked are equal`);
    if (each?.some((forms, i) => each.some((other, j) => j !== i && forms.some((f) => other.includes(f)))))
      problems.push(`${q.ask}: two figures asked share a written form`);
    // A ranking of fewer than two items, or with one item twice, says nothing about order.
    if (ordered && (ordered.length < 2 || ordered.some((forms) => forms.length === 0)))
      problems.push(`${q.ask}: a ranking of fewer than two items`);
    if (ordered && new Set(ordered.map((forms) => forms[0])).size !== ordered.length)
      problems.push(`${q.ask}: an item ranked twice`);
    if (e.numbers && (numbers.length === 0 || numbers.some((n) => !Number.isFinite(n) || n === 0)))
      problems.push(`${q.ask}: a number that is 0 or not a number (${numbers.join(', ')})`);
    if (new Set(numbers).size !== numbers.length)
      problems.push(`${q.ask}: two figures asked are equal (${numbers.join(', ')})`);
    if (e.absent && absent.length === 0) problems.push(`${q.ask}: an absent list that is empty`);
    const named = [...mentions, ...(some ?? []), ...(each ?? []).flat(), ...(ordered ?? []).flat()];
    for (const a of absent)
      if (named.some((m) => m.toLowerCase().includes(a.toLowerCase())))
        problems.push(`${q.ask}: "${a}" must be both absent and named`);
    if (e.quotes === 'required') {
      const accounts = (await e.quoteAccounts?.(sql)) ?? [];
      if (!e.topic || accounts.length === 0) problems.push(`${q.ask}: quotes without a topic or a segment`);
      else if ((await h.turnsOn(sql, e.topic, accounts)) === 0)
        problems.push(`${q.ask}: the account never spoke on the topic`);
    }
    if (process.env.SHOW_TRUTHS)
      console.log(JSON.stringify({ ask: q.ask, mentions, some, each, ordered, numbers, absent }));
  }
  return problems;
}
