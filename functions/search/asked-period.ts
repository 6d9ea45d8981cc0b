import * as chrono from 'chrono-node';
import { impossibleDateError, impossibleDateIn, parseIsoDate } from '../../platform/validation.js';

/**
 * The period a question names, read once for everyone who needs it (the search planner's natural-language
 * windows, the local model's plans, the grounding verifier's period check): `from` and `to` are ISO dates, `to` exclusive, `phrase` the
 * words it came from. The business periods a date parser does not know come first (quarters,
 * "this year", "recent", "gone quiet", "no touch in N days", "the next N days"); chrono-node reads
 * the rest (a month, a date, "since March", "last week").
 */
export interface AskedPeriod {
  from: string;
  to: string;
  phrase: string;
}

/** "Recent" means this many days back. */
export const RECENT_DAYS = 90;
/** "Gone quiet" without a number means no touch in this many days. */
export const QUIET_DAYS = 30;

const DAY_MS = 86_400_000;
const iso = (t: number): string => new Date(t).toISOString().slice(0, 10);
const startOf = (today: string): number => Date.parse(`${today}T00:00:00Z`);
const monthStart = (y: number, m: number): number => Date.UTC(y, m, 1);
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };
/** How many, in words, with the vague amounts people say ("a couple of weeks", "the last few months"). */
const WORD_NUMBERS: Record<string, number> = {
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
  couple: 2,
  few: 3,
  several: 3,
};
/** A count of days, weeks or months, for every rule that reads one: "60", "two", "a few", "a couple of". */
const QUANTITY = `(?:a )?(\\d{1,3}|${Object.keys(WORD_NUMBERS).join('|')})(?: of)?`;

type Rule = {
  pattern: RegExp;
  read: (m: RegExpExecArray, today: number, text: string) => [number, number] | null;
};

/**
 * "Gone quiet", "went dark", "been silent", "stalled", "stale deals": an ask about an absence of touch.
 * One source for the rules below, asksForQuiet and the quiet answer's wording (shape-quiet.ts).
 */
