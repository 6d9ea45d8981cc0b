import type { ModelProvider } from '../../platform/model/port.js';
import { checksScore, runChecks } from '../evals/checks.js';
import type { RubricCheckId, DimensionId } from '../evals/definition.js';
import { DIMENSION_PASS } from '../evals/dimensions.js';
import type { GradingContext } from '../evals/grading-context.js';
import { gradeTask, rewriteTask } from '../evals/tasks.js';
import { artifactTypeOf, type Channel } from './channel.js';
import { extractTask, type Extraction } from './extraction.js';
import { estimateReplyProbability } from './reply-model.js';

/**
 * The message optimizer (spec: Message optimizer): up to three rewrite rounds of one outbound
 * draft, each graded the way the eval grades a message (its rubric lines for the channel and its
 * 1-5 dimensions, no customer quotes); for email a reply-probability model takes half the score.
 * The best-scoring version wins, the submitted draft included; a round that cannot be graded is
 * left out of the comparison. It does not verify factual claims (the spec says so too).
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

export interface Round {
  round: number;
  message: string;
  score: number | null;
  quality: number | null;
  reply_probability: number | null;
  what_changed: string[];
  failed: string[];
  /** Why a round is out of the comparison (it could not be graded). */
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

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function grade(
  model: ModelProvider,
  channel: Channel,
  text: string,
  signal: AbortSignal,
): Promise<Omit<Round, 'round' | 'message' | 'what_changed' | 'excluded'>> {
  const ctx: GradingContext = {
    artifactType: artifactTypeOf(channel),
    audience: null,
    account: null,
    referenceAccounts: [],
    quotes: [],
  };
  const graded = await model.run(
    gradeTask,
    {
      target: 'message',
      text,
      dimensions: DIMENSIONS,
      artifact_type: ctx.artifactType,
      audience: null,
      account: null,
      reference_accounts: [],
      quotes: [],
    },
    { signal },
  );
  const checks = runChecks(CHECKS, text, ctx);
  const fraction = checksScore(checks).score;
  const dims = graded.dimensions.length
    ? graded.dimensions.reduce((n, d) => n + (d.score - 1) / 4, 0) / graded.dimensions.length
    : null;
  const parts = [fraction, dims].filter((x): x is number => x !== null);
  const quality = parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : null;
  const reply = channel === 'email' ? estimateReplyProbability(text).probability : null;
  const score = quality === null ? null : reply === null ? quality : 0.5 * quality + 0.5 * reply;
  const failed = [
    ...checks.filter((c) => c.applicable && !c.passed).map((c) => c.check_id),
    ...graded.dimensions.filter((d) => d.score < DIMENSION_PASS).map((d) => d.name),
  ];
  return {
    score: score === null ? null : round3(score),
    quality: quality === null ? null : round3(quality),
    reply_probability: reply,
    failed,
  };
}

export async function optimizeMessage(
  model: ModelProvider,
  input: { message: string; channel: Channel },
  signal: AbortSignal,
): Promise<Optimization> {
  const original: Round = {
    round: 0,
    message: input.message,
    what_changed: [],
    excluded: null,
    ...(await grade(model, input.channel, input.message, signal)),
  };
  const rounds: Round[] = [original];
  let current = original;
  for (let i = 1; i <= MAX_ROUNDS; i++) {
    signal.throwIfAborted();
    const rewrite = await model.run(
      rewriteTask,
      {
        target: 'message',
        text: current.message,
        failed: current.failed,
        artifact_type: artifactTypeOf(input.channel),
        audience: null,
        account: null,
        customer_phrases: [],
      },
      { signal },
    );
    if (rewrite.text.trim() === current.message.trim()) break; // nothing left the rewriter can act on
    let graded: Awaited<ReturnType<typeof grade>>;
    try {
      graded = await grade(model, input.channel, rewrite.text, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      rounds.push({
        round: i,
        message: rewrite.text,
        score: null,
        quality: null,
        reply_probability: null,
        what_changed: rewrite.what_changed,
        failed: [],
        excluded: 'could not be graded',
      });
      continue;
    }
    const round: Round = {
      round: i,
      message: rewrite.text,
      what_changed: rewrite.what_changed,
      excluded: graded.score === null ? 'could not be graded' : null,
      ...graded,
    };
    rounds.push(round);
    if (round.excluded === null) current = round;
  }
  const scored = rounds.filter((r) => r.excluded === null && r.score !== null);
  // The highest score wins; on a tie the earlier round (the submitted draft first) keeps it.
  const best = scored.reduce((a, b) => ((b.score as number) > (a.score as number) ? b : a), original);
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
  const excluded = rounds.filter((r) => r.excluded).length;
  const tail = excluded ? ` ${excluded} round${excluded === 1 ? ' was' : 's were'} left out: could not be graded.` : '';
  const reply = (r: Round) =>
    r.reply_probability === null ? '' : `, reply probability ${r.reply_probability.toFixed(2)}`;
  if (best === original) {
    return `Nothing beat the submitted ${channel} (score ${original.score?.toFixed(2) ?? 'n/a'}${reply(original)}); ${rounds.length - 1} rewrite round${rounds.length - 1 === 1 ? '' : 's'} tried.${tail}`;
  }
  return `Round ${best.round} of ${rounds.length - 1} kept: score ${original.score?.toFixed(2)} → ${best.score?.toFixed(2)}${reply(original) ? ` (reply probability ${original.reply_probability?.toFixed(2)} → ${best.reply_probability?.toFixed(2)})` : ''}. ${rounds
    .slice(1, best.round + 1)
    .flatMap((r) => r.what_changed)
    .join(' ')}${tail}`.trim();
}
