import { asksForQuiet, parseAskedPeriod } from './asked-period.js';
import { z } from 'zod';
import { ACCOUNT_TYPES } from '../../schema/warehouse-accounts.js';
import { DEAL_STAGES } from '../../schema/warehouse-deals.js';
import { EMAIL_DIRECTIONS, INTERACTION_KINDS, type InteractionKind } from '../../schema/warehouse-interactions.js';
import { contentWords } from '../../platform/model/local.js';
import type { ModelTask } from '../../platform/model/port.js';
import { SEARCH_LIMITS } from './request.js';

/**
 * The fuzzy lane's planner: natural language decomposed into at most `max_subqueries` subqueries
 * the warehouse can run (full-text terms, an account named, the kinds of interaction asked for, a
 * time window read from a date phrase). A model task, so a configured model can plan; the local
 * implementation below extracts the same parts with rules, deterministically.
 */

const isoDateTime = z.iso.datetime({ offset: true });
/** Companies one ask may name ("Acme or Tidewater or ..."). */
export const MAX_ACCOUNTS = 5;

/**
 * Fields of the interactions surface the ask can restrict by name ("inbound emails", "on zoom",
 * "longer than 30 minutes", "deals in negotiation", "with investors"). A closed set, each with its
 * value type: the lane compiles them to bound predicates.
 */
export const FieldPredicateSchema = z.discriminatedUnion('field', [
  z.object({ field: z.literal('direction'), op: z.literal('eq'), value: z.enum(EMAIL_DIRECTIONS) }).strict(),
  z.object({ field: z.literal('source'), op: z.literal('eq'), value: z.string().min(1).max(50) }).strict(),
  z
    .object({
      field: z.literal('duration_seconds'),
      op: z.enum(['gt', 'gte', 'lt', 'lte']),
      value: z
        .number()
        .int()
        .min(0)
        .max(86_400 * 7),
    })
    .strict(),
  z.object({ field: z.literal('deal_stage'), op: z.literal('eq'), value: z.enum(DEAL_STAGES) }).strict(),
  z.object({ field: z.literal('account_type'), op: z.literal('eq'), value: z.enum(ACCOUNT_TYPES) }).strict(),
]);
export type FieldPredicate = z.infer<typeof FieldPredicateSchema>;

export const FuzzySubquerySchema = z
  .object({
    /** Content words to find; empty when the ask is only an account, a kind or a window. */
    terms: z.array(z.string().min(1).max(100)).max(32),
    /** all: every term must appear (websearch AND); any: one is enough (recall). */
    match: z.enum(['all', 'any']),
    /** Exact phrases the text must contain (the caller's quoted phrases). */
    phrases: z.array(z.string().min(1).max(200)).max(8),
    /** Companies named in the ask; the lane resolves each against the workspace's accounts. */
    accounts: z.array(z.string().min(1).max(200)).max(MAX_ACCOUNTS),
    kinds: z.array(z.enum(INTERACTION_KINDS)).max(INTERACTION_KINDS.length),
    /** Field restrictions read from the wording (not the request's `filters`, which fuzzy ignores). */
    fields: z.array(FieldPredicateSchema).max(8),
    since: isoDateTime.nullable(),
    until: isoDateTime.nullable(),
  })
  .strict();
export type FuzzySubquery = z.infer<typeof FuzzySubquerySchema>;

export const FuzzyPlanSchema = z
  .object({
    subqueries: z.array(FuzzySubquerySchema).min(1).max(SEARCH_LIMITS.maxSubqueriesAsync),
    /** The date phrase the window came from, for the message ("last quarter"). */
    date_phrase: z.string().max(100).nullable(),
  })
  .strict();
export type FuzzyPlan = z.infer<typeof FuzzyPlanSchema>;

const PlanInputSchema = z.object({
  query: z.string().min(1).max(SEARCH_LIMITS.queryChars),
  max_subqueries: z.number().int().min(1).max(12),
  now: isoDateTime,
});
export type PlanInput = z.infer<typeof PlanInputSchema>;

export const planTask: ModelTask<PlanInput, FuzzyPlan> = {
  name: 'search.plan',
  instructions: [
    "Decompose a natural-language search over a sales team's calls, meetings, emails and public social posts into at most max_subqueries subqueries.",
    'Each subquery: terms (content words to find, no filler), match ("all" when every term must appear, "any" for a broader recall variant),',
    `phrases (exact phrases the user quoted), accounts (the companies the user named, possibly none), kinds (${INTERACTION_KINDS.join(', ')}; empty for any; post is a public social-media thread),`,
    'fields (restrictions the wording names: direction inbound/outbound, source such as gong or zoom, duration_seconds with gt/gte/lt/lte, deal_stage, account_type),',
    'since and until (ISO 8601 UTC; until exclusive) from a date phrase relative to now, else null. One subquery per distinct facet of the ask.',
    'Also return date_phrase, the words the window came from, or null.',
  ].join(' '),
  input: PlanInputSchema,
  output: FuzzyPlanSchema,
  local: planLocally,
};

