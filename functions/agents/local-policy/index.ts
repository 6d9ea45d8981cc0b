import type { StepRequest, StepResult, StepTask } from '../../../platform/model/port.js';
import { COMPETITOR_VOCABULARY_QUERY, VOCABULARY_QUERIES, vocabularyOf } from '../understanding/vocabulary.js';
import { toolNameFor } from '../tool-names.js';
import { readContext, rowsOf } from './context.js';
import { readIntent } from './intent.js';
import { answersAsAsked, focusedStep } from './agent-focus.js';
import { nextStep } from './plans.js';
import { call, calls } from './steps.js';
import { withMemoryQuotes } from './memory-quotes.js';
import { KNOWLEDGE_PURPOSE, KNOWLEDGE_TOOL, knowledgeSearchArgs, withDocumentQuotes } from './document-quotes.js';
import { leavesWordsUnplaced, namesNotHeld, readParts, readQuestion } from '../understanding/reader.js';
import { unknownNameStep } from './shape-unknown-name.js';
import { loadTokenizer } from '../understanding/tokens.js';
import { partsStep, recordsStep } from './shape-records.js';
import { analysisStep, isOperationAnalysis } from './shape-analysis.js';
import { withDocument } from './coverage.js';
import { withInterpretation } from './interpretation-carry.js';

/**
 * The embedded default's agent model (agents.md, "The model step", local provider): a deterministic
 * policy that does honest retrieval with the same tools a hosted model gets — learn the workspace's
 * vocabulary (accounts, deals, owners) with two searches, read the ask against it, run the searches
 * that fit it, compose the answer only from what they returned — and asks a clarifying question
 * only when the data itself is ambiguous (a company name matching several accounts).
 * Stateless: the next step is a pure function of the transcript.
 */
export function localAgentStep(request: StepRequest): StepResult {
  const ctx = readContext(request);
  // When the budget is spent only final_answer is offered: that is not a missing search tool.
  if (!ctx.tools.has('search_query') && !ctx.mustFinish) return nextStep(ctx, { kind: 'no_search' });
  const dealRows = ctx.results.get('vocab_deals');
  if (!dealRows && !ctx.mustFinish)
    return calls(
      call(ctx, 'vocab_deals', VOCABULARY_QUERIES.deals),
      call(ctx, 'vocab_accounts', VOCABULARY_QUERIES.accounts),
      // The workspace's documents, searched in the same turn (no extra stage): quoted at the end.
      ...(ctx.tools.has(KNOWLEDGE_TOOL)
        ? [call(ctx, KNOWLEDGE_PURPOSE, knowledgeSearchArgs(ctx), KNOWLEDGE_TOOL)]
        : []),
      // A word the lexicon does not explain may be a rival the conversations name ("how many convos
      // mention pipewell"): the rivals are learned in this same turn, so that no question pays a turn more.
      ...(ctx.tools.has(COMPETITORS_TOOL) && leavesWordsUnplaced(ctx.ask, ctx.today, NO_NAMES)
        ? [call(ctx, COMPETITOR_VOCABULARY, COMPETITOR_VOCABULARY_QUERY, COMPETITORS_TOOL)]
        : []),
    );
  const rivals = ctx.results.get(COMPETITOR_VOCABULARY);
  const vocab = vocabularyOf(
    rowsOf(dealRows),
    rowsOf(ctx.results.get('vocab_accounts')),
    rivals ? competitorRowsOf(rivals) : [],
  );
  // The reader composes an interpretation for questions about records (deals, conversations); the
  // answer carries it. Other kinds of question go to the intent readers below.
  const readCtx = { ask: ctx.ask, earlierAsks: ctx.earlierAsks, today: ctx.today };
  const reading = answersAsAsked(ctx) ? readQuestion(readCtx, vocab) : null;
  if (reading?.parts.length)
    return withDocument(
      ctx,
      withInterpretation(partsStep(ctx, readParts({ ...readCtx, ask: '' }, reading.parts, vocab)), reading),
    );
  if (reading && isOperationAnalysis(reading))
    return withDocument(ctx, withInterpretation(analysisStep(ctx, reading), reading));
  if (reading) return withDocument(ctx, withInterpretation(recordsStep(ctx, reading), reading));
  const intent = readIntent({ ask: ctx.ask, earlierAsks: ctx.earlierAsks, today: ctx.today }, vocab);
  // A name the workspace does not hold is looked for before a reading answers with others' facts; a
  // missing field and a brief on no such account already say what is missing.
  if (intent.kind !== 'not_understood' && intent.kind !== 'account_brief') {
    const unknown = unknownNameStep(ctx, namesNotHeld(ctx.ask, ctx.today, vocab));
    if (unknown) return withDocument(ctx, unknown);
  }
  // The agent's focus and the depth tier decide how far the plan goes (agent-focus.ts); documents and memory are quoted last.
  return withMemoryQuotes(ctx, withDocumentQuotes(ctx, focusedStep(ctx, intent)));
}

const COMPETITOR_VOCABULARY = 'vocab_competitors';
/** No workspace names: what the lexicon and the calendar alone leave unexplained. */
const NO_NAMES = vocabularyOf([], []);
const COMPETITORS_TOOL = toolNameFor('analyses.competitors');

/** The competitors analysis's table rows (one per rival named), or none when it failed. */
function competitorRowsOf(result: Parameters<typeof rowsOf>[0]): Record<string, unknown>[] {
  if (!result?.ok) return [];
  const blocks = (result.output as { blocks?: { kind?: string; data?: unknown }[] } | null)?.blocks ?? [];
  const table = blocks.find((b) => b.kind === 'table' && Array.isArray(b.data));
  return (table?.data as Record<string, unknown>[] | undefined) ?? [];
}

/** The NLP library the reader needs is loaded before the first step (once per process). */
export const agentStepTask: StepTask = {
  name: 'agent.step',
  local: async (request) => {
    await loadTokenizer();
    return localAgentStep(request);
  },
};
