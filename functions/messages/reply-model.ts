import {
  asksIn,
  averageSentenceWords,
  focusOf,
  HYPE_WORDS,
  questionCount,
  splitSubject,
  wordsOf,
} from '../evals/index.js';

/**
 * A small reply-probability model for outbound sales email: a logistic model over features read
 * off the text, with hand-set weights. It is deliberately simple and explainable; every estimate
 * carries each feature's value, weight and contribution to the logit.
 *
 * Features, and why (the common findings of cold-email studies and sales practice):
 *   length_sweet_spot   +0.6   a body of 50-150 words gets read to the end
 *   length_over         -0.5   per 100 words past 150: long emails are skimmed and dropped
 *   too_short           -0.5   under 25 words rarely gives a reason to reply
 *   clear_ask           +0.9   one ask (a question or a call-to-action phrase) the reader can answer
 *   no_ask              -0.9   nothing to reply to
 *   question_overload   -0.4   per question past two: the reader must choose which to answer
 *   reader_focus        +0.6   ("you/your" - "I/we/our") clipped to ±5, over 5: about the reader
 *   specificity         +0.7   numbers, percentages, quoted words, named companies (up to 3, over 3)
 *   hype                -0.45  per hype word or filler phrase (capped at 4)
 *   shouting            -0.3   per run of "!" or ALL-CAPS word (capped at 5)
 *   extra_links         -0.4   per link past the first
 *   attachments         -0.2   leaning on attachments instead of a reason
 *   long_sentences      -0.5   per 10 words of average sentence length past 20
 *   subject_good        +0.3   a subject of 2-7 words
 *   subject_fake        -0.6   a fake "Re:"/"Fwd:" subject
 *   subject_missing     -0.1   no subject line
 *   cliche_opener       -0.6   per cliché ("I hope this email finds you well", "my name is", "just following up", ...)
 *
 * The weights were set by hand from those heuristics, then checked against the labelled set in
 * test/messages/reply-labelled-set.ts (32 emails labelled 1-5 before the weights were set); they
 * were not fitted to it. Change a feature or weight, bump REPLY_MODEL_VERSION.
 */
export const REPLY_MODEL_VERSION = '1.0.0';

export const INTERCEPT = -1.4;

export const WEIGHTS = {
  length_sweet_spot: 0.6,
  length_over: -0.5,
  too_short: -0.5,
  clear_ask: 0.9,
  no_ask: -0.9,
  question_overload: -0.4,
  reader_focus: 0.6,
  specificity: 0.7,
  hype: -0.45,
  shouting: -0.3,
  extra_links: -0.4,
  attachments: -0.2,
  long_sentences: -0.5,
  subject_good: 0.3,
  subject_fake: -0.6,
  subject_missing: -0.1,
  cliche_opener: -0.6,
} as const;

export type ReplyFeatureName = keyof typeof WEIGHTS;

export interface ReplyFeature {
  name: ReplyFeatureName;
  value: number;
  weight: number;
  contribution: number;
  note: string;
}

export interface ReplyEstimate {
  /** 0-1, rounded to 3 decimals. */
  probability: number;
  /** Unrounded: intercept plus every contribution. */
  logit: number;
  features: ReplyFeature[];
}

const CLICHES = [
  'i hope this email finds you well',
  'i hope this finds you well',
  'my name is',
  'just following up',
  'just checking in',
  'per my last email',
  'circle back',
  'touch base',
  'dear sir or madam',
];

