import type { ModelProvider } from '../../platform/model/port.js';
import { checksScore, type CheckOutcome } from './checks.js';
import { casesOf, type ArtifactType, type EvalDefinition, type EvalMode, type GraderSpec } from './definition.js';
import type { DimensionScore } from './dimensions.js';
import type { Evidence } from './evidence.js';
import type { GradedQuote, GradingContext } from './grading-context.js';
import { gradeSide, improve, type SideGrade } from './improvement-loop.js';
import { rewriteTask, suggestTask } from './tasks.js';
import { recurringPhrases } from './text.js';

/**
 * The report card (spec: Eval run, verdict): each case (a graded input field) is graded by its
 * graders on the submitted side (`before`), rewritten, and the rewrite graded the same way
 * (`after`). Scores are fractions 0-1 (`score_15` the same on 1-5); a side's score is the mean of
 * its rubric fraction and its dimensions; a case's score is its submitted side's.
 */

export const PASS_THRESHOLD = 0.7;

export interface Side {
  label: 'before' | 'after';
  prompt: string | null;
  prompt_note: string | null;
  message: string | null;
  message_note: string | null;
  score: number | null;
  score_15: number | null;
  checks_passed: number;
  checks_total: number;
  dimensions: DimensionScore[];
  quotes: GradedQuote[];
  reasoning: string;
}

export interface GraderResult {
  grader_id: string;
  kind: GraderSpec['kind'];
  score: number | null;
  passed: boolean;
  rationale: string;
  checks?: CheckOutcome[];
  improvement?: { before: Side; after: Side | null; lift: number | null; what_changed: string[] };
  dimensions: DimensionScore[];
  quotes: GradedQuote[];
  rewrite: string | null;
  suggestions?: { anchor: string | null; suggestion: string; reason: string; check_id: string | null }[];
  evidence: {
    before_score: number | null;
    after_score: number | null;
    lift: number | null;
    message_simulated: boolean;
    retrieved_quotes: number;
    retrieval_status: Evidence['retrieval_status'];
  };
}

export interface CaseResult {
  case_id: string;
  label: string;
  answered: boolean;
  applicable: boolean;
  score: number | null;
  passed: boolean;
  latency_ms: number;
  graders: GraderResult[];
}

export interface Verdict {
  eval_slug: string;
  eval_version: string;
  mode: EvalMode;
  overall_score: number | null;
  overall_reasoning: string;
  verdict: 'pass' | 'needs_work' | 'abstain';
  cases: CaseResult[];
  summary: { total_cases: number; passed_cases: number; failed_cases: number; not_applicable_cases: number };
  gate: {
    passed: boolean;
    score: number | null;
    threshold: number;
    reasoning: string | null;
    critique: string[] | null;
    denominator: 'applicable_only' | 'all_dimensions';
    checks_total: number;
    checks_passed: number;
  };
  evidence: {
    retrieved_quotes: number;
    retrieval_status: Evidence['retrieval_status'];
    floor: number;
    /** Statements the relevance check left out (null on runs retrieved before it existed). */
    off_topic: number | null;
    abstain_reason: string | null;
    notes: string[];
    slice: Evidence['slice'];
    account_found: boolean | null;
  };
}

const round = (n: number, places = 3): number => Math.round(n * 10 ** places) / 10 ** places;
const to15 = (score: number | null): number | null => (score === null ? null : round(1 + 4 * score, 2));
const mean = (xs: readonly number[]): number | null =>
  xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;

