import { CTA_PHRASES } from './text.js';

/**
 * What a rewrite must not break in someone else's text: sentences (split without cutting "3.5",
 * "acme.com" or "e.g."), complete sentences (no "our AI is." left behind by a removed word), the
 * writer's facts (numbers, names, dates, product terms), and the ask. Used by the local rewriter
 * to choose safe edits and by the message optimizer to refuse a damaging rewrite from any model.
 */

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'vs', 'mr', 'ms', 'mrs', 'dr', 'etc', 'approx', 'no', 'st', 'inc', 'ltd']);

/** Sentences of a paragraph: terminal punctuation counts only before whitespace or the end. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch !== '.' && ch !== '!' && ch !== '?' && ch !== '…') continue;
    let end = i + 1;
    while (end < text.length && /[.!?…"”’)]/.test(text[end] as string)) end++;
    if (end < text.length && !/\s/.test(text[end] as string)) {
      i = end - 1;
      continue;
    }
    const word = /([A-Za-z.]+)$/.exec(text.slice(start, i))?.[1]?.toLowerCase() ?? '';
    if (ch === '.' && ABBREVIATIONS.has(word)) continue;
    out.push(text.slice(start, end).trim());
    start = end;
    i = end - 1;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out.filter((s) => s.length > 0);
}

/** Words that cannot end a sentence: a removed word after them leaves "our AI is." */
const DANGLING = new Set(
  'a an the our your their its my his her this that these those is are was were be been being am to of for with and or but at in on by from into about than as so very really truly will would can could should shall may might must do does did has have had not no just'.split(
    ' ',
  ),
);

/**
 * Why a sentence is not complete, or null when it reads as one: it must end in terminal
 * punctuation, hold at least two words (a one-word question such as "Thoughts?" aside), and not
 * end on a word that needs another after it.
 */
export function incompleteReason(sentence: string): string | null {
  const s = sentence.trim();
  if (!/[.!?…]["”’)]*$/.test(s)) return `"${s}" does not end a sentence`;
  const words = s.match(/[A-Za-z0-9][A-Za-z0-9'’-]*/g) ?? [];
  if (words.length === 0) return `"${s}" has no words`;
  if (words.length < 2 && !s.endsWith('?')) return `"${s}" is a fragment`;
  const last = (words.at(-1) ?? '').toLowerCase();
  if (DANGLING.has(last)) return `"${s}" ends on "${last}"`;
  if (/\s[,;:]|,\s*[.!?]|\b(\w+)\s+\1\b/i.test(s)) return `"${s}" has a gap where a word was`;
  return null;
}

/** All-caps terms that are names of things, not shouting: kept as written. */
export const ACRONYMS = new Set(
  'API APIS CRM ERP GDPR HIPAA SAML SOC SSO SCIM ROI ARR MRR SLA SLAS KPI KPIS OKR OKRS SDR SDRS BDR BDRS CSM CFO CEO CTO COO CRO CMO CIO CISO HR IT AWS GCP SQL EMEA APAC AMER NYC USA UK EU AI ML LLM SAAS B2B B2C PDF CSV ETL RFP RFPS POC NPS CSAT QBR QBRS FAQ ISO PCI SOX FDA NASA'.split(
    ' ',
  ),
);

const MONTHS_AND_DAYS =
  /^(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|monday|tuesday|wednesday|thursday|friday|saturday|sunday)$/i;

/**
 * The writer's facts: every token with a digit ("3", "$40k", "15%", "Q3", "200-seat"), every
 * capitalised word that does not open a sentence (people, companies, products), months and days
 * wherever they stand, and acronyms. `except` holds words a rewrite may remove on purpose (hype).
 */
export function factsIn(text: string, except: readonly string[] = []): string[] {
  const skip = new Set(except.map((w) => w.toLowerCase()));
  const facts = new Set<string>();
  const tokens = text.matchAll(/[$€£]?[A-Za-z0-9][A-Za-z0-9'’&.%$-]*[A-Za-z0-9%]|[$€£]?[A-Za-z0-9]/g);
  for (const m of tokens) {
    const token = m[0].replace(/['’]s$/, '');
    const before = text.slice(0, m.index).replace(/[ \t"“(]+$/, '');
    const opensSentence = before === '' || /[.!?:\n]$/.test(before);
    if (skip.has(token.toLowerCase())) continue;
    if (/\d/.test(token)) facts.add(token);
    else if (MONTHS_AND_DAYS.test(token)) facts.add(token);
    else if (ACRONYMS.has(token.toUpperCase()) && token.length >= 2 && token === token.toUpperCase()) facts.add(token);
    else if (/^[A-Z][a-z]/.test(token) && !opensSentence && !/^I(['’](m|d|ll|ve))?$/.test(token)) facts.add(token);
  }
  return [...facts];
}

/** The facts of `original` that `candidate` no longer holds (compared as written). */
export function factsLost(original: string, candidate: string, except: readonly string[] = []): string[] {
  const kept = new Set(candidate.match(/[$€£]?[A-Za-z0-9][A-Za-z0-9'’&.%$-]*[A-Za-z0-9%]|[$€£]?[A-Za-z0-9]/g) ?? []);
  const keptLoose = new Set([...kept].map((t) => t.replace(/['’]s$/, '')));
  return factsIn(original, except).filter((f) => !keptLoose.has(f) && !kept.has(f));
}

const VAGUE_ASK =
  /^(let me know( if you('re| are) (still )?interested( or not)?| when you have (some )?time( to (chat|talk))?| what you think| your thoughts)?[.!?]*$|thoughts\??[.!?]*$|any thoughts\??[.!?]*$|interested\??[.!?]*$|any interest\b|feel free to (reach out|get in touch)\b|happy to chat\b|hope to hear from you\b|looking forward to hearing\b)/i;

/** An ask that leaves the reader to invent the next step ("Let me know.", "Thoughts?"). */
export const isVagueAsk = (sentence: string): boolean => VAGUE_ASK.test(sentence.trim());

/** Requests the rubric's ask check does not list but a writer means as one ("I'd love to walk you through..."). */
const REQUEST_PHRASES = [
  'let me know',
  'walk you through',
  'would love to',
  "i'd love to",
  'i’d love to',
  'happy to set up',
  'free for',
  'time for a',
  'send me',
  'can you',
  'could you',
  'hop on',
  'set up a',
];

/** Whether a sentence asks the reader for something: a question, or a request in words (the rubric's or these). */
export function isAsk(sentence: string): boolean {
  const s = sentence.trim();
  if (s.endsWith('?') || isVagueAsk(s)) return true;
  const lower = s.toLowerCase();
  return CTA_PHRASES.some((p) => lower.includes(p)) || REQUEST_PHRASES.some((p) => lower.includes(p));
}