export function estimateReplyProbability(message: string): ReplyEstimate {
  const { subject, body } = splitSubject(message);
  const lower = body.toLowerCase();
  const words = wordsOf(body).length;
  const asks = asksIn(message).length;
  const questions = questionCount(message);
  const focus = focusOf(body);
  const specifics =
    (body.match(/\b\d[\d,.]*\s?(%|percent)?/g) ?? []).length +
    (body.match(/["“][^"”]{3,80}["”]/g) ?? []).length +
    (body.match(/(?<=[a-z,] )[A-Z][a-z]+(?: [A-Z][a-z]+)?/g) ?? []).length;
  const hype = Math.min(
    4,
    HYPE_WORDS.filter((w) => lower.includes(w)).length +
      (subject ? HYPE_WORDS.filter((w) => subject.toLowerCase().includes(w)).length : 0),
  );
  const shouting = Math.min(
    5,
    (message.match(/!+/g) ?? []).length +
      wordsOf(message).filter((w) => w.length >= 4 && w === w.toUpperCase() && /[A-Z]/.test(w)).length,
  );
  const links = (body.match(/https?:\/\/\S+/g) ?? []).length;
  const cliches = CLICHES.filter((c) => lower.includes(c) || (subject ?? '').toLowerCase().includes(c)).length;
  const subjectWords = subject ? wordsOf(subject).length : 0;
  const fake = subject !== null && /^(re|fwd?)\s*:/i.test(subject);

  const values: Record<ReplyFeatureName, [number, string]> = {
    length_sweet_spot: [words >= 50 && words <= 150 ? 1 : 0, `${words} words in the body`],
    length_over: [Math.max(0, words - 150) / 100, words > 150 ? `${words - 150} words past 150` : 'not over 150 words'],
    too_short: [words < 25 ? 1 : 0, words < 25 ? `only ${words} words` : 'long enough to give a reason'],
    clear_ask: [
      asks > 0 && questions <= 2 ? 1 : 0,
      asks > 0 ? `${asks} ask${asks === 1 ? '' : 's'}, ${questions} question${questions === 1 ? '' : 's'}` : 'no ask',
    ],
    no_ask: [asks === 0 ? 1 : 0, asks === 0 ? 'nothing to reply to' : 'has an ask'],
    question_overload: [Math.max(0, questions - 2), `${questions} questions`],
    reader_focus: [
      Math.max(-5, Math.min(5, focus.you - focus.self)) / 5,
      `"you/your" ${focus.you}, "I/we/our" ${focus.self}`,
    ],
    specificity: [
      Math.min(3, specifics) / 3,
      `${specifics} specific${specifics === 1 ? '' : 's'} (numbers, quoted words, names)`,
    ],
    hype: [hype, `${hype} hype word${hype === 1 ? '' : 's'} or filler phrase${hype === 1 ? '' : 's'}`],
    shouting: [
      shouting,
      `${shouting} "!" run${shouting === 1 ? '' : 's'} or capitalised word${shouting === 1 ? '' : 's'}`,
    ],
    extra_links: [Math.max(0, links - 1), `${links} link${links === 1 ? '' : 's'}`],
    attachments: [
      /\battach(ed|ment|ments)?\b/i.test(body) ? 1 : 0,
      /\battach/i.test(body) ? 'leans on attachments' : 'no attachments',
    ],
    long_sentences: [
      Math.max(0, averageSentenceWords(message) - 20) / 10,
      `${averageSentenceWords(message).toFixed(0)} words per sentence`,
    ],
    subject_good: [
      subject && !fake && subjectWords >= 2 && subjectWords <= 7 ? 1 : 0,
      subject ? `subject of ${subjectWords} words` : 'no subject',
    ],
    subject_fake: [fake ? 1 : 0, fake ? 'a fake reply/forward subject' : 'honest subject'],
    subject_missing: [subject ? 0 : 1, subject ? 'has a subject' : 'no subject line'],
    cliche_opener: [cliches, `${cliches} cliché${cliches === 1 ? '' : 's'}`],
  };
  const features = (Object.keys(WEIGHTS) as ReplyFeatureName[]).map((name) => {
    const [value, note] = values[name];
    const weight = WEIGHTS[name];
    return { name, value, weight, contribution: value * weight, note };
  });
  const logit = features.reduce((sum, f) => sum + f.contribution, INTERCEPT);
  return { probability: Math.round((1 / (1 + Math.exp(-logit))) * 1000) / 1000, logit, features };
}