export async function gradeRun(
  model: ModelProvider,
  def: EvalDefinition,
  inputs: Record<string, unknown>,
  evidence: Evidence,
  signal: AbortSignal,
): Promise<Verdict> {
  const mode = (inputs.mode as EvalMode | undefined) ?? 'rewrite';
  const artifactType = (inputs.artifact_type as ArtifactType | undefined) ?? null;
  const ctxBase: Omit<GradingContext, 'quotes'> = {
    artifactType,
    audience: (inputs.audience as string | undefined) ?? null,
    account: evidence.account,
    referenceAccounts: (inputs.reference_accounts as string[] | undefined) ?? [],
  };
  const phrases = recurringPhrases(evidence.quotes.map((q) => q.text));
  const cases: CaseResult[] = [];
  for (const target of casesOf(def)) {
    const started = performance.now();
    const text = typeof inputs[target] === 'string' ? (inputs[target] as string) : null;
    const graders = def.graders.filter((g) => g.target === target);
    const label = target.charAt(0).toUpperCase() + target.slice(1).replace(/_/g, ' ');
    if (text === null || evidence.abstain_reason) {
      cases.push({
        case_id: target,
        label,
        answered: false,
        applicable: text !== null,
        score: null,
        passed: false,
        latency_ms: 0,
        graders: [],
      });
      continue;
    }
    const kind: 'message' | 'prompt' = target === 'prompt' ? 'prompt' : 'message';
    const checkIds = graders.flatMap((g) => (g.kind === 'rule' ? g.checks : []));
    const dimensionIds = [...new Set(graders.flatMap((g) => (g.kind === 'improvement_loop' ? g.dimensions : [])))];
    const before = await gradeSide(
      model,
      kind,
      text,
      checkIds,
      dimensionIds,
      { ...ctxBase, quotes: evidence.quotes },
      signal,
    );

    const advisory = mode === 'advisory';
    let after: SideGrade | null = null;
    let rewrite: { text: string; what_changed: string[] } | null = null;
    let suggestions: GraderResult['suggestions'];
    if (graders.some((g) => g.kind === 'improvement_loop')) {
      if (advisory) {
        const out = await model.run(
          suggestTask,
          {
            text,
            failed: before.checks
              .filter((c) => c.applicable && !c.passed)
              .map((c) => ({ check_id: c.check_id, note: c.note })),
            customer_phrases: phrases,
          },
          { signal },
        );
        // Anchors must be verbatim spans of the text: a model's paraphrased anchor becomes an addition.
        suggestions = out.suggestions.map((s) => (s.anchor && text.includes(s.anchor) ? s : { ...s, anchor: null }));
      }
      // Advisory mode returns no prompt after-side; a message is still rewritten to show the lift.
      if (!(advisory && kind === 'prompt')) {
        const ctx = { ...ctxBase, quotes: evidence.quotes };
        const { rounds, best } = await improve<SideGrade>({
          submitted: { text, grade: before },
          maxRounds: 1,
          keep: 'at_least_as_good',
          signal,
          rewrite: (kept) =>
            model.run(
              rewriteTask,
              {
                target: kind,
                text: kept.text,
                failed: kept.grade?.failed ?? [],
                artifact_type: artifactType,
                audience: ctxBase.audience,
                account: ctxBase.account,
                customer_phrases: phrases,
              },
              { signal },
            ),
          grade: (candidate) => gradeSide(model, kind, candidate, checkIds, dimensionIds, ctx, signal),
        });
        const proposed = rounds[1];
        // The loop keeps the better side: a rewrite that grades lower is reported and not offered.
        if (best.round === 0 && proposed?.grade?.score != null && before.score !== null) {
          rewrite = {
            text,
            what_changed: [
              `Kept the submitted text: the rewrite graded lower (${proposed.grade.score.toFixed(2)} against ${before.score.toFixed(2)}).`,
            ],
          };
          after = before;
        } else {
          rewrite = { text: best.text, what_changed: best.what_changed };
          after = best.grade;
        }
      }
    }

    const results: GraderResult[] = graders.map((g) =>
      graderResult(g, kind, text, before, after, rewrite, suggestions, evidence),
    );
    const score = before.score;
    cases.push({
      case_id: target,
      label,
      answered: true,
      applicable: true,
      score: score === null ? null : round(score),
      passed: score !== null && score >= PASS_THRESHOLD && results.every((r) => r.passed),
      latency_ms: Math.round(performance.now() - started),
      graders: results,
    });
  }
  return assemble(def, mode, artifactType, cases, evidence);
}

function side(
  label: 'before' | 'after',
  kind: 'message' | 'prompt',
  text: string,
  grade: SideGrade,
  note: string | null,
): Side {
  const { passed, total } = checksScore(grade.checks);
  const failing = grade.checks.filter((c) => c.applicable && !c.passed).map((c) => c.label.toLowerCase());
  return {
    label,
    prompt: kind === 'prompt' ? text : null,
    prompt_note: kind === 'prompt' ? note : null,
    message: kind === 'message' ? text : null,
    message_note: kind === 'message' ? note : null,
    score: grade.score === null ? null : round(grade.score),
    score_15: to15(grade.score),
    checks_passed: passed,
    checks_total: total,
    dimensions: grade.dimensions,
    quotes: grade.quotes,
    reasoning:
      total === 0
        ? 'No rubric line applies.'
        : failing.length === 0
          ? `Passes all ${total} rubric lines that apply.`
          : `Passes ${passed} of ${total} rubric lines; misses: ${failing.join('; ')}.`,
  };
}