// ---------------------------------------------------------------------------------------------
// The local planner

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
/** Words of the ask that say how to search, not what to find. */
const QUERY_FILLER = new Set(
  'show find list get give search look looking need want any all every some me about around regarding re mention mentions mentioned mentioning discuss discussed discussing discussion discussions talk talked talking said say says where which who whose whom there were was been being had having conversations conversation interactions interaction touching related relating topic topics please recent recently latest'.split(
    ' ',
  ),
);

const KIND_WORDS: Record<string, InteractionKind> = {
  call: 'call',
  calls: 'call',
  'phone-call': 'call',
  meeting: 'meeting',
  meetings: 'meeting',
  email: 'email',
  emails: 'email',
  'e-mail': 'email',
  'e-mails': 'email',
  mail: 'email',
  mails: 'email',
  post: 'post',
  posts: 'post',
  bluesky: 'post',
};

/**
 * Wordings that name posts with words that alone mean something else: "social" alone is a topic
 * ("social login", "social proof"), "thread" and "replies" are email words too ("email thread").
 * Each becomes the kind word "posts", so its words are not searched as terms.
 */
const POST_PHRASES =
  /\b(?:social[ -](?:media|networks?)|bluesky)(?:\s+(?:posts?|threads?|replies|conversations?))?\b|\bsocial\s+(?:posts?|threads?|replies|conversations?)\b/gi;

interface Window {
  since: number | null;
  until: number | null;
  phrase: string;
}

/**
 * The ask's period and the ask with its phrase cut out. The search reads a period with the same parser
 * the agents and the grounding verifier read a question's period with (asked-period.ts), so a period
 * they apply is the one the search applied. A "gone quiet" window is left out: it means no touch in
 * the window, which a search for what happened in it cannot say.
 */
function extractWindow(text: string, now: Date): { window: Window | null; rest: string } {
  if (asksForQuiet(text)) return { window: null, rest: text };
  const asked = parseAskedPeriod(text, now.toISOString().slice(0, 10));
  if (!asked) return { window: null, rest: text };
  const at = text.toLowerCase().indexOf(asked.phrase.toLowerCase());
  const until = Date.parse(`${asked.to}T00:00:00Z`);
  return {
    // A window that runs up to today (or past it: "this quarter") stays open.
    window: {
      since: Date.parse(`${asked.from}T00:00:00Z`),
      until: until > now.getTime() ? null : until,
      phrase: asked.phrase,
    },
    rest: at === -1 ? text : `${text.slice(0, at)} ${text.slice(at + asked.phrase.length)}`,
  };
}

const SOURCE_WORDS: Record<string, string> = {
  gong: 'gong',
  zoom: 'zoom',
  'google meet': 'google_meet',
  'google-meet': 'google_meet',
  gmail: 'gmail',
  outlook: 'outlook',
  teams: 'teams',
};
const ACCOUNT_TYPE_WORDS: Record<string, (typeof ACCOUNT_TYPES)[number]> = {
  investor: 'investor',
  investors: 'investor',
  advisor: 'advisor',
  advisors: 'advisor',
  media: 'media',
  press: 'media',
  journalists: 'media',
  competitor: 'competitor',
  competitors: 'competitor',
  vendor: 'vendor',
  vendors: 'vendor',
  partner: 'partner',
  partners: 'partner',
  reseller: 'reseller',
  resellers: 'reseller',
  prospect: 'sales_target',
  prospects: 'sales_target',
};
const STAGE_WORDS: Record<string, (typeof DEAL_STAGES)[number]> = {
  prospecting: 'prospecting',
  discovery: 'discovery',
  evaluation: 'evaluation',
  proposal: 'proposal',
  negotiation: 'negotiation',
  'closed won': 'closed_won',
  won: 'closed_won',
  'closed lost': 'closed_lost',
  lost: 'closed_lost',
};

