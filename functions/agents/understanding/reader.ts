import { DEAL_STAGES } from '../../../schema/index.js';
import { asksForQuiet, parseAskedPeriod, type AskedPeriod } from '../../search/index.js';
import { readComparison, shiftBack } from './comparison.js';
import { linkEntities, type Entities } from './entities.js';
import type { Interpretation, InterpretedFilter, InterpretedPeriod } from './interpretation.js';
import { LEXICON, type CueAnalysis, type Element, type Field } from './lexicon.js';
import {
  ANALYSIS_HOLDS,
  INVERSE_WORDS,
  ONE_ACCOUNT_ANALYSES,
  OPERATION_MEASURES,
  OPERATION_PERIOD_FIELDS,
  OPERATION_SUBJECTS,
  operationAnalysisOf,
  operationWords,
  AMOUNT_WORDS,
  TALK_OBJECTS,
  NAMING_ANALYSES,
  QUALIFYING_CUES,
  REASONING_ANALYSES,
  TALK_VERBS,
} from './operation-analyses.js';
import { asksWhichAccounts, customerAskAt } from './customer-asks.js';
import { nearWordAt } from './near-words.js';
import { isScaffoldWord } from './question-words.js';
import { tokenize, type Token } from './tokens.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * The local reader (agents.md, "The reader"): a question → one typed interpretation, composed from
 * what each span of it says. Names are linked against the workspace (entities.ts), the period is read
 * by the one period module (search/asked-period.ts), and every other word is looked up, by lemma, in
 * the lexicon (lexicon.ts); the structure is then composed from the elements found, not chosen from
 * a list of phrasings. Words nothing explains are listed in `unexplained`, never searched in silence.
 *
 * It reads questions about records — deals and conversations: lists, counts, totals, win rates and
 * weighted pipeline, filtered, grouped, ordered and limited — and returns `null` for a question whose
 * words belong to another kind of answer (what customers say, competitors, churn, ...), which the
 * local model's other readers answer (local-policy/intent.ts).
 */

export interface ReadContext {
  ask: string;
  earlierAsks: readonly string[];
  today: string;
}

interface Placed {
  element: Element;
  from: number;
  to: number;
  words: string;
}

/** Lexicon phrases as word lists, longest first, so "closed won" is read before "closed". */
const PHRASES = LEXICON.map(([phrase, element], order) => ({ words: phrase.split(' '), element, order })).sort(
  (a, b) => b.words.length - a.words.length || a.order - b.order,
);
/** The lexicon's phrase a customer's ask in another verb is read as (customer-asks.ts). */
const ASK_FOR = PHRASES.find((p) => p.words.join(' ') === 'ask for')!;

const STAGE_WORDS: Record<string, string> = Object.fromEntries(
  DEAL_STAGES.map((s) => [s.replace('_', ' '), s] as const),
);
/** Subject words that mean the open book of deals ("pipeline", "the pipe"). */
const PRESENT = LEXICON.filter(([, e]) => e.kind === 'present').map(([phrase]) => phrase);
const OPEN_BOOK = new Set(['pipeline', 'pipe', 'book', 'forecast']);
const FOLLOW_UP = /^\s*(and|also|what about|how about|same|ok|okay|then|now)\b/i;
const WHICH = new Set(['which', 'who', 'whose', 'whos']);
/** Question words that ask for a person: "who has the best win rate", "whose book is biggest". */
const WHO = new Set(['who', 'whose', 'whos']);
const REFERS_BACK = new Set(['they', 'them', 'their', 'theirs', 'those', 'these', 'it', 'its']);
/** Pronouns that name the set of records an earlier ask selected ("what are they worth weighted?"). */
const SET_BACK = new Set(['they', 'them', 'those', 'these']);

const KINDS_OF = new WeakMap<Vocabulary, string[]>();

/** The kinds of deal the workspace names its deals by ("Acme - Renewal 2026" → renewal), lower case; once per vocabulary. */
export function dealKinds(vocab: Vocabulary): string[] {
  const known = KINDS_OF.get(vocab);
  if (known) return known;
  const kinds = kindsOf(vocab);
  KINDS_OF.set(vocab, kinds);
  return kinds;
}