const QUIET = '(?:quiet|dark|silent|cold)';
const WENT_QUIET = `(?:gone|went|going|go|been) ${QUIET}`;
const QUIET_WORDS = `\\b${WENT_QUIET}\\b|\\bstalled\\b|\\bstale deals?\\b`;
/** A month by name or its abbreviation (chrono reads "in Oct" but not "since Oct"). */
const MONTH_NAME =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** The words before a bare year that make it an amount or a name, not a period ("over 2000", "Renewal 2027"). */
const NOT_A_YEAR_BEFORE = /(?:\b(?:over|under|above|below|than|least|most|about|around|#)|[$#\d-])\s*$/i;

/** A calendar unit relative to today: offset 0 is this one, -1 the previous, +1 the next. */
function calendar(unit: string, offset: number, today: number): [number, number] {
  const d = new Date(today);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  if (unit === 'week') {
    const monday = today - ((d.getUTCDay() + 6) % 7) * DAY_MS + offset * 7 * DAY_MS;
    return [monday, monday + 7 * DAY_MS];
  }
  if (unit === 'month') return [monthStart(y, m + offset), monthStart(y, m + offset + 1)];
  if (unit === 'quarter') {
    const q = Math.floor(m / 3) * 3 + offset * 3;
    return [monthStart(y, q), monthStart(y, q + 3)];
  }
  return [Date.UTC(y + offset, 0, 1), Date.UTC(y + offset + 1, 0, 1)];
}

const count = (word: string): number => WORD_NUMBERS[word] ?? Number(word);

const RULES: Rule[] = [
  // "gone quiet", "went dark", "no touch in 45 days", "haven't talked to in 60 days": the window with no touch.
  {
    pattern: new RegExp(
      `(?:\\bno (?:touch(?:es)?|activity|contact|calls?|meetings?|emails?)|(?:\\bnot|n'?t\\b)(?: \\w+)? (?:been )?(?:touched|talked to|heard from|spoken (?:to|with)|contacted))(?: \\w+){0,3}? (?:in|for)(?: the)?(?: last| past)? ${QUANTITY} (day|week|month)s?\\b`,
    ),
    read: (m, today) => [today - count(m[1]!) * UNIT_DAYS[m[2]!]! * DAY_MS, today + DAY_MS],
  },
  // "gone quiet for 60 days", "been silent for two months", "stalled for 3 weeks": the number they give.
  {
    // With a number, "are quiet" and "is silent" say it too ("accounts that are quiet for 60 days").
    pattern: new RegExp(
      `\\b(?:${WENT_QUIET}|(?:are|is|were) ${QUIET}|stalled)(?: \\w+){0,2}? (?:for|in|over)(?: the)?(?: last| past)?(?: over| more than| at least)? ${QUANTITY} (day|week|month)s?\\b`,
    ),
    read: (m, today) => [today - count(m[1]!) * UNIT_DAYS[m[2]!]! * DAY_MS, today + DAY_MS],
  },
  {
    pattern: new RegExp(QUIET_WORDS),
    read: (_m, today) => [today - QUIET_DAYS * DAY_MS, today + DAY_MS],
  },
  // "in the next 30 days", "over the coming two weeks"
  {
    pattern: new RegExp(`\\b(?:in |over |within |during )?(?:the )?(?:next|coming) ${QUANTITY} (day|week|month)s?\\b`),
    read: (m, today) => [today, today + (count(m[1]!) * UNIT_DAYS[m[2]!]! + 1) * DAY_MS],
  },
  // "in the last 60 days", "past two weeks", "last 3 months", "the last few months"
  {
    pattern: new RegExp(
      `\\b(?:in |over |during |within )?(?:the )?(?:last|past|previous) ${QUANTITY} (day|week|month|year)s?\\b`,
    ),
    read: (m, today) => [today - count(m[1]!) * UNIT_DAYS[m[2]!]! * DAY_MS, today + DAY_MS],
  },
  // "since last month": from the start of last month up to today.
  {
    pattern: /\bsince (?:the start of )?(last|this) (week|month|quarter|year)\b/,
    read: (m, today) => [calendar(m[2]!, m[1] === 'last' ? -1 : 0, today)[0], today + DAY_MS],
  },
  // "the first half of 2026", "H2 last year", "second half so far": a half year (this year's unless one is
  // named), read before "this year" so the year qualifies the half;
  // "so far" ends it today.
  {
    pattern:
      /\b(?:(first|second|1st|2nd) half|h([12]))(?: of(?: the year)?)?(?: ((?:19|20)\d{2})| (?:of )?(this|last|next) year)?( so far)?\b/,
    read: (m, today) => {
      const second = m[1] ? /second|2nd/.test(m[1]) : m[2] === '2';
      const shift = m[4] === 'last' ? -1 : m[4] === 'next' ? 1 : 0;
      const y = m[3] ? Number(m[3]) : new Date(today).getUTCFullYear() + shift;
      const from = monthStart(y, second ? 6 : 0);
      const to = monthStart(y, second ? 12 : 6);
      return [from, m[5] ? Math.min(to, today + DAY_MS) : to];
    },
  },
  {
    pattern: /\b(this|current|last|previous|past|prior|next|coming) (week|month|quarter|year)\b/,
    read: (m, today) => {
      const offset = /this|current/.test(m[1]!) ? 0 : /next|coming/.test(m[1]!) ? 1 : -1;
      return calendar(m[2]!, offset, today);
    },
  },
  { pattern: /\b(?:year to date|ytd)\b/, read: (_m, today) => [calendar('year', 0, today)[0], today + DAY_MS] },
  // "before year end", "by the end of January", "before end of Q1": from today up to that end.
  {
    pattern: new RegExp(
      `\\b(?:before|by|until|till|ahead of)(?: the)? (?:(?:year|quarter|month)[- ]end|end of(?: the)? (year|quarter|month|q[1-4]|${MONTH_NAME}))\\b`,
    ),
    read: (m, today) => {
      const quarter = /\bq([1-4])\b/.exec(m[0]);
      if (quarter) {
        const y = new Date(today).getUTCFullYear();
        const end = monthStart(y, 3 * Number(quarter[1]));
        return [today, end > today ? end : monthStart(y + 1, 3 * Number(quarter[1]))];
      }
      const unit = m[0].match(/year|quarter|month/)?.[0];
      const named = m[2] ? MONTHS.indexOf(m[2].slice(0, 3)) : -1;
      if (named >= 0) {
        const y = new Date(today).getUTCFullYear();
        const end = monthStart(y, named + 1);
        return [today, end > today ? end : monthStart(y + 1, named + 1)];
      }
      return [today, calendar(unit ?? 'year', 0, today)[1]];
    },
  },
  {
    pattern: /\bq([1-4])(?:\s*'?((?:19|20)\d{2}))?\b/,
    read: (m, today) => {
      const q = Number(m[1]) - 1;
      let y = m[2] ? Number(m[2]) : new Date(today).getUTCFullYear();
      if (!m[2] && monthStart(y, q * 3) > today) y -= 1;
      return [monthStart(y, q * 3), monthStart(y, q * 3 + 3)];
    },
  },
  {
    pattern: /\b(?:recent(?:ly)?|lately|latest|these days|of late)\b/,
    read: (_m, today) => [today - RECENT_DAYS * DAY_MS, today + DAY_MS],
  },
  {
    pattern: /\bsince (\d{4}-\d{2}-\d{2})\b/,
    read: (m, today) => {
      const since = parseIsoDate(m[1]!);
      return since === null ? null : [since, today + DAY_MS];
    },
  },
  {
    pattern: /\b(?:in |during )((?:19|20)\d{2})\b(?!-)/,
    read: (m) => [Date.UTC(Number(m[1]), 0, 1), Date.UTC(Number(m[1]) + 1, 0, 1)],
  },
  {
    pattern: /\b(?:since|from) ((?:19|20)\d{2})\b(?!-)/,
    read: (m, today) => [Date.UTC(Number(m[1]), 0, 1), today + DAY_MS],
  },
  // "since Oct", "from sept 2025": from the start of that month (the latest begun) up to today.
  {
    pattern: new RegExp(`\\b(?:since|from) ${MONTH_NAME}(?: ((?:19|20)\\d{2}))?\\b(?! (?:to|through|until|till)\\b)`),
    read: (m, today) => {
      const month = MONTHS.indexOf(m[1]!.slice(0, 3));
      let year = m[2] ? Number(m[2]) : new Date(today).getUTCFullYear();
      if (!m[2] && monthStart(year, month) > today) year -= 1;
      return [monthStart(year, month), today + DAY_MS];
    },
  },
];

/**
 * A year alone ("pricing 2025", "2025 calls"), read only when nothing else is (so "May 2025" is May),
 * and not when it is an amount ("over 2000") or ends a name written with capitals ("Acme Logistics -
 * Renewal 2027"): the year.
 */
const BARE_YEAR: Rule = {
  pattern: /\b((?:19|20)\d{2})\b(?![-/.,]?\d)/,
  read: (m, _today, text) => {
    const before = text.slice(0, m.index);
    if (NOT_A_YEAR_BEFORE.test(before) || /\b\p{Lu}[\p{L}\p{N}'&.-]*\s+$/u.test(before)) return null;
    return [Date.UTC(Number(m[1]), 0, 1), Date.UTC(Number(m[1]) + 1, 0, 1)];
  },
};

/**
 * The period the text names, or null. `today` is the asker's date, "YYYY-MM-DD". A date written in
 * the text that does not exist ("since 2026-02-30", "9999-99-99") is `400 invalid_argument` naming
 * the phrase: no reader guesses which day was meant (a date parser would roll it into March).
 */
export function parseAskedPeriod(text: string, today: string): AskedPeriod | null {
  const impossible = impossibleDateIn(text);
  if (impossible) throw impossibleDateError(impossible, phraseAround(text, impossible));
  const t = startOf(today);
  if (Number.isNaN(t)) return null;
  const written = withUnitsSpelledOut(text);
  const period =
    byRules(RULES, written.text, t) ?? chronoPeriod(written.text, t) ?? byRules([BARE_YEAR], written.text, t);
  return period && written.text !== text ? { ...period, phrase: written.original(period.phrase) } : period;
}

/** Units as people shorten them: "this qtr", "last yr", "past 2 wks". */
const UNIT_SHORTHAND: readonly [RegExp, string][] = [
  [/\bqtrs\b/gi, 'quarters'],
  [/\bqtr\b/gi, 'quarter'],
  [/\byrs\b/gi, 'years'],
  [/\byr\b/gi, 'year'],
  [/\bwks\b/gi, 'weeks'],
  [/\bwk\b/gi, 'week'],
];

/**
 * The text with shortened units spelled out, so one set of rules reads both, and a way back from a
 * phrase of the spelled-out text to the words as the asker wrote them (the phrase is echoed and matched
 * against the question).
 */
function withUnitsSpelledOut(text: string): { text: string; original(phrase: string): string } {
  let out = text;
  for (const [pattern, unit] of UNIT_SHORTHAND) out = out.replace(pattern, unit);
  if (out === text) return { text, original: (phrase) => phrase };
  return {
    text: out,
    original(phrase) {
      let written = phrase;
      for (const [pattern, unit] of UNIT_SHORTHAND) {
        const short = [...text.matchAll(new RegExp(pattern.source, 'gi'))][0]?.[0];
        if (short) written = written.replace(new RegExp(`\\b${unit}\\b`, 'i'), short);
      }
      return text.toLowerCase().includes(written.toLowerCase()) ? written : phrase;
    },
  };
}

function byRules(rules: readonly Rule[], text: string, today: number): AskedPeriod | null {
  const lower = text.toLowerCase();
  for (const rule of rules) {
    const m = rule.pattern.exec(lower);
    if (!m) continue;
    const span = rule.read(m, today, text);
    if (span)
      return { from: iso(span[0]), to: iso(span[1]), phrase: text.slice(m.index, m.index + m[0].length).trim() };
  }
  return null;
}

/** The sentence of `text` that holds the character at `at` (sentences end at . ? ! or ; and a space). */
function sentenceAt(text: string, at: number): string {
  const starts = [...text.slice(0, at).matchAll(/[.?!;]\s+/g)].map((m) => (m.index ?? 0) + m[0].length);
  const start = starts.at(-1) ?? 0;
  const end = /[.?!;](?:\s|$)/.exec(text.slice(at));
  return text.slice(start, end ? at + end.index + 1 : text.length);
}

/** What chrono-node reads: a day, a month (the latest one begun, unless the ask looks ahead), "since ...". */
function chronoPeriod(text: string, today: number): AskedPeriod | null {
  // Deal names carry years ("Renewal 2027") and "may" is a verb: only phrases chrono is sure of count.
  const results = chrono.parse(text, { instant: new Date(today + DAY_MS / 2), timezone: 'UTC' });
  const hit = results.find(
    (r) => r.start.isCertain('month') || r.start.isCertain('weekday') || /day|week/i.test(r.text),
  );
  if (!hit) return null;
  const start = hit.start;
  // Looking ahead is said of the date in its own sentence: "lost their champion in May. Did the renewal
  // close?" names the May gone by, though its next sentence asks about a close.
  const ahead = /\b(clos\w*|due|expected|next|upcoming|coming)\b/i.test(sentenceAt(text, hit.index));
  let from: number;
  let to: number;
  if (start.isCertain('day') || start.isCertain('weekday')) {
    const d = start.date();
    from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    // A bare weekday is the last one (or, asked ahead, the next one).
    if (!start.isCertain('day') && !ahead && from > today) from -= 7 * DAY_MS;
    to = from + DAY_MS;
  } else {
    const month = (start.get('month') ?? 1) - 1;
    let year = start.isCertain('year') ? (start.get('year') ?? 0) : new Date(today).getUTCFullYear();
    if (!start.isCertain('year')) {
      if (!ahead && monthStart(year, month) > today) year -= 1;
      if (ahead && monthStart(year, month + 1) <= today) year += 1;
    }
    from = monthStart(year, month);
    to = monthStart(year, month + 1);
  }
  if (hit.end) {
    const e = hit.end.date();
    // An end without a year is the first one after the start ("from March to May" is this March to May).
    let endYear = e.getUTCFullYear();
    if (!hit.end.isCertain('year')) {
      endYear = new Date(from).getUTCFullYear();
      if (Date.UTC(endYear, e.getUTCMonth(), e.getUTCDate()) < from) endYear += 1;
    }
    to = Date.UTC(
      endYear,
      e.getUTCMonth() + (hit.end.isCertain('day') ? 0 : 1),
      hit.end.isCertain('day') ? e.getUTCDate() + 1 : 1,
    );
  }
  const since = new RegExp(`\\b(since|after|from)\\s+${escapeRegExp(hit.text)}`, 'i').test(text);
  // "since March" runs to today; "from March to May" is the range chrono read.
  if (since && !hit.end) to = today + DAY_MS;
  if (to <= from) return null;
  const phraseStart = since ? text.toLowerCase().lastIndexOf(' ', hit.index - 2) + 1 : hit.index;
  return { from: iso(from), to: iso(to), phrase: text.slice(phraseStart, hit.index + hit.text.length).trim() };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The date with the word that says how it bounds the period ("since 9999-99-99"), as the asker wrote it. */
function phraseAround(text: string, date: string): string {
  const m = new RegExp(`\\b(?:since|from|after|before|until|till|to|on|in|by)\\s+${escapeRegExp(date)}`, 'i').exec(
    text,
  );
  return m ? m[0] : date;
}

/**
 * What a period qualifies. In a question about deals' outcomes ("which deals close
 * this quarter", "why did we lose deals last quarter", "what did we win this year") the period says
 * when the deals close, so it bounds their close dates, and what their buyers said is quoted from
 * while those deals were open: before the period, as often as not. Deals "created", "opened" or
 * "added" in a period, and everything else ("what did customers say about pricing last quarter"),
 * are bounded by when they happened. The verifier's period check (grounding-period.ts) reads it here;
 * the local model's deal filters (intent-deals.ts) put the period on the close date for these asks.
 */
export function periodBoundsCloseDates(text: string): boolean {
  const lower = text.toLowerCase();
  if (/\b(created|opened|new deals|added|came in)\b/.test(lower)) return false;
  return /\b(clos(e|es|ed|ing)|won|win|wins|winning|booked|lost|lose|loses|losing|losses)\b/.test(lower);
}

/** Whether the ask is about an absence of touch ("gone quiet", "no touch in 45 days"), not a window of events. */
/** "Gone quiet" or "not talked to", also as written in a hurry ("havent spoken to"). */
export function asksForQuiet(text: string): boolean {
  return new RegExp(
    `${QUIET_WORDS}|\\bno (touch|activity|contact)|(not|n'?t\\b)( \\w+)? (been )?(touched|talked to|heard from|spoken|contacted)`,
    'i',
  ).test(text);
}

/** Whether the period is "gone quiet" (or "stalled") with no number of days given: the default window. */
export const isDefaultQuiet = (p: AskedPeriod): boolean => new RegExp(`^(?:${QUIET_WORDS})$`, 'i').test(p.phrase);

/** Whether a period is a window the answer can name in words without digits ("last quarter" yes, "in 2019" no). */
export const periodWords = (p: AskedPeriod): string =>
  /\d/.test(p.phrase) ? 'in the period you asked about' : p.phrase;
