import type { Rng } from './prng.js';
import { BUYER_OPENERS, BUYER_TAILS } from './topics.js';

/** Values for the `{slots}` of one conversation. */
export type Slots = Readonly<Record<string, string>>;

export function fill(template: string, slots: Slots): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => slots[key] ?? whole);
}

const capitalize = (s: string) => (s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1));

/**
 * A buyer's sentence: the template filled, with a varied opener and sometimes an emphatic ending.
 * `used` holds the openers and endings already said in this conversation: people do not repeat
 * "That is a real blocker for us" twice in a minute.
 */
export function buyerSentence(rng: Rng, template: string, slots: Slots, used: Set<string>): string {
  const core = fill(template, slots);
  const opener = fill(varied(rng, BUYER_OPENERS, used), slots);
  const question = core.endsWith('?');
  const body = opener ? `${opener}${core}` : core;
  const tail = question ? '' : fill(varied(rng, BUYER_TAILS, used), slots);
  return capitalize(question ? body : `${body}.${tail}`);
}

function varied(rng: Rng, options: readonly string[], used: Set<string>): string {
  const choice = rng.pick(options);
  if (choice === '') return choice;
  if (used.has(choice)) return '';
  used.add(choice);
  return choice;
}

export function repSentence(template: string, slots: Slots): string {
  return capitalize(fill(template, slots));
}

/** Word count, for pacing transcript timestamps. */
export const wordCount = (s: string): number => s.split(/\s+/).filter(Boolean).length;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A month name `ahead` months after `t`, and the calendar quarter of `t`. */
export function calendarSlots(t: Date, ahead: number): { month: string; quarter: string } {
  const m = (t.getUTCMonth() + ahead) % 12;
  return { month: MONTHS[m] ?? 'January', quarter: `Q${Math.floor(t.getUTCMonth() / 3) + 1}` };
}