function graderResult(
  g: GraderSpec,
  kind: 'message' | 'prompt',
  text: string,
  before: SideGrade,
  after: SideGrade | null,
  rewrite: { text: string; what_changed: string[] } | null,
  suggestions: GraderResult['suggestions'],
  evidence: Evidence,
): GraderResult {
  const lift = before.score !== null && after?.score != null ? round(after.score - before.score) : null;
  const evidenceBlock = {
    before_score: before.score === null ? null : round(before.score),
    after_score: after?.score == null ? null : round(after.score),
    lift,
    message_simulated: false,
    retrieved_quotes: evidence.quotes.length,
    retrieval_status: evidence.retrieval_status,
  };
  if (g.kind === 'rule') {
    const own = before.checks.filter((c) => g.checks.includes(c.check_id));
    const { passed, total, score } = checksScore(own);
    return {
      grader_id: g.id,
      kind: 'rule',
      score: score === null ? null : round(score),
      passed: score === null || score >= g.pass_threshold,
      rationale: total === 0 ? 'No rubric line applies to this artifact.' : `${passed} of ${total} rubric lines pass.`,
      checks: own,
      dimensions: [],
      quotes: [],
      rewrite: null,
      evidence: evidenceBlock,
    };
  }
  const own = before.dimensions.filter((d) => g.dimensions.includes(d.name));
  const score = mean(own.map((d) => (d.score - 1) / 4));
  const weakest = [...own].sort((a, b) => a.score - b.score)[0];
  return {
    grader_id: g.id,
    kind: 'improvement_loop',
    score: score === null ? null : round(score),
    passed: score !== null && score >= g.pass_threshold,
    rationale: weakest
      ? `Mean ${(1 + 4 * (score ?? 0)).toFixed(1)}/5; weakest: ${weakest.name} (${weakest.score}/5): ${weakest.reasoning}`
      : 'No dimension graded.',
    improvement: {
      before: side('before', kind, text, before, null),
      after: after && rewrite ? side('after', kind, rewrite.text, after, rewrite.what_changed.join(' ')) : null,
      lift,
      what_changed: rewrite?.what_changed ?? [],
    },
    dimensions: own,
    quotes: before.quotes,
    rewrite: rewrite?.text ?? null,
    ...(suggestions ? { suggestions } : {}),
    evidence: evidenceBlock,
  };
}

function assemble(
  def: EvalDefinition,
  mode: EvalMode,
  artifactType: ArtifactType | null,
  cases: CaseResult[],
  evidence: Evidence,
): Verdict {
  const answered = cases.filter((c) => c.applicable && c.answered && c.score !== null);
  const overall = mean(answered.map((c) => c.score as number));
  const allChecks = answered.flatMap((c) => c.graders.flatMap((g) => g.checks ?? []));
  const { passed: checksPassed, total: checksTotal } = checksScore(allChecks);
  const contradicted = answered
    .flatMap((c) => c.graders.flatMap((g) => g.quotes))
    .filter((q) => q.stance === 'contradicts');
  const verdict: Verdict['verdict'] = evidence.abstain_reason
    ? 'abstain'
    : overall !== null && overall >= PASS_THRESHOLD && answered.every((c) => c.passed)
      ? 'pass'
      : 'needs_work';
  const failing = allChecks.filter((c) => c.applicable && !c.passed);
  const summary = {
    total_cases: cases.length,
    passed_cases: cases.filter((c) => c.applicable && c.answered && c.passed).length,
    failed_cases: cases.filter((c) => c.applicable && c.answered && !c.passed).length,
    not_applicable_cases: cases.filter((c) => !c.applicable || !c.answered).length,
  };
  const reasoning = evidence.abstain_reason
    ? `Not graded: ${evidence.abstain_reason}`
    : overall === null
      ? 'Nothing to grade.'
      : `${answered.length} case${answered.length === 1 ? '' : 's'} graded against ${evidence.quotes.length} customer quote${evidence.quotes.length === 1 ? '' : 's'}; mean score ${overall.toFixed(2)} (pass at ${PASS_THRESHOLD}).` +
        (failing.length ? ` Misses: ${[...new Set(failing.map((f) => f.label.toLowerCase()))].join('; ')}.` : '') +
        (contradicted.length ? ` ${new Set(contradicted.map((q) => q.text)).size} quote(s) cut against it.` : '');
  const gateMeasured = !evidence.abstain_reason && overall !== null;
  return {
    eval_slug: def.slug,
    eval_version: def.version,
    mode,
    overall_score: overall === null ? null : round(overall),
    overall_reasoning: reasoning,
    verdict,
    cases,
    summary,
    gate: {
      passed: verdict === 'pass' && contradicted.length === 0,
      score: overall === null ? null : round(overall),
      threshold: PASS_THRESHOLD,
      reasoning: gateMeasured ? reasoning : null,
      critique: gateMeasured
        ? [...new Set([...failing.map((f) => f.note), ...contradicted.map((q) => `A customer said: "${q.text}"`)])]
        : null,
      denominator: artifactType ? 'applicable_only' : 'all_dimensions',
      checks_total: checksTotal,
      checks_passed: checksPassed,
    },
    evidence: {
      retrieved_quotes: evidence.quotes.length,
      retrieval_status: evidence.retrieval_status,
      floor: evidence.floor,
      off_topic: evidence.off_topic ?? null,
      abstain_reason: evidence.abstain_reason,
      notes: evidence.notes,
      slice: evidence.slice,
      account_found: evidence.account_found,
    },
  };
}
