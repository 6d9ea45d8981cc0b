import type { ArtifactType, RubricCheckId } from './definition.js';
import type { GradingContext } from './grading-context.js';
import {
  asksIn,
  averageSentenceWords,
  focusOf,
  hypeIn,
  questionCount,
  sharedStems,
  specificsIn,
  splitSubject,
  stemsOf,
  wordsOf,
} from './text.js';

/**
 * The rubric: every line a `rule` grader may use, with the artifact types it applies to. A line that
 * does not apply to the declared `artifact_type` (or needs evidence the run did not find) leaves
 * both sides of the fraction, passed or failed (spec: Scoring rule), so `checks_total` can be
 * smaller than the rubric.
 */
export interface CheckOutcome {
  check_id: RubricCheckId;
  label: string;
  applicable: boolean;
  passed: boolean;
  note: string;
}

interface CheckSpec {
  label: string;
  /** Artifact types the line applies to; `all` for every one. */
  appliesTo: readonly ArtifactType[] | 'all';
  needsEvidence?: boolean;
  run(text: string, ctx: GradingContext): { passed: boolean; note: string };
}

const LENGTH_BANDS: Record<ArtifactType | 'unknown', [number, number]> = {
  email: [40, 200],
  linkedin: [15, 120],
  call_script: [40, 300],
  landing_page: [80, 900],
  ad: [5, 60],
  other: [15, 300],
  unknown: [15, 300],
};