/** Rules that read a field restriction; each match is cut out of the ask so its words are not searched. */
const FIELD_RULES: { pattern: RegExp; read: (m: RegExpExecArray) => FieldPredicate | null }[] = [
  { pattern: /\b(inbound|incoming|received)\b/i, read: () => ({ field: 'direction', op: 'eq', value: 'inbound' }) },
  { pattern: /\b(outbound|outgoing)\b/i, read: () => ({ field: 'direction', op: 'eq', value: 'outbound' }) },
  {
    pattern: /\b(?:on|from|in|via|through|recorded (?:on|in))\s+(gong|zoom|google[ -]meet|gmail|outlook|teams)\b/i,
    read: (m) => ({ field: 'source', op: 'eq', value: SOURCE_WORDS[m[1]!.toLowerCase()] ?? m[1]!.toLowerCase() }),
  },
  {
    pattern:
      /\b(longer than|more than|over|above|at least|shorter than|less than|under|below|at most)\s+(\d{1,4})\s*(minutes?|mins?|hours?|hrs?)\b/i,
    read: (m) => {
      const phrase = m[1]!.toLowerCase();
      const n = Number(m[2]);
      const seconds = /^h/i.test(m[3]!) ? n * 3600 : n * 60;
      const op =
        phrase === 'at least'
          ? 'gte'
          : phrase === 'at most'
            ? 'lte'
            : /longer|more|over|above/.test(phrase)
              ? 'gt'
              : 'lt';
      return seconds > 86_400 * 7 ? null : { field: 'duration_seconds', op, value: seconds };
    },
  },
  {
    pattern:
      /\b(?:deals?|opportunit(?:y|ies))\s+(?:in|at)\s+(?:the\s+)?(prospecting|discovery|evaluation|proposal|negotiation)(?:\s+stage)?\b/i,
    read: (m) => ({ field: 'deal_stage', op: 'eq', value: STAGE_WORDS[m[1]!.toLowerCase()]! }),
  },
  {
    pattern: /\b(closed[ -]won|closed[ -]lost)\s+(?:deals?|opportunit(?:y|ies))\b/i,
    read: (m) => ({ field: 'deal_stage', op: 'eq', value: STAGE_WORDS[m[1]!.toLowerCase().replace('-', ' ')]! }),
  },
  {
    pattern: /\b(won|lost)\s+(?:deals?|opportunit(?:y|ies))\b/i,
    read: (m) => ({ field: 'deal_stage', op: 'eq', value: STAGE_WORDS[m[1]!.toLowerCase()]! }),
  },
  {
    pattern:
      /\b(?:with|from|to)\s+(?:our\s+|the\s+)?(investors?|advisors?|media|press|journalists|competitors?|vendors?|partners?|resellers?|prospects?)\b/i,
    read: (m) => ({ field: 'account_type', op: 'eq', value: ACCOUNT_TYPE_WORDS[m[1]!.toLowerCase()]! }),
  },
];

/** Field restrictions the ask names, each cut out of it (one per field: the first rule that reads it wins). */
function extractFields(text: string): { fields: FieldPredicate[]; rest: string } {
  const fields: FieldPredicate[] = [];
  let rest = text;
  for (const rule of FIELD_RULES) {
    const m = rule.pattern.exec(rest);
    if (!m) continue;
    const predicate = rule.read(m);
    if (!predicate || fields.some((f) => f.field === predicate.field)) continue;
    fields.push(predicate);
    rest = `${rest.slice(0, m.index)} ${rest.slice(m.index + m[0].length)}`;
  }
  return { fields, rest };
}

/** Quoted phrases, taken out of the ask. */
function extractPhrases(text: string): { phrases: string[]; rest: string } {
  const phrases: string[] = [];
  const rest = text.replace(/["“”]([^"“”]{1,200})["“”]/g, (_all, inner: string) => {
    const phrase = inner.trim().replace(/\s+/g, ' ');
    if (phrase) phrases.push(phrase);
    return ' ';
  });
  return { phrases: phrases.slice(0, 8), rest };
}

const NOT_ENTITY = new Set([
  ...MONTHS.map((m) => m[0]!.toUpperCase() + m.slice(1)),
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
  'I',
  'Q1',
  'Q2',
  'Q3',
  'Q4',
  'CRM',
  'SSO',
  'SAML',
  'SOC',
  'ROI',
  'API',
  'EU',
  'US',
  'UK',
  'QBR',
]);
const LEADING_CAPITALIZED_FILLER =
  /^(show|find|list|get|give|search|which|what|who|where|when|how|calls?|meetings?|emails?|posts?|any|all|the|our|did|do|does|is|are|was|were)$/i;

/**
 * The companies the ask names: runs of capitalised words (not a month, an acronym of the product
 * space, or the ask's first word when it is a command), or the word(s) after "with"/"from"/"at"
 * ("calls with acme about pricing"). The lane checks the guess against the workspace's accounts:
 * a name that resolves restricts the search and its words leave the terms; one that does not stays
 * searched as words.
 */
