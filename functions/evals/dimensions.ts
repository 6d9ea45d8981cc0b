import type { DimensionId } from './definition.js';
import type { GradingContext } from './grading-context.js';
import {
  asksIn,
  averageSentenceWords,
  hypeIn,
  questionCount,
  recurringPhrases,
  sharedStems,
  specificsIn,
  splitSubject,
  stemsOf,
  wordsOf,
} from './text.js';

/** One 1-5 dimension as the report card shows it. */
export interface DimensionScore {
  name: DimensionId;
  score: number;
  pass: boolean;
  reasoning: string;
}

/** A dimension passes at 4 or above. */
export const DIMENSION_PASS = 4;

const band = (value: number, steps: readonly number[]): number => {
  // steps: the minimum value for scores 2, 3, 4, 5 (ascending).
  let score = 1;
  steps.forEach((min, i) => {
    if (value >= min) score = i + 2;
  });
  return score;
};

/**
 * The local grader's 1-5 dimensions: counts read off the text and the run's quotes, each with the
 * reasoning that produced it. A hosted model replaces these through the `evals.grade` task.
 */
export function scoreDimensionLocally(name: DimensionId, text: string, ctx: GradingContext): DimensionScore {
  const make = (score: number, reasoning: string): DimensionScore => ({
    name,
    score,
    pass: score >= DIMENSION_PASS,
    reasoning,
  });
  const supporting = ctx.quotes.filter((q) => q.stance === 'supports').map((q) => q.text);
  switch (name) {
    case 'relevance': {
      if (supporting.length === 0) return make(1, 'No supporting customer quote to be relevant to.');
      const shared = sharedStems(stemsOf(text), stemsOf(supporting.join(' ')));
      return make(
        band(shared.length, [1, 3, 5, 8]),
        `Shares ${shared.length} content words with what customers said${shared.length ? ` (${shared.slice(0, 6).join(', ')})` : ''}.`,
      );
    }
    case 'customer_language': {
      const phrases = recurringPhrases(supporting, 5);
      const lower = text.toLowerCase();
      const used = phrases.filter((p) => lower.includes(p));
      const shared = sharedStems(stemsOf(text), stemsOf(supporting.join(' '))).length;
      const score = used.length >= 2 ? 5 : used.length === 1 ? 4 : shared >= 5 ? 3 : shared >= 2 ? 2 : 1;
      return make(
        score,
        used.length > 0
          ? `Uses phrases customers repeat: ${used.map((p) => `"${p}"`).join(', ')}.`
          : phrases.length > 0
            ? `Customers keep saying ${phrases
                .slice(0, 3)
                .map((p) => `"${p}"`)
                .join(', ')}; the text uses none of it.`
            : `Shares ${shared} words with the quotes; no phrase recurs across them.`,
      );
    }
    case 'specificity': {
      const specifics = specificsIn(text, [ctx.account?.name ?? '', ...ctx.referenceAccounts]);
      return make(
        Math.min(5, band(specifics.length, [1, 1, 2, 3]) + (specifics.length === 0 ? 0 : 0)),
        specifics.length
          ? `Concrete: ${specifics.slice(0, 4).join(', ')}.`
          : 'Nothing concrete: no number, name or fact.',
      );
    }
    case 'clarity': {
      const average = averageSentenceWords(text);
      const words = wordsOf(splitSubject(text).body).length;
      let score = average <= 15 ? 5 : average <= 20 ? 4 : average <= 26 ? 3 : average <= 35 ? 2 : 1;
      if (words > 250) score = Math.max(1, score - 1);
      return make(score, `${average.toFixed(0)} words per sentence, ${words} in all.`);
    }
    case 'call_to_action': {
      const asks = asksIn(text);
      const questions = questionCount(text);
      if (asks.length === 0) return make(1, 'No ask.');
      if (questions >= 3) return make(2, `${questions} questions compete for the answer.`);
      const last = asks[asks.length - 1] ?? '';
      const concrete =
        /\b(\d+|minutes?|tuesday|wednesday|thursday|friday|monday|next week|this week|call|demo|meeting)\b/i.test(last);
      return concrete ? make(5, `A concrete ask: "${last.trim()}"`) : make(3, `A vague ask: "${last.trim()}"`);
    }
    case 'tone': {
      const hype = hypeIn(text);
      return make(
        hype.length === 0 ? 5 : hype.length === 1 ? 3 : hype.length === 2 ? 2 : 1,
        hype.length === 0 ? 'Plain and direct.' : `Hype or filler: ${hype.slice(0, 4).join(', ')}.`,
      );
    }
    case 'grounding': {
      const verbatim = /\b(verbatim|quote|quotes|exact words)\b/i.test(text);
      const customer = /\b(customer|calls?|transcripts?|interviews?|feedback|evidence)\b/i.test(text);
      return make(
        verbatim ? 5 : customer ? 3 : 1,
        verbatim
          ? "Asks for customers' verbatim words."
          : customer
            ? 'Mentions customers but not their words.'
            : 'Nothing ties the writing to what customers said.',
      );
    }
    case 'audience': {
      const role = /\b(cfo|cto|ceo|coo|vp|head of|director|manager|lead|founder|buyer|champion)\b/i.test(text);
      const segment = /\b(enterprise|mid-?market|smb|startup|industry|segment|company|team)\b/i.test(text);
      return make(
        role && segment
          ? 5
          : role || segment
            ? 4
            : /\b(audience|persona|reader|recipient|prospect|customer)\b/i.test(text)
              ? 2
              : 1,
        role ? "Names the reader's role." : segment ? 'Names the segment.' : 'Leaves the reader unnamed.',
      );
    }
    case 'format': {
      const length =
        /\b\d+\s*(words|sentences|lines|characters|paragraphs)|under \d+|at most|no more than|short\b/i.test(text);
      const shape = /\b(subject line|bullet|format|paragraph|sign-?off|greeting|one ask|call to action)\b/i.test(text);
      return make(
        length && shape ? 5 : length || shape ? 3 : 1,
        length && shape
          ? 'Sets length and shape.'
          : length
            ? 'Sets a length, not a shape.'
            : shape
              ? 'Sets a shape, not a length.'
              : 'No length or shape.',
      );
    }
    case 'guardrails': {
      const forbids = /\b(do not|don't|never) (invent|make up|fabricate|guess)|only use|no (?:invented|made-up)/i.test(
        text,
      );
      const accurate = /\b(accurate|true|factual|honest)\b/i.test(text);
      return make(
        forbids ? 5 : accurate ? 3 : 1,
        forbids
          ? 'Forbids invented facts.'
          : accurate
            ? 'Asks for accuracy without saying what not to do.'
            : 'Nothing stops invented facts or numbers.',
      );
    }
  }
}