export const CHECKS: Record<RubricCheckId, CheckSpec> = {
  has_call_to_action: {
    label: 'Ends with one clear ask',
    appliesTo: ['email', 'linkedin', 'call_script', 'landing_page', 'other'],
    run(text) {
      const asks = asksIn(text);
      const questions = questionCount(text);
      if (asks.length === 0) return { passed: false, note: 'No ask: the reader is not told what to do next.' };
      if (questions >= 3)
        return { passed: false, note: `${questions} questions: the reader has to choose which to answer.` };
      return { passed: true, note: `One ask: "${asks[asks.length - 1]?.trim()}"` };
    },
  },
  length_fits_channel: {
    label: 'Length fits the channel',
    appliesTo: 'all',
    run(text, ctx) {
      const words = wordsOf(splitSubject(text).body).length;
      const [min, max] = LENGTH_BANDS[ctx.artifactType ?? 'unknown'];
      const passed = words >= min && words <= max;
      return { passed, note: `${words} words; ${ctx.artifactType ?? 'a message'} reads best at ${min}-${max}.` };
    },
  },
  subject_line: {
    label: 'Has a short subject line',
    appliesTo: ['email'],
    run(text) {
      const { subject } = splitSubject(text);
      if (!subject) return { passed: false, note: 'No "Subject:" line.' };
      const words = wordsOf(subject).length;
      if (/^(re|fwd?):/i.test(subject)) return { passed: false, note: 'The subject fakes a reply or forward.' };
      return words >= 2 && words <= 9
        ? { passed: true, note: `Subject of ${words} words.` }
        : { passed: false, note: `Subject of ${words} words; 2-9 read best.` };
    },
  },
  uses_customer_language: {
    label: "Uses the customers' own words",
    appliesTo: 'all',
    needsEvidence: true,
    run(text, ctx) {
      const supporting = ctx.quotes.filter((q) => q.stance === 'supports');
      const quoteStems = stemsOf(supporting.map((q) => q.text).join(' '));
      const shared = sharedStems(stemsOf(text), quoteStems);
      const passed = shared.length >= 3;
      return {
        passed,
        note: passed
          ? `Shares ${shared.length} words with what customers said (${shared.slice(0, 5).join(', ')}).`
          : `Shares ${shared.length} word${shared.length === 1 ? '' : 's'} with what customers said.`,
      };
    },
  },
  no_hype: {
    label: 'No hype or filler',
    appliesTo: 'all',
    run(text) {
      const hype = hypeIn(text);
      return hype.length === 0
        ? { passed: true, note: 'No hype words, shouting or filler openers.' }
        : { passed: false, note: `Hype or filler: ${hype.slice(0, 5).join(', ')}.` };
    },
  },
  specific_fact: {
    label: 'States a specific fact',
    appliesTo: ['email', 'linkedin', 'call_script', 'landing_page', 'other'],
    run(text, ctx) {
      const names = [ctx.account?.name ?? '', ...ctx.referenceAccounts];
      const specifics = specificsIn(text, names);
      return specifics.length > 0
        ? { passed: true, note: `Specific: ${specifics.slice(0, 3).join(', ')}.` }
        : { passed: false, note: 'No number, name or concrete fact.' };
    },
  },
  no_contradicted_claim: {
    label: 'Nothing customers said contradicts it',
    appliesTo: 'all',
    needsEvidence: true,
    run(_text, ctx) {
      const against = ctx.quotes.filter((q) => q.stance === 'contradicts');
      return against.length === 0
        ? { passed: true, note: `None of the ${ctx.quotes.length} quotes cuts against it.` }
        : {
            passed: false,
            note: `${against.length} quote${against.length === 1 ? '' : 's'} cut${against.length === 1 ? 's' : ''} against it, e.g. "${against[0]?.text}"`,
          };
    },
  },
  reader_focus: {
    label: 'About the reader, not the sender',
    appliesTo: ['email', 'linkedin', 'landing_page', 'ad'],
    run(text) {
      const { you, self } = focusOf(text);
      return you >= self
        ? { passed: true, note: `"you/your" ${you} times, "I/we/our" ${self}.` }
        : { passed: false, note: `"I/we/our" ${self} times against "you/your" ${you}.` };
    },
  },
  prompt_names_audience: {
    label: 'Names who the message is for',
    appliesTo: 'all',
    run(text) {
      const passed =
        /\b(audience|persona|reader|recipient|buyer|prospect|customer|cfo|cto|ceo|vp|head of|director|manager|team lead|for (?:a|an|the) )/i.test(
          text,
        );
      return { passed, note: passed ? 'Names the audience.' : 'Does not say who the message is for.' };
    },
  },
  prompt_grounds_in_evidence: {
    label: 'Asks for evidence from customer conversations',
    appliesTo: 'all',
    run(text) {
      const passed =
        /\b(quote|quotes|customer(?:s)? (?:said|say|words|language)|calls?|transcripts?|evidence|verbatim|interviews?|feedback)\b/i.test(
          text,
        );
      return {
        passed,
        note: passed
          ? 'Grounds the writing in what customers said.'
          : 'Never asks to use what customers actually said.',
      };
    },
  },
  prompt_sets_format: {
    label: 'Sets length and format',
    appliesTo: 'all',
    run(text) {
      const passed =
        /\b(\d+\s*(words|sentences|lines|characters|paragraphs)|subject line|bullet|under \d+|at most|no more than|format|one paragraph|short)\b/i.test(
          text,
        );
      return { passed, note: passed ? 'Sets a length or format.' : 'No length or format constraint.' };
    },
  },
  prompt_states_goal: {
    label: 'States the goal',
    appliesTo: 'all',
    run(text) {
      const passed = /\b(goal|so that|in order to|aim|objective|to get|to book|to secure|outcome|purpose)\b/i.test(
        text,
      );
      return {
        passed,
        note: passed ? 'States what the message should achieve.' : 'Does not say what the message should achieve.',
      };
    },
  },
  prompt_forbids_invention: {
    label: 'Forbids invented facts',
    appliesTo: 'all',
    run(text) {
      const passed =
        /\b(do not|don't|never) (invent|make up|fabricate|guess)|only use|only (?:the )?facts|no (?:invented|made-up)/i.test(
          text,
        );
      return {
        passed,
        note: passed ? 'Tells the writer not to invent facts.' : 'Does not forbid invented facts or numbers.',
      };
    },
  },
  prompt_length: {
    label: 'Prompt is complete but focused',
    appliesTo: 'all',
    run(text) {
      const words = wordsOf(text).length;
      const sentenceWords = averageSentenceWords(text);
      const passed = words >= 20 && words <= 600 && sentenceWords <= 35;
      return {
        passed,
        note: `${words} words, ${sentenceWords.toFixed(0)} per sentence (20-600 words, sentences under 35 words read best).`,
      };
    },
  },
};

/** Run a grader's checks on one text. */
export function runChecks(checkIds: readonly RubricCheckId[], text: string, ctx: GradingContext): CheckOutcome[] {
  return checkIds.map((id) => {
    const spec = CHECKS[id];
    const label = spec.label;
    if (ctx.artifactType && spec.appliesTo !== 'all' && !spec.appliesTo.includes(ctx.artifactType)) {
      return { check_id: id, label, applicable: false, passed: false, note: `Does not apply to ${ctx.artifactType}.` };
    }
    if (spec.needsEvidence && ctx.quotes.length === 0) {
      return {
        check_id: id,
        label,
        applicable: false,
        passed: false,
        note: 'No customer quotes were retrieved to check it against.',
      };
    }
    const outcome = spec.run(text, ctx);
    return { check_id: id, label, applicable: true, ...outcome };
  });
}

/** The fraction of applicable checks passed (inapplicable lines leave both sides); null when none applies. */
export function checksScore(outcomes: readonly CheckOutcome[]): {
  passed: number;
  total: number;
  score: number | null;
} {
  const applicable = outcomes.filter((o) => o.applicable);
  const passed = applicable.filter((o) => o.passed).length;
  return { passed, total: applicable.length, score: applicable.length === 0 ? null : passed / applicable.length };
}