function extractAccounts(text: string): { accounts: string[]; rest: string } {
  const tokens = text.split(/\s+/).filter(Boolean);
  const bare = (token: string) => token.replace(/[^\p{L}\p{N}&'.-]/gu, '').replace(/'s$/, '');
  const entityWord = (word: string) =>
    /^\p{Lu}/u.test(word) && !NOT_ENTITY.has(word) && !LEADING_CAPITALIZED_FILLER.test(word);
  const runs: { start: number; end: number }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!entityWord(bare(tokens[i]!))) continue;
    let j = i;
    while (j + 1 < tokens.length && entityWord(bare(tokens[j + 1]!)) && !/[,;:]$/.test(tokens[j]!)) j++;
    runs.push({ start: i, end: j });
    i = j;
  }
  // A capitalised first word is often just the start of a sentence: it counts only when alone.
  const chosen = (runs.length > 1 ? runs.filter((r) => r.start > 0) : runs).slice(0, MAX_ACCOUNTS);
  if (chosen.length === 0) {
    const m = /\b(?:with|from|at)\s+([\p{L}][\p{L}\p{N}&'.-]*)/u.exec(text);
    const candidate = m?.[1];
    if (
      m &&
      candidate &&
      !QUERY_FILLER.has(candidate.toLowerCase()) &&
      !KIND_WORDS[candidate.toLowerCase()] &&
      !/^(the|a|an|our|their|customers?|buyers?|prospects?|us|them)$/i.test(candidate)
    ) {
      return { accounts: [candidate.slice(0, 200)], rest: text };
    }
    return { accounts: [], rest: text };
  }
  const accounts: string[] = [];
  for (const run of chosen) {
    const name = tokens
      .slice(run.start, run.end + 1)
      .map(bare)
      .join(' ')
      .trim();
    if (name && !accounts.includes(name)) accounts.push(name.slice(0, 200));
  }
  // The names stay in the text: the lane drops the words of a name that resolved to accounts, and
  // keeps those of one that did not, in the facet where they were said.
  return { accounts, rest: text };
}

/** Splits the remaining words into facets on commas, semicolons, "and", "or", "plus", "&", "vs". */
function facets(text: string): string[][] {
  return text
    .split(/\s*(?:[,;]|\band\b|\bor\b|\bplus\b|&|\bvs\.?|\bversus\b)\s*/i)
    .map((segment) =>
      contentWords(segment)
        .filter((w) => !QUERY_FILLER.has(w) && !KIND_WORDS[w])
        .map((w) => w.slice(0, 100)),
    )
    .filter((terms) => terms.length > 0);
}

/**
 * Rules, in order: quoted phrases; the first date phrase; field restrictions (direction, source,
 * duration, deal stage, account type); the kinds of interaction named; the companies named; then
 * the remaining words split into facets. One subquery per facet (each facet's
 * words all required); when there are fewer facets than allowed and a facet has several words, a
 * recall variant matching any of its words follows. Facets beyond the budget fold into the last
 * subquery as "any". Every subquery carries the shared accounts, kinds and window.
 */
export function planLocally({ query, max_subqueries: max, now }: PlanInput): FuzzyPlan {
  const nowDate = new Date(now);
  const { phrases, rest: afterPhrases } = extractPhrases(query);
  const { window, rest: afterWindow } = extractWindow(afterPhrases, nowDate);
  const { fields, rest: afterFields } = extractFields(afterWindow);
  const afterDate = afterFields.replace(POST_PHRASES, ' posts ');
  const named = new Set(contentWordsWithHyphen(afterDate).map((w) => KIND_WORDS[w]));
  const kinds = INTERACTION_KINDS.filter((k) => named.has(k));
  const { accounts, rest } = extractAccounts(afterDate);
  const groups = facets(rest);

  const shared = {
    phrases,
    accounts,
    kinds: kinds.length === INTERACTION_KINDS.length ? [] : kinds,
    fields,
    since: window?.since != null ? new Date(window.since).toISOString() : null,
    until: window?.until != null ? new Date(window.until).toISOString() : null,
  };
  const subqueries: FuzzySubquery[] = [];
  const direct = groups.slice(0, max);
  for (const terms of direct) subqueries.push({ ...shared, terms: terms.slice(0, 32), match: 'all' });
  const overflow = groups.slice(max).flat();
  if (overflow.length > 0) {
    const last = subqueries[subqueries.length - 1]!;
    subqueries[subqueries.length - 1] = {
      ...last,
      terms: [...new Set([...last.terms, ...overflow])].slice(0, 32),
      match: 'any',
    };
  }
  for (const terms of direct) {
    if (subqueries.length >= max) break;
    if (terms.length > 1) subqueries.push({ ...shared, terms: terms.slice(0, 32), match: 'any' });
  }
  if (subqueries.length === 0) subqueries.push({ ...shared, terms: [], match: 'all' });
  return { subqueries, date_phrase: window?.phrase ?? null };
}

/** contentWords drops nothing the kind words need; kept separate so "e-mails" survives as one token. */
const contentWordsWithHyphen = (text: string): string[] => text.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? [];
