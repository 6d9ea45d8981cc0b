import type { ModelProvider } from '../../platform/model/port.js';
import type { DimensionId, RubricCheckId } from '../evals/definition.js';
import type { GradingContext } from '../evals/grading-context.js';
import { gradeSide, improve, type LoopRound } from '../evals/index.js';
import { rewriteTask } from '../evals/index.js';
import { artifactTypeOf, type Channel } from './channel.js';
import { damageOf } from './draft-guard.js';
import { type Extraction, extractTask } from './extraction.js';
import { estimateReplyProbability } from './reply-model.js';

/**
 * The message optimizer (spec: Message optimizer): up to three rewrite rounds of one outbound
 * draft on the evals' improvement loop, each graded the way the eval grades a message (its rubric
 * lines for the channel and its 1-5 dimensions, no customer quotes); for email a reply-probability
 * model takes half the score. The best-scoring version wins and a tie keeps the earlier one, the
 * submitted draft first. A round that cannot be graded, or that damages the draft (draft-guard.ts),
 * is left out of the comparison. It does not verify factual claims (the spec says so too).
 */
export const MAX_ROUNDS = 3;
const CHECKS: RubricCheckId[] = [
  'has_call_to_action',
  'length_fits_channel',
  'subject_line',
  'no_hype',
  'specific_fact',
  'reader_focus',
];
const DIMENSIONS: DimensionId[] = ['specificity', 'clarity', 'call_to_action', 'tone'];

/**
 * What each round may fix, widening round by round: tone first, then the ask and the subject line,
 * then everything (length). The lightest edit competes first, and a heavier one must beat it.
 */
const ROUND_SCOPES: readonly (ReadonlySet<string> | null)[] = [
  new Set(['no_hype', 'tone']),
  new Set(['no_hype', 'tone', 'has_call_to_action', 'call_to_action', 'subject_line']),
  null,
];

export interface Round {
  round: number;
  message: string;
  score: number | null;
  quality: number | null;
  reply_probability: number | null;
  what_changed: string[];
  failed: string[];
  /** Why a round is out of the comparison (it could not be graded, or it damages the draft). */
  excluded: string | null;
}

export interface Optimization {
  channel: Channel;
  best: Round;
  rounds: Round[];
  unchanged: boolean;
  summary: string;
  extraction: Extraction;
}

interface MessageGrade {
  score: number | null;
  quality: number | null;
  reply_probability: number | null;
  failed: string[];
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function grade(model: ModelProvider, channel: Channel, text: string, signal: AbortSignal): Promise<MessageGrade> {
  const ctx: GradingContext = {
    artifactType: artifactTypeOf(channel),
    audience: null,
    account: null,
    referenceAccounts: [],
    quotes: [],
  };
  const side = await gradeSide(model, 'message', text, CHECKS, DIMENSIONS, ctx, signal);
  const reply = channel === 'email' ? estimateReplyProbability(text).probability : null;
  const quality = side.score;
  const score = quality === null ? null : reply === null ? quality : 0.5 * quality + 0.5 * reply;
  return {
    score: score === null ? null : round3(score),
    quality: quality === null ? null : round3(quality),
    reply_probability: reply,
    failed: side.failed,
  };
}

const asRound = (r: LoopRound<MessageGrade>): Round => ({
  round: r.round,
  message: r.text,
  score: r.grade?.score ?? null,
  quality: r.grade?.quality ?? null,
  reply_probability: r.grade?.reply_probability ?? null,
  what_changed: r.what_changed,
  failed: r.grade?.failed ?? [],
  excluded: r.excluded,
});

export async function optimizeMessage(
  model: ModelProvider,
  input: { message: string; channel: Channel },
  signal: AbortSignal,
): Promise<Optimization> {
  const submitted = await grade(model, input.channel, input.message, signal);
  const loop = await improve<MessageGrade>({
    submitted: { text: input.message, grade: submitted },
    maxRounds: MAX_ROUNDS,
    keep: 'strictly_better',
    signal,
    rewrite: (kept, i) => {
      const scope = ROUND_SCOPES[i - 1] ?? null;
      const failed = (kept.grade?.failed ?? []).filter((f) => scope === null || scope.has(f));
      return model.run(
        rewriteTask,
        {
          target: 'message',
          text: kept.text,
          failed,
          artifact_type: artifactTypeOf(input.channel),
          audience: null,
          account: null,
          customer_phrases: [],
        },
        { signal },
      );
    },
    grade: async (text) => {
      try {
        return await grade(model, input.channel, text, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        return null; // a round that cannot be graded is left out, not fatal
      }
    },
    screen: (text) => {
      const damage = damageOf(input.message, text);
      return damage === null ? null : `damages the draft: ${damage}`;
    },
  });
  const rounds = loop.rounds.map(asRound);
  const best = rounds[loop.best.round] as Round;
  const original = rounds[0] as Round;
  const unchanged = best === original;
  const extraction = await model.run(extractTask, { message: input.message }, { signal });
  return {
    channel: input.channel,
    best,
    rounds,
    unchanged,
    summary: summarize(original, best, rounds, input.channel),
    extraction,
  };
}

function summarize(original: Round, best: Round, rounds: Round[], channel: Channel): string {
  const excluded = rounds.filter((r) => r.excluded);
  const tail = excluded.length
    ? ` Left out: ${excluded.map((r) => `round ${r.round} (${r.excluded})`).join('; ')}.`
    : '';
  const reply = (r: Round) =>
    r.reply_probability === null ? '' : `, reply probability ${r.reply_probability.toFixed(2)}`;
  if (best === original) {
    return `Nothing beat the submitted ${channel} (score ${original.score?.toFixed(2) ?? 'n/a'}${reply(original)}); ${rounds.length - 1} rewrite round${rounds.length - 1 === 1 ? '' : 's'} tried.${tail}`;
  }
  // The rounds that were kept on the way to the best one, each building on the last.
  const chain: Round[] = [];
  let kept = original;
  for (const r of rounds.slice(1, best.round + 1)) {
    if (r.excluded === null && r.score !== null && (kept.score === null || r.score > kept.score)) {
      chain.push(r);
      kept = r;
    }
  }
  return `Round ${best.round} of ${rounds.length - 1} kept: score ${original.score?.toFixed(2)} → ${best.score?.toFixed(2)}${reply(original) ? ` (reply probability ${original.reply_probability?.toFixed(2)} → ${best.reply_probability?.toFixed(2)})` : ''}. ${chain
    .flatMap((r) => r.what_changed)
    .join(' ')}${tail}`.trim();
}
