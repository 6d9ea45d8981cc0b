import type { ModelProvider } from '../../platform/model/port.js';
import { type CheckOutcome, checksScore, runChecks } from './checks.js';
import type { DimensionId } from './definition.js';
import { DIMENSION_PASS, type DimensionScore } from './dimensions.js';
import type { GradedQuote, GradingContext } from './grading-context.js';
import { gradeTask } from './tasks.js';

/**
 * The grader and the improvement loop that evals and the message optimizer share: one way to grade
 * a side (rubric lines and 1-5 dimensions), and one rewrite → re-grade → keep-the-better loop.
 * Evals run it for one round; the optimizer for up to three.
 */

export interface SideGrade {
  checks: CheckOutcome[];
  dimensions: DimensionScore[];
  quotes: GradedQuote[];
  /** The mean of the rubric fraction and the dimensions (0-1); null when neither applies. */
  score: number | null;
  /** Failed rubric lines and dimensions below the pass mark, by id: what a rewrite should fix. */
  failed: string[];
}

const mean = (xs: readonly number[]): number | null =>
  xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;

/** Grade one side: the model scores the dimensions and the quotes' stances; the rubric lines run here. */
export async function gradeSide(
  model: ModelProvider,
  kind: 'message' | 'prompt',
  text: string,
  checkIds: readonly CheckOutcome['check_id'][],
  dimensionIds: readonly DimensionId[],
  ctx: GradingContext,
  signal: AbortSignal,
): Promise<SideGrade> {
  const graded = await model.run(
    gradeTask,
    {
      target: kind,
      text,
      dimensions: [...dimensionIds],
      artifact_type: ctx.artifactType,
      audience: ctx.audience,
      account: ctx.account,
      reference_accounts: ctx.referenceAccounts,
      quotes: ctx.quotes.map((q, index) => ({ index, text: q.text })),
    },
    { signal },
  );
  const stances = new Map(graded.quote_stances.map((s) => [s.index, s.stance]));
  const quotes = ctx.quotes.map((q, i) => ({ ...q, stance: stances.get(i) ?? 'supports' }));
  const checks = runChecks(checkIds, text, { ...ctx, quotes });
  const byName = new Map(graded.dimensions.map((d) => [d.name, d]));
  // Every requested dimension, in the grader's order; one the model left out scores 1 and says so.
  const dimensions: DimensionScore[] = dimensionIds.map((name) => {
    const d = byName.get(name);
    return d
      ? { name, score: d.score, pass: d.score >= DIMENSION_PASS, reasoning: d.reasoning }
      : { name, score: 1, pass: false, reasoning: 'Not graded by the model.' };
  });
  const fraction = checksScore(checks).score;
  const dims = mean(dimensions.map((d) => (d.score - 1) / 4));
  const parts = [fraction, dims].filter((x): x is number => x !== null);
  const failed = [
    ...checks.filter((c) => c.applicable && !c.passed).map((c) => c.check_id),
    ...dimensions.filter((d) => !d.pass).map((d) => d.name),
  ];
  return { checks, dimensions, quotes, score: mean(parts), failed };
}

/** A grade the loop can compare: a score (null: not comparable) and what failed. */
export interface Comparable {
  score: number | null;
  failed: string[];
}

export interface LoopRound<G extends Comparable> {
  /** 0 is the submitted text; rewrites count from 1. */
  round: number;
  text: string;
  grade: G | null;
  what_changed: string[];
  /** Why the round is out of the comparison (it could not be graded, or the screen refused it); null when in. */
  excluded: string | null;
}

export interface ImprovementLoop<G extends Comparable> {
  /** The submitted text and its grade (round 0). */
  submitted: { text: string; grade: G };
  maxRounds: number;
  /** Rewrite the text kept so far; `round` counts from 1 (a caller may widen what each round may change). */
  rewrite(kept: LoopRound<G>, round: number): Promise<{ text: string; what_changed: string[] }>;
  /** Grade a rewrite; null when it cannot be graded. */
  grade(text: string): Promise<G | null>;
  /** Why a rewrite must not be offered whatever its score (e.g., it damages the draft); null to let it compete. */
  screen?(text: string): string | null;
  /**
   * `strictly_better`: a rewrite replaces the kept text only when it scores higher (a tie keeps the
   * earlier one); `at_least_as_good`: a tie goes to the rewrite.
   */
  keep: 'strictly_better' | 'at_least_as_good';
  signal: AbortSignal;
}

/**
 * Rewrite → re-grade → keep the better, for up to `maxRounds` rounds. Each round rewrites the text
 * kept so far, so a round that grades lower is reported and the next one starts again from the
 * better text. Every round is returned, the ones left out with their reason.
 */
export async function improve<G extends Comparable>(
  loop: ImprovementLoop<G>,
): Promise<{ rounds: LoopRound<G>[]; best: LoopRound<G> }> {
  const original: LoopRound<G> = { round: 0, ...loop.submitted, what_changed: [], excluded: null };
  const rounds: LoopRound<G>[] = [original];
  let kept = original;
  for (let i = 1; i <= loop.maxRounds; i++) {
    loop.signal.throwIfAborted();
    const proposed = await loop.rewrite(kept, i);
    const refused = loop.screen?.(proposed.text) ?? null;
    const grade = await loop.grade(proposed.text);
    const excluded = grade === null || grade.score === null ? 'could not be graded' : refused;
    const round: LoopRound<G> = { round: i, text: proposed.text, grade, what_changed: proposed.what_changed, excluded };
    rounds.push(round);
    if (excluded === null && beats(round, kept, loop.keep)) kept = round;
  }
  return { rounds, best: kept };
}

function beats<G extends Comparable>(
  candidate: LoopRound<G>,
  kept: LoopRound<G>,
  rule: ImprovementLoop<G>['keep'],
): boolean {
  const a = candidate.grade?.score;
  const b = kept.grade?.score;
  if (a === null || a === undefined) return false;
  // The submitted text could not be scored: any scored rewrite is an improvement on nothing known.
  if (b === null || b === undefined) return true;
  return rule === 'strictly_better' ? a > b : a >= b;
}