function kindsOf(vocab: Vocabulary): string[] {
  const kinds = new Map<string, number>();
  for (const d of vocab.deals) {
    const label = d.account && d.name.startsWith(d.account) ? d.name.slice(d.account.length) : null;
    const kind = label
      ?.replace(/^[\s\-–—:|]+/, '')
      .replace(/\b(19|20)\d{2}\b/g, '')
      .trim()
      .toLowerCase();
    if (kind) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  // A kind is a kind when several deals share it; a one-off label is a name, linked as a deal.
  return [...kinds].filter(([, n]) => n >= 2).map(([k]) => k);
}

/**
 * Read one question (with its thread) as an interpretation, or null when it is not about records. A
 * question of several parts gets them in `parts`, each to be read on its own (readParts); the
 * structure itself is the first part's reading.
 */
export function readQuestion(ctx: ReadContext, vocab: Vocabulary, depth = 0): Interpretation | null {
  const reading = readComposed(ctx, vocab, depth);
  return reading ? aheadWhenOpen(reading, ctx.today) : null;
}

/**
 * Open deals close in the future: a month or quarter named without a year that has already passed
 * ("which deals are closing in january?" in November) is the next one, not the one gone by.
 */
function aheadWhenOpen(r: Interpretation, today: string): Interpretation {
  const p = r.period;
  const open = r.filters.some((f) => f.field === 'is_closed' && f.value === false);
  if (
    !p ||
    !open ||
    p.field !== 'close_date' ||
    p.to > today ||
    /\d{4}|\b(last|previous|past|prior|ago)\b/i.test(p.phrase)
  )
    return r;
  const year = (iso: string) => `${Number(iso.slice(0, 4)) + 1}${iso.slice(4)}`;
  return { ...r, period: { ...p, from: year(p.from), to: year(p.to) } };
}

function readComposed(ctx: ReadContext, vocab: Vocabulary, depth: number): Interpretation | null {
  if (depth === 0) {
    const parts = splitParts(ctx.ask, ctx.today, vocab);
    if (parts.length > 1) {
      const read = readParts({ ...ctx, ask: '' }, parts, vocab);
      const whole = wholeAnalysis(read, ctx.today, vocab);
      if (whole) return whole;
      const readings = read.flatMap((p) => (p.reading ? [p.reading] : []));
      const first = readings[0];
      if (!first) return null;
      // Each part keeps its own period; the whole has one only when every part shares it (the verifier
      // holds the answer's figures to it).
      const shared = readings.every((r) => r.period?.from === first.period?.from && r.period?.to === first.period?.to);
      return { ...first, parts, period: shared ? first.period : null };
    }
  }
  const own = readOwn(ctx.ask, ctx.today, vocab);
  const previous = ctx.earlierAsks.at(-1);
  // A follow-up borrows the earlier reading when it names no records of its own, or opens as one
  // ("and ...", "what about ..."); words of its own nothing explains ("and what about security?") make it
  // another kind of question, not this one narrowed.
  const borrows =
    own !== null &&
    previous !== undefined &&
    depth < 3 &&
    own.cues.size === 0 &&
    (FOLLOW_UP.test(ctx.ask) || !own.subjectFromWords || own.refersToSet) &&
    (own.reading !== null || own.unexplained === 0);
  if (borrows) {
    const before = readQuestion({ ...ctx, ask: previous, earlierAsks: ctx.earlierAsks.slice(0, -1) }, vocab, depth + 1);
    if (before) return inherit(before, own);
  }
  if (!own || own.cues.size > 0 || own.reading === null || own.deferred) return null;
  if (own.reading.subject === null && own.reading.analysis !== 'not_understood') return null;
  // "that account", "them": the names the latest earlier ask named, when this one names none.
  if (own.refersBack && previous !== undefined) return withEarlierNames(own.reading, ctx, vocab);
  return own.reading;
}

/**
 * An analysis answers every part that asks only what its result already holds (ANALYSIS_HOLDS): one
 * account's history holds its first and last touch, its deals and conversations ("when did we first
 * talk to granite and how many deals have we opened with them"); champion changes hold the deals since
 * each departure ("which customers lost their champion this year, and did we still close anything with
 * them after?"). Such a question is that analysis, read whole. A part that asks another kind of question
 * (what they said about pricing, a win rate), or other records than those the analysis is of (a part
 * of an analysis of many accounts must refer back to them), keeps the parts apart.
 */
function wholeAnalysis(
  parts: readonly { text: string; reading: Interpretation | null }[],
  today: string,
  vocab: Vocabulary,
): Interpretation | null {
  const whole = parts.find((p) => p.reading && ANALYSIS_HOLDS[p.reading.analysis])?.reading;
  const holds = whole ? ANALYSIS_HOLDS[whole.analysis] : undefined;
  if (!whole || !holds) return null;
  const oneAccount = ONE_ACCOUNT_ANALYSES.has(whole.analysis);
  const accountsOf = (r: Interpretation) => r.names.accounts;
  const sameAccounts = (r: Interpretation) =>
    accountsOf(r).length === 0 || accountsOf(r).every((a) => accountsOf(whole).includes(a));
  const answered = parts.every(({ text, reading }) => {
    if (reading?.analysis === whole.analysis && sameAccounts(reading)) return true;
    // A part that names no records of its own ("when was the last touch?") asks only the analysis's words of them.
    if (!reading) return [...(readOwn(text, today, vocab)?.cues ?? [])].every((c) => holds.cues.includes(c));
    return (
      reading.analysis === 'records' &&
      reading.subject !== null &&
      (holds.subjects as readonly string[]).includes(reading.subject) &&
      sameAccounts(reading) &&
      (oneAccount || readOwn(text, today, vocab)?.refersBack === true)
    );
  });
  return answered ? { ...whole, parts: [] } : null;
}

/**
 * Whether the ask (its last turn) holds a word no name, period or lexicon entry explains: the words a
 * vocabulary learned later (the competitors the conversations name) may explain.
 */
export function leavesWordsUnplaced(ask: string, today: string, vocab: Vocabulary): boolean {
  return unplacedWords(ask, today, vocab).length > 0;
}

/** The words of the ask no name, period, lexicon entry or near word explains. */
export function unplacedWords(ask: string, today: string, vocab: Vocabulary): string[] {
  return readOwn(ask, today, vocab)?.unplaced ?? [];
}

/** Each part of a multi-part question read on its own, after the thread and the parts before it; null: not about records. */
export function readParts(
  ctx: ReadContext,
  parts: readonly string[],
  vocab: Vocabulary,
): { text: string; reading: Interpretation | null }[] {
  return parts.map((text, i) => ({
    text,
    reading: readQuestion({ ...ctx, ask: text, earlierAsks: [...ctx.earlierAsks, ...parts.slice(0, i)] }, vocab, 1),
  }));
}

/** At most as many pieces as an interpretation holds parts (InterpretationSchema). */
const MAX_PIECES = 10;

/** Where one question may end and another begin: a question mark, a semicolon, a comma, "and", "plus". */
const PART_BREAK = /(\?\s+|;\s*|,\s*(?:and\s+|plus\s+|also\s+)?|\s+(?:and|plus|also|&)\s+)/i;
/**
 * A piece that opens as a question. "When" and "where" ask only with the verb first ("when does it
 * close"); followed by a subject they open a condition ("when Quotient Labs is in the deal, ..."), no part.
 */
const ASKS =
  /^\W*(?:and\s+|also\s+|plus\s+)?(?:how|what|which|who|whose|list|show|give|tell|is|are|do|does|did|(?:when|where)\s+(?:is|are|was|were|do|does|did|will|can|should|has|have|had)\b)\b/i;

/**
 * The parts of a question that asks several things ("biggest open deal in EMEA, and how many inbound
 * emails landed last month"). A piece is a part of its own when it asks something by itself: records
 * with a measure, an order, a limit or an analysis, or a question word; a piece that does not ("who owns
 * each", "calls, meetings and emails") stays with the part before it. Words before a colon that ask
 * nothing themselves ("EMEA snapshot:", "Q3 recap:") qualify every part. One part: an empty list.
 */
function splitParts(ask: string, today: string, vocab: Vocabulary): string[] {
  const colon = /^([^:?]{1,60}):\s+(.+)$/s.exec(ask);
  const prefix = colon && !asksByItself(colon[1]!, today, vocab).asks ? colon[1]! : null;
  const body = prefix ? colon![2]! : ask;
  // Of the words before the colon only what qualifies records carries to every part: its period and names.
  const context = prefix ? qualifiersOf(prefix, today, vocab) : null;
  if (!PART_BREAK.test(body)) return [];
  const pieces = body.split(PART_BREAK);
  // Each piece is read once more: a question of more pieces than an interpretation holds parts is read
  // whole, so a long list of commas costs one reading, not hundreds.
  if (pieces.length > 2 * MAX_PIECES - 1) return [];
  const parts: string[] = [];
  let current = '';
  let currentAsks: Asking = { asks: false, analysis: null };
  for (let i = 0; i < pieces.length; i += 2) {
    const piece = pieces[i]!;
    const asking = piece.trim() === '' ? NOT_ASKING : asksByItself(piece, today, vocab);
    // Records named without a question word ("open pipeline for Rhea") are a part of their own when the
    // next piece asks for another analysis of them ("and her win rate"): merged, one would swallow the other.
    // A piece opening with a preposition ("of the deals we closed, ...") qualifies the next one instead.
    const qualifiesNext = QUALIFIES.test(current) || CONDITION.test(current);
    const ownPart =
      asking.asks &&
      (currentAsks.asks ||
        (currentAsks.analysis !== null && currentAsks.analysis !== asking.analysis && !qualifiesNext));
    if (ownPart) {
      parts.push(current);
      current = piece;
      currentAsks = asking;
    } else {
      current = current ? `${current}${pieces[i - 1] ?? ' '}${piece}` : piece;
      currentAsks = { asks: currentAsks.asks || asking.asks, analysis: currentAsks.analysis ?? asking.analysis };
    }
  }
  if (current.trim()) parts.push(current);
  if (parts.length < 2) return [];
  return parts.map((p) => {
    const text = p.trim().replace(/[,;]\s*$/, '');
    return context ? `${context}: ${text}` : text;
  });
}

/** The period phrase and the names a piece of a question gives, as words another part can be read with. */
function qualifiersOf(piece: string, today: string, vocab: Vocabulary): string | null {
  const e = linkEntities(piece, vocab);
  const words = [
    parseAskedPeriod(piece, today)?.phrase,
    ...e.accounts.map((a) => a.asked),
    ...e.regions,
    ...e.industries,
    ...e.owners.map((o) => o.name ?? o.email),
  ].filter((w): w is string => Boolean(w));
  return words.length > 0 ? words.join(' ') : null;
}

const QUALIFIES = /^\W*(?:of|for|among|across|in|from|within|on|with|out of)\b/i;
/**
 * A piece that opens a condition ("when a champion leaves, do we still win?", "if acme cancels, what
 * is at stake", "once a deal slips, ..."): a subject after the conjunction, not a verb. It asks nothing
 * by itself; it says which records the next piece is about.
 */
const CONDITION =
  /^\W*(?:when|whenever|if|once|after|as soon as)\s+(?!(?:is|are|was|were|do|does|did|will|can|could|should|would|has|have|had)\b)/i;

/** Whether a piece asks something by itself, and the analysis of the records it names (null: none). */
interface Asking {
  asks: boolean;
  analysis: Interpretation['analysis'] | null;
}
const NOT_ASKING: Asking = { asks: false, analysis: null };

function asksByItself(piece: string, today: string, vocab: Vocabulary): Asking {
  const own = readOwn(piece, today, vocab);
  if (!own) return NOT_ASKING;
  if (CONDITION.test(piece)) return { asks: false, analysis: own.reading?.analysis ?? null };
  if (own.cues.size > 0) return { asks: ASKS.test(piece), analysis: null };
  const r = own.reading;
  if (!r || r.subject === null) return NOT_ASKING;
  const asks =
    r.measure.fn !== 'list' || r.order !== null || r.limit !== null || r.analysis !== 'records' || ASKS.test(piece);
  return { asks, analysis: r.analysis };
}

/** The accounts, owners or deals of the latest earlier ask that named any, applied to a reading naming none. */
function withEarlierNames(reading: Interpretation, ctx: ReadContext, vocab: Vocabulary): Interpretation {
  const named = new Set(['account_name', 'owner_email', 'name']);
  if (reading.filters.some((f) => named.has(f.field))) return reading;
  for (const ask of [...ctx.earlierAsks].reverse()) {
    const e = linkEntities(ask, vocab);
    const accounts = e.accounts.flatMap((a) => a.matches);
    if (accounts.length === 0 && e.owners.length === 0) continue;
    const filters: InterpretedFilter[] = [];
    if (accounts.length > 0)
      filters.push(
        accounts.length === 1
          ? { field: 'account_name', op: 'eq', value: accounts[0]!, from_words: null }
          : { field: 'account_name', op: 'in', value: accounts, from_words: null },
      );
    if (e.owners.length > 0 && reading.subject === 'deals')
      filters.push({ field: 'owner_email', op: 'in', value: e.owners.map((o) => o.email), from_words: null });
    return {
      ...reading,
      filters: [...reading.filters, ...filters],
      names: { ...reading.names, accounts, people: e.owners.map((o) => o.name ?? o.email) },
      inherited: [...reading.inherited, accounts.length > 0 ? 'account' : 'owner'],
    };
  }
  return reading;
}

interface OwnReading {
  reading: Interpretation | null;
  /** Content words nothing placed. */
  unexplained: number;
  /** The words themselves, in the order asked. */
  unplaced: string[];
  /** "that account", "them": it names what an earlier ask named. */
  refersBack: boolean;
  /** "they", "those": it is about the records an earlier ask selected, whatever it computes of them. */
  refersToSet: boolean;
  /** Capitalised names inside the question that the workspace's names, the lexicon and the period do not explain. */
  unknown: string[];
  /**
   * The intent readers answer it better: a company name matching several accounts (they ask which
   * one), or a capitalised name the workspace does not hold (they say no such account exists).
   */
  deferred: boolean;
  /** Whether the question named its records itself (false: only filters or a measure, as a follow-up writes). */
  subjectFromWords: boolean;
  cues: Set<CueAnalysis>;
  /** The slots the question itself filled, for a follow-up to override. */
  slots: Set<string>;
  /** "vs the quarter before": the words of a period that points back from the earlier ask's. */
  comparesBack: string | null;
}

function readOwn(ask: string, today: string, vocab: Vocabulary): OwnReading | null {
  const entities = linkEntities(ask, vocab);
  const tokens = tokenize(ask);
  if (tokens.length === 0) return null;
  const placed: Placed[] = [];
  const taken = new Set<number>();
  const place = (from: number, to: number, element: Element) => {
    for (let i = from; i < to; i++) taken.add(i);
    placed.push({
      element,
      from,
      to,
      words: tokens
        .slice(from, to)
        .map((t) => t.text)
        .join(' '),
    });
  };

  // Names first: an account, owner, region or deal kind is never read as a lexicon word.
  const nameSpans = nameOffsets(ask, entities);
  tokens.forEach((t, i) => {
    if (nameSpans.some(([s, e]) => t.start >= s && t.end <= e)) taken.add(i);
  });
  let period: AskedPeriod | null = parseAskedPeriod(ask, today);
  // "Right now", "currently", "as of today" name the present state, not a period to bound anything by.
  if (period && PRESENT.some((p) => p.includes(period!.phrase.toLowerCase()) && ask.toLowerCase().includes(p)))
    period = null;
  // Two periods side by side: the first bounds the records, the second is what they are compared with.
  const comparison = readComparison(ask, today);
  if (comparison?.first) period = comparison.first;
  const periodSpans = [period?.phrase, comparison?.second.phrase, ...(comparison?.words ?? [])].flatMap((phrase) => {
    const span = phrase ? spanOf(ask, phrase) : null;
    return span ? [span] : [];
  });
  tokens.forEach((t, i) => {
    if (periodSpans.some(([s, e]) => t.start >= s && t.end <= e)) taken.add(i);
  });
  const stages: string[] = [];
  const kinds: string[] = [];
  const owners = [...entities.owners];
  const knownKinds = dealKinds(vocab);
  for (let i = 0; i < tokens.length; i++) {
    if (taken.has(i)) continue;
    const two = `${tokens[i]!.lemma} ${tokens[i + 1]?.lemma ?? ''}`;
    const stage = STAGE_WORDS[two] ?? STAGE_WORDS[tokens[i]!.lemma] ?? STAGE_WORDS[tokens[i]!.lower];
    if (stage) {
      stages.push(stage);
      taken.add(i);
      if (STAGE_WORDS[two]) taken.add(i + 1);
      continue;
    }
    const kind = knownKinds.find((k) => {
      const words = k.split(' ');
      return words.every((w, j) => tokens[i + j] && (tokens[i + j]!.lemma === w || tokens[i + j]!.lower === w));
    });
    if (kind) {
      kinds.push(kind);
      for (let j = 0; j < kind.split(' ').length; j++) taken.add(i + j);
    }
  }
  // A deal owner by a first or last name written in lower case ("what's mateo got open"), when only
  // one owner has it and no lexicon entry claims the word.
  tokens.forEach((t, i) => {
    if (taken.has(i) || PHRASES.some((p) => p.words.length === 1 && matches(p.words[0]!, t))) return;
    // A possessive written without its apostrophe ("paulas number", "oscars opps") is the name.
    const named = (word: string) => vocab.owners.filter((o) => o.name?.toLowerCase().split(' ').includes(word));
    const exact = named(t.lower);
    const hits = exact.length > 0 || !t.lower.endsWith('s') ? exact : named(t.lower.slice(0, -1));
    if (hits.length === 1 && t.lower.length >= 3) {
      if (!owners.includes(hits[0]!)) owners.push(hits[0]!);
      taken.add(i);
    }
  });

  // A customer asking, in whatever verb ("pushing for", "pressing us for", "accounts want"), is a
  // request before the verb's other senses are ("push" as a date pushed out): customer-asks.ts.
  const nearWords: { word: string; as: string }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const ask = customerAskAt(tokens, i, (j) => !taken.has(j));
    // "asked for" is the lexicon's own phrase: read by it, not through another verb.
    if (!ask || tokens[i]!.lemma === 'ask') continue;
    place(ask.from, ask.to, ASK_FOR.element);
    nearWords.push({ word: placed.at(-1)!.words, as: 'ask for' });
    i = ask.to - 1;
  }

  // The lexicon, longest phrase first, on the words no name took.
  for (let i = 0; i < tokens.length; i++) {
    if (taken.has(i)) continue;
    const hit = PHRASES.find((p) =>
      p.words.every((w, j) => tokens[i + j] !== undefined && !taken.has(i + j) && matches(w, tokens[i + j]!)),
    );
    if (hit) {
      place(i, i + hit.words.length, hit.element);
      i += hit.words.length - 1;
    }
  }

  // Words the lexicon does not hold, read as a lexicon phrase they share a meaning with (near-words.ts).
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (taken.has(i) || isScaffoldWord(t.lower) || isScaffoldWord(t.lemma)) continue;
    const near = nearWordAt(tokens, i, (j) => !taken.has(j));
    const hit = near ? PHRASES.find((p) => p.words.join(' ') === near.phrase) : undefined;
    if (!near || !hit) continue;
    place(i, i + near.length, hit.element);
    nearWords.push({ word: placed.at(-1)!.words, as: near.phrase });
    i += near.length - 1;
  }

  const numbers = new Set<number>();
  const unexplained: string[] = [];
  tokens.forEach((t, i) => {
    if (taken.has(i)) return;
    // A number, or the scale written after one ("30k" is read as 30 and k): part of an amount, not a word.
    const afterNumber = i > 0 && numbers.has(i - 1) && tokens[i - 1]!.end === t.start;
    if (/^[\d.,$%]+[km]?$/i.test(t.lower) || (afterNumber && /^(k|m|grand|thousand|million)$/.test(t.lower))) {
      numbers.add(i);
      return;
    }
    if (isScaffoldWord(t.lower) || isScaffoldWord(t.lemma)) return;
    unexplained.push(t.text);
  });

  readLossOfPeople(placed);
  const els = placed.map((p) => p.element);
  const cues = new Set(els.flatMap((e) => (e.kind === 'cue' ? [e.analysis] : [])));
  // A rival the workspace's conversations name is a competitor question, as the word "competitor" is.
  if (entities.competitors.length > 0) cues.add('competitors');
  // "Gone quiet" reads as a period too (the window with no touch): the quiet analysis answers it.
  if (asksForQuiet(ask)) cues.add('quiet');
  // How much someone talks, not what was said: a talking verb ranked or set side by side ("talks the
  // most", "who speaks less, Mateo or Paula"); talking *about* something is what was said.
  // Talking *to* someone is contact ("which accounts did we talk to most"), not an amount of talking.
  const talking = tokens.filter((t, i) => TALK_VERBS.has(t.lemma) && !TALK_OBJECTS.has(tokens[i + 1]?.lower ?? ''));
  if (
    talking.length > 0 &&
    (els.some((e) => e.kind === 'order' || e.kind === 'versus') || tokens.some((t) => AMOUNT_WORDS.has(t.lower))) &&
    !tokens.some((t) => t.lower === 'about')
  ) {
    cues.add('talk');
    for (const t of tokens)
      if (TALK_VERBS.has(t.lemma) && unexplained.includes(t.text)) unexplained.splice(unexplained.indexOf(t.text), 1);
  }
  // A kind of question a registry analysis answers (functions/analyses/): the reading names it, with
  // the filters, period, order and names the words give, and the local policy calls that operation.
  // A deal kind named like a cue word ("renewals") carries that cue; a cue that only qualifies another
  // ("left", "renewals") is dropped without it, so "how many renewals did we win" stays a count.
  for (const kind of kinds)
    for (const p of PHRASES) if (p.element.kind === 'cue' && p.words.join(' ') === kind) cues.add(p.element.analysis);
  for (const [c, partners] of Object.entries(QUALIFYING_CUES) as [CueAnalysis, readonly CueAnalysis[]][])
    if (cues.has(c) && !partners.some((p) => cues.has(p))) cues.delete(c);
  let operation = operationAnalysisOf(cues);
  // A reason word that says no loss ("why", "reasons"), beside an analysis that gives its reasons.
  const reasonOnly =
    cues.has('losses') &&
    !tokens.some((t) => t.lemma === 'lose' || t.lemma === 'loss') &&
    placed.every((p) => p.element.kind !== 'state' || p.element.state !== 'lost') &&
    placed.every((p) => p.element.kind !== 'cue' || p.element.analysis !== 'losses' || !p.element.lost);
  if (!operation && reasonOnly) {
    const withoutReason = operationAnalysisOf(new Set([...cues].filter((c) => c !== 'losses')));
    if (withoutReason && REASONING_ANALYSES.has(withoutReason)) operation = withoutReason;
  }
  // An analysis of one account needs one named; a name several accounts share stays that analysis, and
  // the local policy asks which (or says which it took); no name or several names are the intent readers'.
  if (operation && ONE_ACCOUNT_ANALYSES.has(operation) && entities.accounts.length !== 1) operation = null;
  if (operation) cues.clear();
  const absent = [...new Set(els.flatMap((e) => (e.kind === 'absent' ? [e.subject] : [])))];
  const present = els.some((e) => e.kind === 'present');
  // "Right now", "currently", "today" name the present state: no period bounds it.
  if (period && present && /\b(now|today|currently|current|moment)\b/i.test(period.phrase)) period = null;

  const subjects = els.flatMap((e) => (e.kind === 'subject' ? [e] : []));
  const states = els.flatMap((e) => (e.kind === 'state' ? [e.state] : []));
  const measures = els.flatMap((e) => (e.kind === 'measure' ? [e.measure] : []));
  const winWords = placed.filter((p) => p.element.kind === 'win');
  const rateLike = measures.includes('rate') || winWords.some((p) => p.element.kind === 'win' && p.element.rate);
  const orderMeasure = els.some((e) => e.kind === 'order' && e.key === 'measure');
  // A rate of winning: a rate word with a win ("win rate", "what share did we win", "how often do we win"),
  // or a ranking of who converts ("which AE converts the most").
  const winRate =
    (winWords.length > 0 || states.includes('won')) && (rateLike || (orderMeasure && winWords.length > 0));
  // Amounts times their probability are weighted, however the product is written ("amount × win probability").
  const attributes = new Set(els.flatMap((e) => (e.kind === 'attribute' ? [e.field] : [])));
  const weighted =
    measures.includes('weighted') ||
    (attributes.has('probability') && (measures.includes('sum') || attributes.has('amount')));
  // Deals pushed out are read here, with the deal filters the words give (open, lost, an account, a period).
  const slipped = cues.has('slipped') && [...cues].every((c) => c === 'slipped' || c === 'voice' || c === 'quiet');
  if (slipped) cues.clear();
  // Why deals were lost is read here too, with the deal filters the words give (a period, an owner, a region).
  const lossWords = placed.filter((p) => p.element.kind === 'cue' && p.element.analysis === 'losses');
  const losses =
    !slipped &&
    lossWords.length > 0 &&
    [...cues].every((c) => c === 'losses' || c === 'voice') &&
    (states.includes('lost') || lossWords.some((p) => p.element.kind === 'cue' && p.element.lost));
  if (losses) cues.clear();
  // A win rate or a weighted figure is its own reading whatever else the words cue.
  if (winRate || weighted) for (const c of ['churn', 'losses', 'voice'] as const) cues.delete(c);
  const slots = new Set<string>();

  const interactionSubjects = subjects.filter((s) => s.subject === 'interactions');
  const dealSubject =
    subjects.some((s) => s.subject === 'deals') ||
    winRate ||
    weighted ||
    states.length > 0 ||
    stages.length > 0 ||
    kinds.length > 0 ||
    slipped ||
    losses;
  const subject: 'deals' | 'interactions' | null =
    operation !== null
      ? (OPERATION_SUBJECTS[operation] ?? null)
      : interactionSubjects.length > 0 && !winRate && !weighted && subjects.every((s) => s.subject !== 'deals')
        ? 'interactions'
        : dealSubject
          ? 'deals'
          : null;
  const subjectFromWords = subjects.length > 0 || winRate || weighted || slipped || losses || operation !== null;

  if (absent.length > 0) {
    return {
      reading: {
        ...blank(),
        analysis: 'not_understood',
        absent,
        unexplained,
        near_words: nearWords,
        names: namesOf(entities, owners, []),
        confidence: 0,
      },
      subjectFromWords: true,
      cues: new Set(),
      slots,
      unexplained: unexplained.length,
      unplaced: [...unexplained],
      refersBack: false,
      refersToSet: false,
      deferred: false,
      unknown: [],
      comparesBack: null,
    };
  }

  const filters: InterpretedFilter[] = [];
  const add = (f: InterpretedFilter, slot: string) => {
    filters.push(f);
    slots.add(slot);
  };
  const wordsOf = (kind: Element['kind']) =>
    placed
      .filter((p) => p.element.kind === kind)
      .map((p) => p.words)
      .join(' ') || null;

  let periodOut: InterpretedPeriod | null = null;
  if (subject === 'deals') {
    // Wins and losses set side by side ("wins vs losses") are the closed deals, by outcome.
    const saysLost = states.includes('lost') || tokens.some((t) => t.lemma === 'loss');
    const outcomes = states.includes('won') && saysLost && els.some((e) => e.kind === 'versus');
    const state = losses ? 'lost' : winRate || outcomes ? 'closed' : weighted ? 'open' : (states[0] ?? null);
    if (outcomes) {
      slots.add('outcomes');
      for (const t of tokens)
        if (t.lemma === 'loss' && unexplained.includes(t.text)) unexplained.splice(unexplained.indexOf(t.text), 1);
    }
    const openBook = subjects.some((s) => s.subject === 'deals') && tokens.some((t) => OPEN_BOOK.has(t.lemma));
    if (state === 'open' || (state === null && openBook))
      add({ field: 'is_closed', op: 'eq', value: false, from_words: wordsOf('state') ?? 'pipeline' }, 'state');
    else if (state === 'won') add({ field: 'is_won', op: 'eq', value: true, from_words: wordsOf('state') }, 'state');
    else if (state === 'lost') {
      add({ field: 'is_closed', op: 'eq', value: true, from_words: wordsOf('state') }, 'state');
      add({ field: 'is_won', op: 'eq', value: false, from_words: wordsOf('state') }, 'state');
    } else if (state === 'closed')
      add({ field: 'is_closed', op: 'eq', value: true, from_words: winRate ? null : wordsOf('state') }, 'state');
    else if (state === 'overdue') {
      add({ field: 'is_closed', op: 'eq', value: false, from_words: null }, 'state');
      add({ field: 'close_date', op: 'lt', value: today, from_words: wordsOf('state') }, 'state');
    }
    if (stages.length === 1) add({ field: 'stage', op: 'eq', value: stages[0]!, from_words: stages[0]! }, 'stage');
    if (stages.length > 1) add({ field: 'stage', op: 'in', value: stages, from_words: stages.join(', ') }, 'stage');
    for (const kind of kinds.slice(0, 1)) add({ field: 'name', op: 'contains', value: kind, from_words: kind }, 'kind');
    const bound = amountBound(ask, tokens, placed);
    if (bound) add(bound, 'amount');
    if (period) {
      const created = els.some((e) => e.kind === 'created') && !winRate;
      // A pushed deal's period is when the buyer said so; a created one's, its creation; else its close date.
      periodOut = { ...period, field: created || slipped ? 'occurred_at' : 'close_date' };
    }
  } else if (subject === 'interactions') {
    const kindsAsked = [...new Set(interactionSubjects.map((s) => (s.kind === 'subject' ? s : null)))]
      .flatMap((s) => (s && s.subject === 'interactions' && s.interaction ? [s.interaction] : []))
      .filter((k, i, all) => all.indexOf(k) === i);
    if (kindsAsked.length === 1)
      add({ field: 'kind', op: 'eq', value: kindsAsked[0]!, from_words: kindsAsked[0]! }, 'kind');
    if (kindsAsked.length > 1)
      add({ field: 'kind', op: 'in', value: kindsAsked, from_words: kindsAsked.join(', ') }, 'kind');
    const directions = [...new Set(els.flatMap((e) => (e.kind === 'direction' ? [e.value] : [])))];
    if (directions.length === 1)
      add({ field: 'direction', op: 'eq', value: directions[0]!, from_words: wordsOf('direction') }, 'direction');
    if (period) periodOut = { ...period, field: 'occurred_at' };
  }
  // Without records of its own ("and for the second half?") the period waits for the records it is inherited onto.
  if (subject === null && period) periodOut = { ...period, field: '' };
  const operationField = operation ? OPERATION_PERIOD_FIELDS[operation] : undefined;
  if (periodOut && operationField) periodOut = { ...periodOut, field: operationField };
  if (periodOut) slots.add('period');

  // Names: owners, accounts, regions, industries narrow whatever the records are.
  if (owners.length > 0) {
    // Without records of its own ("same for oscar") the owner waits for the deals it is inherited onto.
    // An analysis of people (talk ratio) reads them as whom it measures.
    if (subject === 'deals' || subject === null || operation !== null)
      add(
        owners.length === 1
          ? { field: 'owner_email', op: 'eq', value: owners[0]!.email, from_words: owners[0]!.name }
          : { field: 'owner_email', op: 'in', value: owners.map((o) => o.email), from_words: null },
        'owner',
      );
    // Conversations have no owner: the name is said back as the question wrote it ("Mateo", not "Mateo Bauer").
    else if (subject === 'interactions') unexplained.push(...owners.map((o) => asWritten(ask, o.name ?? o.email)));
  }
  const accounts = entities.accounts.flatMap((a) => a.matches);
  if (subject === 'deals' && entities.deals.length > 0 && accounts.length > 0)
    add({ field: 'name', op: 'in', value: entities.deals, from_words: null }, 'account');
  else if (accounts.length > 0)
    add(
      accounts.length === 1
        ? { field: 'account_name', op: 'eq', value: accounts[0]!, from_words: entities.accounts[0]!.asked }
        : {
            field: 'account_name',
            op: 'in',
            value: accounts,
            // One name that several accounts share ("granite") is still the words it was read from.
            from_words: entities.accounts.length === 1 ? entities.accounts[0]!.asked : null,
          },
      'account',
    );
  // An industry or region word inside a linked account's name ("Acme Logistics") is part of the name.
  const insideNames = (word: string) =>
    entities.accounts.some((a) => a.asked.toLowerCase().includes(word.toLowerCase())) &&
    ask.toLowerCase().split(word.toLowerCase()).length - 1 <=
      entities.accounts.filter((a) => a.asked.toLowerCase().includes(word.toLowerCase())).length;
  entities.regions = entities.regions.filter((w) => !insideNames(w));
  entities.industries = entities.industries.filter((w) => !insideNames(w));
  if (entities.regions.length > 0)
    add(
      { field: 'account_region', op: 'in', value: entities.regions, from_words: entities.regions.join(', ') },
      'region',
    );
  if (entities.industries.length > 0)
    add(
      { field: 'account_industry', op: 'in', value: entities.industries, from_words: entities.industries.join(', ') },
      'industry',
    );

  // Grouping: "by rep", "per stage", "each rep", "which AE ...", two stages or owners set side by side.
  let groupBy: string | null = null;
  placed.forEach((p, k) => {
    if (groupBy || p.element.kind !== 'group') return;
    const next = placed.slice(k + 1).find((q) => q.from - p.to <= 3 && q.element.kind === 'attribute');
    if (next && next.element.kind === 'attribute' && !next.element.showOnly)
      groupBy = groupField(next.element.field, subject);
  });
  // "Our best closer": a person who wins is each owner's win rate.
  if (!groupBy && winRate && winWords.some((p) => p.element.kind === 'win' && p.element.who)) groupBy = 'owner_email';
  // "Which rep ...", and "which accounts had the most calls": a ranking asked of an attribute's values.
  // A pipeline or book is a sum: "which region has the biggest pipeline" ranks regions by it.
  const ranksMeasure =
    els.some((e) => e.kind === 'order' && e.key === 'measure') ||
    (tokens.some((t) => OPEN_BOOK.has(t.lemma)) && els.some((e) => e.kind === 'order'));
  if (!groupBy)
    placed.forEach((p) => {
      if (groupBy || p.element.kind !== 'attribute' || p.element.showOnly) return;
      const before = tokens[p.from - 1];
      if (!before || !WHICH.has(before.lower)) return;
      if (p.element.field === 'owner_email') groupBy = 'owner_email';
      else if (ranksMeasure) groupBy = groupField(p.element.field, subject);
    });
  const versus = els.some((e) => e.kind === 'versus');
  if (!groupBy && versus && stages.length > 1) groupBy = 'stage';
  if (!groupBy && slots.has('outcomes')) groupBy = 'stage';
  if (!groupBy && versus && owners.length > 1 && subject === 'deals') groupBy = 'owner_email';
  if (!groupBy && versus && entities.regions.length > 1) groupBy = 'account_region';
  if (!groupBy && versus && entities.industries.length > 1) groupBy = 'account_industry';
  if (!groupBy && versus && accounts.length > 1) groupBy = 'account_name';
  if (!groupBy && subject === 'interactions') {
    const k = filters.find((f) => f.field === 'kind');
    if (k && Array.isArray(k.value)) groupBy = 'kind';
  }
  if (groupBy) slots.add('group');

  // The measure.
  const fn: Interpretation['measure']['fn'] = winRate
    ? 'share'
    : weighted
      ? 'sum'
      : measures.includes('count')
        ? 'count'
        : measures.includes('avg')
          ? 'avg'
          : measures.includes('sum')
            ? 'sum'
            : 'list';
  const measureField = winRate
    ? 'is_won'
    : weighted
      ? 'weighted_amount'
      : fn === 'sum' || fn === 'avg'
        ? 'amount'
        : null;
  if (fn !== 'list') slots.add('measure');
  // Whose figure it is: "who has the best win rate", "who is carrying the biggest book", "rank the reps",
  // "leaderboard of AEs": an aggregate of deals asked of people is each owner's.
  const asksWho = tokens.some((t) => WHO.has(t.lower));
  const ownersAsked = placed.some(
    (p) =>
      p.element.kind === 'attribute' &&
      p.element.field === 'owner_email' &&
      !p.element.showOnly &&
      tokens.slice(p.from, p.to).some((t) => t.plural || t.lower.endsWith('s')),
  );
  // A person's book or pipeline is the sum of their deals ("whose book is biggest").
  const bookOfPeople = tokens.some((t) => OPEN_BOOK.has(t.lemma)) && (asksWho || ownersAsked);
  const aggregate = fn !== 'list' || bookOfPeople || els.some((e) => e.kind === 'order' && e.key === 'measure');
  if (!groupBy && subject === 'deals' && owners.length < 2 && aggregate && (asksWho || ownersAsked)) {
    groupBy = 'owner_email';
    slots.add('group');
  }
  if (/\bby \$|\$\s*$/.test(ask) || /\bby (dollars?|value|amount|size)\b/i.test(ask)) slots.add('by-amount');

  // Order and limit.
  const orders = els.flatMap((e) => (e.kind === 'order' ? [e] : []));
  let order: Interpretation['order'] = null;
  const first = orders[0];
  if (first) {
    const aggregate = fn !== 'list';
    const key =
      first.key === 'measure' || (aggregate && groupBy && first.key === 'amount')
        ? aggregate
          ? measureAlias(fn, measureField)
          : subject === 'deals'
            ? 'amount'
            : 'occurred_at'
        : first.key === 'occurred_at' && subject === 'deals'
          ? 'close_date'
          : first.key;
    // "The most deals", "fewest calls": a ranking by how many records, when each group is counted.
    const firstPlaced = placed.find((p) => p.element === first);
    const countsRecords =
      groupBy !== null &&
      first.key === 'measure' &&
      placed.some(
        (q) => q.element.kind === 'subject' && firstPlaced && q.from >= firstPlaced.to && q.from - firstPlaced.to <= 2,
      );
    order = { field: countsRecords ? 'count' : key, dir: first.dir };
  } else if (slots.has('by-amount') && subject === 'deals') order = { field: 'amount', dir: 'desc' };
  // An analysis ranks by its own measure; listening is the inverse of talking ("listens best": least talk).
  if (operation && order) {
    const inverse = tokens.some((t) => INVERSE_WORDS.has(t.lemma));
    order = {
      field: OPERATION_MEASURES[operation] ?? order.field,
      dir: inverse ? (order.dir === 'asc' ? 'desc' : 'asc') : order.dir,
    };
  }
  if (order) slots.add('order');
  let limit: number | null = null;
  placed.forEach((p) => {
    if (p.element.kind !== 'top') return;
    const n = tokens[p.to];
    if (n && /^\d+$/.test(n.lower)) {
      limit = Number(n.lower);
      numbers.delete(p.to);
    }
  });
  // "the 3 fattest deals", "5 biggest opps", "show 10 deals": a count of rows written before what orders or names them.
  if (limit === null)
    placed.forEach((p) => {
      if (limit !== null || (p.element.kind !== 'order' && p.element.kind !== 'subject')) return;
      const n = tokens[p.from - 1];
      if (n && numbers.has(p.from - 1) && /^\d{1,3}$/.test(n.lower) && Number(n.lower) > 0) {
        limit = Number(n.lower);
        numbers.delete(p.from - 1);
      }
    });
  const subjectToken = tokens.find((t) => PHRASES.some((p) => p.element.kind === 'subject' && matches(p.words[0]!, t)));
  // One row for a superlative ("the biggest deal", "most recent call"), not for a plain adjective ("small stuff").
  const orderWords = placed.filter((p) => p.element.kind === 'order').map((p) => p.words.toLowerCase());
  const superlativeWord = orderWords.some((w) => /est\b|^most\b|^least\b/.test(w));
  const superlative =
    first &&
    first.key !== 'measure' &&
    superlativeWord &&
    subjectToken &&
    !subjectToken.plural &&
    fn === 'list' &&
    !groupBy;
  if (limit === null && (superlative || els.some((e) => e.kind === 'one'))) limit = 1;
  if (limit !== null) slots.add('limit');
  // One row has nothing to group.
  if (limit === 1 && fn === 'list') groupBy = null;

  // Fields asked to be shown: "who owns it", "when does it close", "what stage".
  const show = [
    ...new Set(
      placed.flatMap((p) =>
        p.element.kind === 'attribute' && groupField(p.element.field, subject) !== groupBy ? [p.element.field] : [],
      ),
    ),
  ].filter((f) => subject === 'deals' && ['owner_email', 'close_date', 'stage', 'amount', 'probability'].includes(f));
  // "Who asked for SSO", "which customers want webhooks": the requests' accounts are shown, by name.
  if (operation === 'feature_requests' && asksWhichAccounts(tokens)) show.push('account_name');

  // In an analysis, the words nothing else placed may be what it is of: people, competitors, a topic.
  // A verb in use ("customers are begging us to build", "they want") says how something is asked, never
  // what about; an -ing form placed as a noun ("about onboarding and reporting") is what.
  // An adverb ("what are customers really pushing for") says how too.
  const verbsInUse = new Set(
    tokens.filter((t) => (t.pos === 'v' && !(t.gerund && t.nominal)) || t.pos === 'r').map((t) => t.text),
  );
  const named = operationWords(operation, ask, unexplained, unknownNames(tokens, taken, unexplained), verbsInUse);
  const people = named.people;
  for (const word of named.placed) if (unexplained.includes(word)) unexplained.splice(unexplained.indexOf(word), 1);
  filters.push(...named.filters);
  const content = tokens.filter((t) => !isScaffoldWord(t.lower) && !isScaffoldWord(t.lemma)).length;
  // A reading without records of its own still carries what it names, for a follow-up to apply.
  const reading: Interpretation | null =
    subject === null && slots.size === 0 && owners.length === 0
      ? null
      : {
          ...blank(),
          analysis: operation
            ? operation
            : slipped
              ? 'slipped'
              : losses
                ? 'losses'
                : winRate
                  ? 'win_rate'
                  : weighted
                    ? 'weighted_pipeline'
                    : 'records',
          subject,
          measure: { fn, field: measureField },
          filters,
          period: periodOut,
          compare_to:
            comparison && periodOut && comparison.second.from ? { ...comparison.second, field: periodOut.field } : null,
          group_by: groupBy,
          order,
          limit,
          show,
          topic: named.topic,
          names: {
            ...namesOf(entities, owners, kinds),
            people: [...namesOf(entities, owners, kinds).people, ...people],
            competitors: [...new Set([...entities.competitors.map((c) => c.name), ...named.competitors])],
          },
          unexplained,
          near_words: nearWords,
          confidence: content === 0 ? 1 : Math.max(0, 1 - unexplained.length / content),
        };
  const refersBack =
    tokens.some((t) => REFERS_BACK.has(t.lower)) ||
    /\b(that|this|the same|the) (account|customer|company|deal)\b/i.test(ask);
  const ambiguous = entities.accounts.some((a) => a.matches.length > 1);
  // A capitalised word inside the question that no name, lexicon entry or period explains: a company
  // or person this workspace does not hold.
  const unknown = unknownNames(tokens, taken, unexplained);
  return {
    reading,
    subjectFromWords,
    cues,
    slots,
    unexplained: unexplained.length,
    unplaced: [...unexplained],
    refersBack,
    refersToSet: tokens.some((t) => SET_BACK.has(t.lower)) && subject !== 'interactions',
    // An unknown capitalised word in a question about people is one of them (the analysis says if nobody matched).
    deferred:
      (ambiguous && !(operation !== null && ONE_ACCOUNT_ANALYSES.has(operation))) ||
      (unknown.length > 0 && (operation === null || !NAMING_ANALYSES.has(operation))),
    unknown,
    comparesBack: comparison && !comparison.first ? comparison.second.phrase : null,
  };
}

/** How far a word of losing may stand before the person lost: "lost their champion", "lose our econ buyer". */
const LOSS_REACH = 2;

/**
 * Losing a person is their leaving: a word of losing whose object is a person the qualification
 * cues name ("lost their champion", "did acme lose its economic buyer") says that person left, not
 * that a deal was lost — so it reads as a departure and filters no deal as lost.
 */
function readLossOfPeople(placed: Placed[]): void {
  for (const [k, p] of placed.entries()) {
    if (p.element.kind !== 'state' || p.element.state !== 'lost') continue;
    const next = placed.slice(k + 1).find((q) => q.element.kind !== 'filler');
    if (next?.element.kind === 'cue' && next.element.analysis === 'qualification' && next.from - p.to <= LOSS_REACH)
      placed[k] = { ...p, element: { kind: 'cue', analysis: 'departure' } };
  }
}

/**
 * A capitalised word inside the question that no name, lexicon entry or period explains — a company,
 * person or product this workspace does not hold as a name — with the capitalised words after it
 * ("Quotient Labs").
 */
function unknownNames(tokens: readonly Token[], taken: ReadonlySet<number>, unexplained: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    // "I", "I'm": the asker, not a name.
    const asker = /^i(?:['’]\w+)?$/.test(t.lower);
    if (asker || taken.has(i) || !/^\p{Lu}/u.test(t.text) || !unexplained.includes(t.text) || isScaffoldWord(t.lower))
      continue;
    let name = t.text;
    while (
      tokens[i + 1] &&
      /^\p{Lu}/u.test(tokens[i + 1]!.text) &&
      !taken.has(i + 1) &&
      tokens[i + 1]!.start - tokens[i]!.end <= 1
    )
      name += ` ${tokens[++i]!.text}`;
    names.push(name);
  }
  return names;
}

/** The names a question gives that the workspace does not hold (see unknownNames): for the local model to look for. */
export function namesNotHeld(ask: string, today: string, vocab: Vocabulary): string[] {
  return readOwn(ask, today, vocab)?.unknown ?? [];
}

/** A follow-up's reading: the earlier one, with what the follow-up names put in place of the same slots. */
function inherit(before: Interpretation, own: OwnReading): Interpretation {
  const now = own.reading;
  // "vs the quarter before?": the earlier reading's period, compared with the span before it.
  const comparedBack =
    own.comparesBack && before.period
      ? { ...shiftBack(before.period, 'one'), phrase: own.comparesBack, field: before.period.field }
      : null;
  if (!now)
    return {
      ...before,
      compare_to: comparedBack ?? before.compare_to,
      inherited: ['analysis', 'subject', 'filters', 'period'],
    };
  const inherited: string[] = [];
  const base = now.subject && now.subject !== before.subject && own.subjectFromWords ? now : before;
  const fields = new Set(now.filters.map((f) => f.field));
  // The follow-up's own state replaces the earlier one ("and weighted?" turns a total into open deals).
  const stateFields = new Set(['is_closed', 'is_won']);
  const replacesState = now.filters.some((f) => stateFields.has(f.field));
  const kept = base.filters.filter(
    (f) =>
      !fields.has(f.field) &&
      !(replacesState && stateFields.has(f.field)) &&
      !(f.field === 'kind' && own.slots.has('kind')),
  );
  if (kept.length > 0) inherited.push('filters');
  const period = own.slots.has('period') ? now.period : base.period;
  if (!own.slots.has('period') && base.period) inherited.push('period');
  // A measure of its own ("total won revenue", "how many") is a records question of its own: it does not
  // take the earlier analysis ("win rate this year, total won revenue this year").
  const ownMeasure = own.slots.has('measure') && now.analysis === 'records';
  const analysis = now.analysis !== 'records' || ownMeasure ? now.analysis : base.analysis;
  if (analysis === base.analysis && now.analysis === 'records' && !ownMeasure) inherited.push('analysis');
  const measure = own.slots.has('measure') ? now.measure : base.measure;
  return {
    ...base,
    analysis,
    subject: own.subjectFromWords && now.subject ? now.subject : base.subject,
    measure,
    filters: [...kept, ...now.filters],
    period: period
      ? {
          ...period,
          field: period.field || base.period?.field || (base.subject === 'deals' ? 'close_date' : 'occurred_at'),
        }
      : null,
    compare_to: comparedBack ?? (own.slots.has('period') ? now.compare_to : base.compare_to),
    group_by: own.slots.has('group') ? now.group_by : base.group_by,
    order: own.slots.has('order') ? now.order : base.order,
    limit: own.slots.has('limit') ? now.limit : base.limit,
    show: [...new Set([...base.show, ...now.show])],
    names: {
      accounts: now.names.accounts.length ? now.names.accounts : base.names.accounts,
      deals: now.names.deals.length ? now.names.deals : base.names.deals,
      people: now.names.people.length ? now.names.people : base.names.people,
      // A rival named anew replaces the earlier one ("and Pipewell over the same window?").
      competitors: now.names.competitors.length ? now.names.competitors : base.names.competitors,
    },
    inherited: [...new Set(inherited)],
    unexplained: now.unexplained,
    near_words: now.near_words,
    confidence: now.confidence,
  };
}

const blank = (): Interpretation => ({
  analysis: 'records',
  subject: null,
  measure: { fn: 'list', field: null },
  filters: [],
  period: null,
  group_by: null,
  order: null,
  limit: null,
  show: [],
  compare_to: null,
  topic: null,
  names: { accounts: [], deals: [], people: [], competitors: [] },
  parts: [],
  inherited: [],
  unexplained: [],
  near_words: [],
  absent: [],
  confidence: 1,
});

const namesOf = (e: Entities, owners: Entities['owners'], kinds: string[]): Interpretation['names'] => ({
  accounts: e.accounts.flatMap((a) => a.matches),
  deals: [...e.deals, ...kinds.map((k) => `${k} deals`)],
  people: owners.map((o) => o.name ?? o.email),
  competitors: [],
});

export const measureAlias = (fn: string, field: string | null): string => (field ? `${fn}_${field}` : fn);

/** The field a grouping word names, on the surface asked about. */
function groupField(field: Field, subject: 'deals' | 'interactions' | null): string | null {
  if (subject === 'interactions') return field === 'kind' || field.startsWith('account_') ? field : null;
  return field === 'close_date' || field === 'amount' || field === 'probability' ? null : field;
}

/**
 * A lexicon word matches a token's lemma or written form, its plural the NLP library does not know
 * ("reps", "AEs"), or its comparative or superlative the library does not know ("fattest", "juicier").
 */
const matches = (word: string, t: Token): boolean =>
  word === t.lemma ||
  word === t.lower ||
  (word.length >= 2 && t.lower === `${word}s`) ||
  (GRADABLE.has(word) && gradedForms(word).includes(t.lower));

/** The adjectives of order ("big", "fat", "small"): only these are read in their graded forms. */
const GRADABLE: ReadonlySet<string> = new Set(
  LEXICON.flatMap(([phrase, e]) => (e.kind === 'order' && /^[a-z]+$/.test(phrase) ? [phrase] : [])),
);

/** "fat" → fatter, fattest; "large" → larger, largest; "juicy" → juicier, juiciest; "small" → smaller, smallest. */
function gradedForms(word: string): string[] {
  if (!/^[a-z]+$/.test(word)) return [];
  if (word.endsWith('e')) return [`${word}r`, `${word}st`];
  if (word.endsWith('y')) return [`${word.slice(0, -1)}ier`, `${word.slice(0, -1)}iest`];
  const doubled = /[^aeiou][aeiou][bdgmnprt]$/.test(word) ? word.at(-1)! : '';
  return [`${word}${doubled}er`, `${word}${doubled}est`];
}

/** The words of `name` the question wrote, as it wrote them ("mateo" for Mateo Bauer), else the name. */
function asWritten(ask: string, name: string): string {
  const lower = ask.toLowerCase();
  const whole = lower.indexOf(name.toLowerCase());
  if (whole >= 0) return ask.slice(whole, whole + name.length);
  for (const part of name.split(/\s+/)) {
    const at = lower.search(new RegExp(`\\b${part.toLowerCase().replace(/[^a-z0-9]/g, '')}`));
    if (part.length >= 3 && at >= 0) return ask.slice(at, at + part.length);
  }
  return name;
}

/** An amount after a bound word: "over $50k", "under 10,000", "more than 40 grand". */
function amountBound(ask: string, tokens: readonly Token[], placed: readonly Placed[]): InterpretedFilter | null {
  for (const p of placed) {
    if (p.element.kind !== 'bound') continue;
    const after = ask.slice(tokens[p.to - 1]!.end);
    const m = /^\s*\$?\s?(\d[\d,]*(?:\.\d+)?)\s*(k|m|grand|thousand|million)?\b/i.exec(after);
    if (!m) continue;
    const scale = /^(k|grand|thousand)$/i.test(m[2] ?? '') ? 1_000 : /^(m|million)$/i.test(m[2] ?? '') ? 1_000_000 : 1;
    return {
      field: 'amount',
      op: p.element.op,
      value: Number(m[1]!.replace(/,/g, '')) * scale,
      from_words: `${p.words} ${m[0].trim()}`,
    };
  }
  return null;
}

/** Where each linked name sits in the ask (its words are names, never lexicon words). */
function nameOffsets(ask: string, e: Entities): [number, number][] {
  const spans: [number, number][] = [];
  const lower = ask.toLowerCase();
  const names = [
    ...e.accounts.map((a) => a.asked),
    ...e.owners.flatMap((o) => [o.name ?? '', ...(o.name?.split(' ') ?? [])]),
    ...e.regions,
    ...e.industries,
    ...e.deals,
    ...e.competitors.map((c) => c.asked),
  ].filter((n) => n.length > 1);
  for (const n of names) {
    const at = lower.indexOf(n.toLowerCase());
    if (at >= 0) spans.push([at, at + n.length]);
  }
  return spans;
}

function spanOf(ask: string, phrase: string): [number, number] | null {
  const at = ask.toLowerCase().indexOf(phrase.toLowerCase());
  return at < 0 ? null : [at, at + phrase.length];
}
