import { and, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { themes, utterances } from '../../schema/index.js';
import { canonicalJson } from '../../platform/canonical-json.js';
import type { InvocationResult } from '../invoke.js';
import type { AnswerDraft, BlockDraft, GroundingCheck, GroundingReport } from './answer.js';
import { judgeQuotes, relevanceNotes, topicTextOf, withoutQuotedLines } from './relevance.js';
import { periodCountProblem } from './grounding-counts.js';
import { askedPeriodOf, keepToAskedPeriod, periodDates, type AskedQuestion } from './grounding-period.js';
import { readDocumentNodes } from '../knowledge/index.js';
import { readMemoryRows } from '../memory/index.js';
import {
  accountNamesIn,
  linesToRelabel,
  NO_ACCOUNT,
  type QuoteLabels,
  readAttributions,
  relabelProse,
  relabelQuote,
} from './grounding-attribution.js';
import { checkAbsences, type RunSearch } from './grounding-absence.js';
import { checkProseQuotes } from './grounding-prose-quotes.js';
import { namedLineLabels } from './grounding-quotations.js';
import { peopleAmong } from './grounding-people.js';
import { tidyAnswer } from './grounding-finished.js';
import { checkParts } from './grounding-parts.js';
import { parseAskedPeriod } from '../search/index.js';
import type { ReadMemo } from '../read-memo.js';

/**
 * The grounding verifier (agents.md, "Grounding is checked, not hoped for"): the one check every
 * agent answer passes before it is committed (routine documents will pass it too, plus their own
 * gate rules). Nothing the service writes for a user may claim more than the data holds:
 *
 * - a quote's text must appear verbatim (whitespace runs aside) in the cited transcript turn — of
 *   the cited interaction, in this workspace — or, for an email, in its body; a document quote's in
 *   the cited knowledge node of that document (titled as cited), in this workspace; a memory quote's in
 *   the remembered text it names, of this workspace;
 * - a table's rows must each be a row of its query's result (on the table's columns), and a
 *   metric's value the cell at `column` of its query's first row: each query is re-run, as the
 *   run's caller, and compared;
 * - a theme finding must name a theme of this workspace with that label and member count;
 * - an utterance citation must name an utterance of this workspace;
 * - every number written in the prose must be backed by a cell of a verified table or metric, by
 *   a value in one of their queries (a filter's "over 50000"), or sit inside a verified quote;
 * - given the question, every verbatim quote must be about its topic (relevance.ts): one that is
 *   not is left out (with the prose lines quoting it) and counted in `grounding.quotes.off_topic`;
 * - given a question that names a period, a quote must be of that period (grounding-period.ts) and
 *   a count or sum must come from a query bounded in time (grounding-counts.ts);
 * - a verified quote carries the warehouse's attribution (grounding-attribution.ts): its
 *   interaction's account, deal and date and its turn's speaker and side replace what the draft
 *   claimed, the prose lines quoting it name the same account, and each correction is counted in
 *   `grounding.quotes.relabeled`;
 * - a sentence saying something is absent is backed by what found nothing (grounding-absence.ts);
 * - a quotation in the prose is the text of a kept quote block (grounding-prose-quotes.ts), in any
 *   marks or form (grounding-quotations.ts: ‘…’, «…», a blockquote, "- Dana Reyes: we need…");
 * - every part of a question the answer's interpretation read as several is answered by a section of
 *   its own or declined by name (grounding-parts.ts); a part left over is named in a warning;
 * - nothing unfinished is left: no placeholder, no empty section, no line about quotes or a table
 *   the answer does not hold, no total below its own part (grounding-finished.ts).
 *
 * A block that fails is removed (and a warning callout says how many were); a number that fails
 * is reported in `grounding.numbers.unverified`. `grounding.checks[]` names each check with its
 * result and what it removed, and `grounding.verified` is true only when every one passed: an
 * off-topic quote, a corrected label or a quote outside the asked period does not fail its check (the
 * answer is true, only narrower, and says what it left out).
 */

export interface GroundingContext {
  db: Queryable;
  workspaceId: string;
  /** Re-run a search.query request as the run's caller. */
  rerun(query: Record<string, unknown>): Promise<InvocationResult>;
  /** The reads of the request or stage verifying, shared with the operations `rerun` calls (read-memo.ts). */
  memo?: ReadMemo;
  /**
   * Numbers the prose may also rest on: the cells (and request values) of queries run earlier in the
   * same run. A document's digits may come from any of them, not only from its own blocks.
   */
  backing?: readonly number[];
  /**
   * What was asked, when something was: quotes are then judged against its topic (relevance.ts),
   * and a period it names bounds them (grounding-period.ts).
   */
  question?: AskedQuestion;
  /**
   * The searches the run made, with how many results each returned (read from its transcript): a
   * sentence saying something is absent may rest on one that found nothing (grounding-absence.ts).
   * Unknown outside a run.
   */
  searches?: readonly RunSearch[];
}

export interface VerifiedAnswer {
  text: string;
  content_blocks: BlockDraft[];
  follow_ups: string[];
  grounding: GroundingReport;
}

type Tally = { checked: number; verified: number; removed: number };
const tally = (): Tally => ({ checked: 0, verified: 0, removed: 0 });

/** Whitespace runs count as one space; nothing else is forgiven (no case folding, no punctuation). */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

export async function verifyAnswer(input: AnswerDraft, ctx: GroundingContext): Promise<VerifiedAnswer> {
  const draft = await keepToAskedPeriod(input, ctx);
  const quoteCount = (a: AnswerDraft) => a.content_blocks.filter((b) => b.kind === 'quote').length;
  const outOfPeriod = quoteCount(input) - quoteCount(draft);
  /** Table and metric blocks removed because their figures are for all time in an answer about a period. */
  let unboundedCounts = 0;
  const report = {
    quotes: { ...tally(), off_topic: 0, relabeled: 0 },
    tables: tally(),
    metrics: tally(),
    themes: tally(),
    problems: [] as string[],
  };
  const verdicts = new Map<number, boolean>();
  /** Verified quotes whose labels the warehouse corrected, by block index. */
  const relabeled = new Map<number, Extract<BlockDraft, { kind: 'quote' }>>();
  const wrongLabels = new Set<number>();
  const [attributions, themeRows, utteranceIds, results, documentNodes, memoryTexts] = await Promise.all([
    readAttributions(ctx.db, ctx.workspaceId, draft.content_blocks),
    readThemes(ctx, draft.content_blocks),
    readUtterances(ctx, draft.content_blocks),
    rerunQueries(ctx, draft.content_blocks),
    readDocumentNodes(
      ctx.db,
      ctx.workspaceId,
      draft.content_blocks.flatMap((b) =>
        b.kind === 'document_quote'
          ? [{ documentGroupId: b.source.document_group_id, nodeKey: b.source.node_key }]
          : [],
      ),
    ),
    readMemoryRows(
      ctx.db,
      ctx.workspaceId,
      draft.content_blocks.flatMap((b) => (b.kind === 'memory_quote' ? [b.source.memory_id] : [])),
    ),
  ]);
  const turnTexts = attributions.turns;
  const citations = tally();
  const emailBodies = new Map(
    [...attributions.emailBodies].map(([id, body]) => [id, { text: body, interactionId: id }] as const),
  );

  draft.content_blocks.forEach((block, i) => {
    const label = `block ${i + 1} (${block.kind})`;
    const fail = (t: Tally, why: string) => {
      t.removed++;
      report.problems.push(`${label}: ${why}`);
      verdicts.set(i, false);
    };
    const pass = (t: Tally) => {
      t.verified++;
      verdicts.set(i, true);
    };
    switch (block.kind) {
      case 'quote': {
        report.quotes.checked++;
        const source = block.source.turn_id
          ? turnTexts.get(block.source.turn_id)
          : emailBodies.get(block.source.interaction_id);
        if (!source)
          return fail(
            report.quotes,
            `${block.source.turn_id ? `turn ${block.source.turn_id}` : `email ${block.source.interaction_id}`} is not in this workspace`,
          );
        if (source.interactionId !== block.source.interaction_id)
          return fail(report.quotes, `turn ${block.source.turn_id} belongs to another interaction`);
        if (!squash(source.text).includes(squash(block.text)))
          return fail(
            report.quotes,
            `the quote is not verbatim in ${block.source.turn_id ? `turn ${block.source.turn_id}` : 'the email'}`,
          );
        const labelled = relabelQuote(block, attributions);
        relabeled.set(i, labelled.block);
        if (labelled.changed) wrongLabels.add(i);
        return pass(report.quotes);
      }
      case 'document_quote': {
        report.quotes.checked++;
        const node = documentNodes.get(`${block.source.document_group_id}/${block.source.node_key}`);
        if (!node)
          return fail(
            report.quotes,
            `node ${block.source.node_key} of document ${block.source.document_group_id} is not in this workspace`,
          );
        if (node.title !== block.source.document_title)
          return fail(report.quotes, `document ${block.source.document_group_id} is titled “${node.title}”`);
        if (!squash(node.text).includes(squash(block.text)))
          return fail(report.quotes, `the quote is not verbatim in node ${block.source.node_key}`);
        return pass(report.quotes);
      }
      case 'memory_quote': {
        report.quotes.checked++;
        const remembered = memoryTexts.get(block.source.memory_id)?.text;
        if (remembered === undefined)
          return fail(report.quotes, `memory ${block.source.memory_id} is not in this workspace`);
        if (!squash(remembered).includes(squash(block.text)))
          return fail(report.quotes, `the quote is not verbatim in memory ${block.source.memory_id}`);
        return pass(report.quotes);
      }
      case 'table': {
        report.tables.checked++;
        const unbounded = periodCountProblem(block, ctx.question);
        if (unbounded) {
          unboundedCounts++;
          return fail(report.tables, unbounded);
        }
        const rows = results.get(canonicalJson(block.query));
        if (!rows) return fail(report.tables, 'its query could not be re-run');
        const missing = block.data.findIndex(
          (row) => !rows.some((r) => block.columns.every((c) => sameCell(row[c.key], r[c.key]))),
        );
        if (missing >= 0) return fail(report.tables, `row ${missing + 1} is not in its query's result`);
        return pass(report.tables);
      }
      case 'metric': {
        report.metrics.checked++;
        const unbounded = periodCountProblem(block, ctx.question);
        if (unbounded) {
          unboundedCounts++;
          return fail(report.metrics, unbounded);
        }
        const rows = results.get(canonicalJson(block.query));
        if (!rows) return fail(report.metrics, 'its query could not be re-run');
        if (!sameCell(block.value, rows[0]?.[block.column]))
          return fail(
            report.metrics,
            `${block.column} is ${JSON.stringify(rows[0]?.[block.column] ?? null)}, not ${JSON.stringify(block.value)}`,
          );
        return pass(report.metrics);
      }
      case 'theme_finding': {
        report.themes.checked++;
        const theme = themeRows.get(block.theme_id);
        if (!theme) return fail(report.themes, `theme ${block.theme_id} is not in this workspace`);
        if (theme.label !== block.label || theme.memberCount !== block.member_count)
          return fail(report.themes, `theme ${block.theme_id} is "${theme.label}" with ${theme.memberCount} members`);
        return pass(report.themes);
      }
      case 'citation':
        if (block.cite === 'utterance' && !utteranceIds.has(block.ref))
          return fail(citations, `utterance ${block.ref} is not in this workspace`);
        verdicts.set(i, true);
        return;
      default:
        verdicts.set(i, true);
    }
  });

  const judged = ctx.question
    ? await judgeQuotes(
        ctx.db,
        ctx.workspaceId,
        topicTextOf(ctx.question),
        draft.content_blocks,
        (i) => verdicts.get(i) === true,
        ctx.memo,
      )
    : null;
  for (const [i, score] of judged?.offTopic ?? []) {
    verdicts.set(i, false);
    report.quotes.verified--;
    report.quotes.off_topic++;
    report.problems.push(
      `block ${i + 1} (quote): about something other than “${judged?.topic.label}” (${score.toFixed(2)})`,
    );
  }
  const offTopicTexts = draft.content_blocks.flatMap((b, i) =>
    b.kind === 'quote' && judged?.offTopic.has(i) ? [b.text] : [],
  );
  // Counted among the quotes kept: one left out as off the topic is not in the answer to be corrected.
  report.quotes.relabeled = [...wrongLabels].filter((i) => verdicts.get(i)).length;
  // Lines quoting a kept quote are corrected where its label was wrong, and name its account where they do not.
  const relabelProseOf = await proseRelabeler(ctx, draft, relabeled, wrongLabels, verdicts);
  // Lines quoting a quote left out by design (off the topic, outside the asked period) go with it.
  const outOfPeriodTexts = input.content_blocks.flatMap((b) =>
    b.kind === 'quote' && !draft.content_blocks.includes(b) ? [b.text] : [],
  );
  const relabeledText = relabelProseOf(withoutQuotedLines(draft.text, [...offTopicTexts, ...outOfPeriodTexts]));
  const verifiedBlocks = draft.content_blocks.flatMap((b, i): BlockDraft[] => {
    if (!verdicts.get(i)) return [];
    if (b.kind === 'text') return [{ ...b, markdown: relabelProseOf(b.markdown) }];
    return [relabeled.get(i) ?? b];
  });
  const removed = draft.content_blocks.length - verifiedBlocks.length - report.quotes.off_topic;
  const people = await peopleAmong(
    ctx.db,
    ctx.workspaceId,
    namedLineLabels([
      relabeledText,
      ...verifiedBlocks.flatMap((b) => (b.kind === 'text' || b.kind === 'callout' ? [b.markdown] : [])),
    ]),
  );
  const prose = checkProse(relabeledText, verifiedBlocks, input, ctx, people);
  const { text, kept } = prose;
  const numbers = checkProseNumbers(
    text,
    kept,
    [...(ctx.backing ?? []), ...askedPeriodNumbers(ctx.question)],
    askedPeriodDates(ctx.question),
  );
  // Evidence beside the quotes: a metric or table whose query picks something out (a filter), not
  // the overall extent of the data ("What the interactions searched cover" filters nothing).
  const otherEvidence = kept.some(
    (b) => (b.kind === 'table' || b.kind === 'metric') && Array.isArray(b.query.filters) && b.query.filters.length > 0,
  );
  const notes = judged ? relevanceNotes(judged, otherEvidence) : { opening: null, callouts: [] };
  const parts = checkParts(input.interpretation?.parts ?? [], text, kept);
  const blocks: BlockDraft[] = [...kept, ...prose.citations, ...notes.callouts];
  if (parts.missing.length > 0) {
    // The reader is told what the answer leaves out, so the answer declines by name what its draft dropped.
    blocks.push({
      kind: 'callout',
      tone: 'warning',
      markdown: `This answer does not answer ${parts.missing.map((p) => `“${p}”`).join(' or ')}: ask ${parts.missing.length === 1 ? 'it' : 'each'} on its own.`,
    });
  }
  if (removed > 0) {
    // Built after the number check on purpose: this note's own counts describe the check, not the data.
    blocks.push({
      kind: 'callout',
      tone: 'warning',
      markdown: `${removed} block${removed === 1 ? '' : 's'} of this answer could not be verified against the data and ${removed === 1 ? 'was' : 'were'} removed.`,
    });
  }
  const recomputedRemoved =
    report.tables.removed + report.metrics.removed + report.themes.removed + citations.removed - unboundedCounts;
  const checks: GroundingCheck[] = [
    check('verbatim', report.quotes.removed, `${report.quotes.checked} quotes checked`),
    check(
      'recomputed',
      recomputedRemoved,
      numbers.unverified.length > 0
        ? `numbers in the prose no cell, query value or quote backs: ${numbers.unverified.join(', ')}`
        : `${report.tables.checked} tables, ${report.metrics.checked} metrics, ${report.themes.checked} themes and ${numbers.checked} prose numbers checked`,
      numbers.unverified.length === 0,
    ),
    passing(
      'attributed',
      0,
      `${report.quotes.relabeled} quote${report.quotes.relabeled === 1 ? '' : 's'} relabeled from the warehouse`,
    ),
    check(
      'period-bounded',
      unboundedCounts,
      ctx.question && parseAskedPeriod(ctx.question.text, ctx.question.asked_at.slice(0, 10))
        ? `${outOfPeriod} quote${outOfPeriod === 1 ? '' : 's'} from outside the asked period left out`
        : 'the question names no period',
      true,
      outOfPeriod,
    ),
    passing(
      'on-topic',
      report.quotes.off_topic,
      judged ? `quotes judged against “${judged.topic.label}”` : 'no question to judge quotes against',
    ),
    check('absence-backed', prose.absences.removed, `${prose.absences.held} absence claims held to their backing`),
    check('parts-answered', 0, partsDetail(parts), parts.missing.length === 0),
    check('prose-quotes', prose.quotes.removed, `${prose.quotes.checked} quotations in the prose checked`),
    check(
      'finished',
      0,
      prose.unfinished.length > 0
        ? prose.unfinished.join('; ')
        : prose.tidiedWhat.length > 0
          ? `left over by the removals above and taken out: ${prose.tidiedWhat.join('; ')}`
          : 'no placeholder or empty section',
      prose.unfinished.length === 0,
      prose.tidied,
    ),
  ];
  return {
    text: notes.opening ? `${notes.opening}\n\n${text}` : text,
    content_blocks: blocks,
    follow_ups: draft.follow_ups,
    grounding: {
      verified: checks.every((c) => c.passed),
      checks,
      quotes: report.quotes,
      tables: report.tables,
      metrics: report.metrics,
      themes: report.themes,
      numbers,
      problems: [
        ...report.problems,
        ...prose.problems,
        ...parts.missing.map((p) => `the part “${p}” is neither answered nor declined by name`),
      ],
    },
  };
}

/**
 * A check's entry: it fails when it removed something (or `ok` says it failed otherwise); what it
 * removed besides failing (`alsoRemoved`: taken out by design, such as a quote outside the period) is counted too.
 */
function check(
  name: GroundingCheck['name'],
  failures: number,
  detail: string,
  ok = true,
  alsoRemoved = 0,
): GroundingCheck {
  const removed = failures + alsoRemoved;
  return { name, passed: failures === 0 && ok, ...(removed > 0 ? { removed } : {}), detail };
}
/** A check whose removals are by design (an off-topic quote is left out; the answer stays true). */
const passing = (name: GroundingCheck['name'], removed: number, detail: string): GroundingCheck => ({
  name,
  passed: true,
  ...(removed > 0 ? { removed } : {}),
  detail,
});

function partsDetail(parts: ReturnType<typeof checkParts>): string {
  if (!parts.judged) return 'the answer reports no question of several parts';
  const named = (ps: readonly string[]) => ps.map((p) => `“${p}”`).join(', ');
  return [
    parts.missing.length > 0 ? `not answered or declined by name: ${named(parts.missing)}` : null,
    parts.answered.length > 0 ? `answered: ${named(parts.answered)}` : null,
    parts.declined.length > 0 ? `declined by name: ${named(parts.declined)}` : null,
    parts.unjudged.length > 0 ? `too few words of its own to judge: ${named(parts.unjudged)}` : null,
  ]
    .filter(Boolean)
    .join('; ');
}

/** The digits of the period the question names ("Q3 2025", "since 2024"): echoing the question is not a claim about the data. */
function askedPeriodNumbers(question: GroundingContext['question']): number[] {
  const period = question ? parseAskedPeriod(question.text, question.asked_at.slice(0, 10)) : null;
  if (!period) return [];
  const into = new Set<number>();
  numbersIn(period.phrase, into);
  return [...into];
}

/**
 * The dates of the period the answer was held to, as ISO dates ("2026-07-01", its last day
 * "2026-09-30" and its exclusive end): the period note names them, echoing the question's period, not
 * a figure of the data.
 */
function askedPeriodDates(question: GroundingContext['question']): string[] {
  let period: ReturnType<typeof askedPeriodOf> = null;
  try {
    period = question ? askedPeriodOf(question) : null;
  } catch {
    return [];
  }
  if (!period) return [];
  const { from, through } = periodDates(period);
  return [...new Set([from, through, period.to])];
}

/**
 * The prose checks, on what the block checks kept: quotations in the prose, absence claims, then the
 * renderer's pass for anything unfinished. The draft as written is held to the last one too: what the
 * verifier's own removals leave over nothing is tidied away, but a draft that arrived unfinished fails.
 */
function checkProse(
  text: string,
  blocks: readonly BlockDraft[],
  input: AnswerDraft,
  ctx: GroundingContext,
  /** The names opening list lines that are people's (grounding-people.ts). */
  people: ReadonlySet<string>,
) {
  const passages = (t: string, bs: readonly BlockDraft[]) => [
    t,
    ...bs.flatMap((b) => (b.kind === 'text' || b.kind === 'callout' ? [b.markdown] : [])),
  ];
  const onText = (bs: readonly BlockDraft[], f: (t: string) => string): BlockDraft[] =>
    bs.flatMap((b): BlockDraft[] => {
      if (b.kind !== 'text' && b.kind !== 'callout') return [b];
      const markdown = f(b.markdown).trim();
      return markdown ? [{ ...b, markdown }] : [];
    });
  const searchQueries = (ctx.searches ?? []).flatMap((s) =>
    typeof s.request.query === 'string' ? [s.request.query] : [],
  );
  const quotes = checkProseQuotes(
    passages(text, blocks),
    blocks,
    [...(ctx.question ? [ctx.question.text] : []), ...searchQueries],
    people,
  );
  const quotedText = quotes.rewrite(text);
  const quotedBlocks = onText(blocks, quotes.rewrite);
  // What a verified quote says is the speaker's claim, not the answer's ("features nobody asked for").
  const spoken = quotedBlocks.flatMap((b) =>
    b.kind === 'quote' || b.kind === 'document_quote' || b.kind === 'memory_quote' ? [b.text] : [],
  );
  // So is a kept quote's label the attribution check read from the warehouse ("No linked account").
  const labels = quotedBlocks.some((b) => b.kind === 'quote' && b.source.account === null) ? [NO_ACCOUNT] : [];
  const unquoted = (t: string) => [...spoken, ...labels].reduce((acc, q) => acc.split(q).join(' '), t);
  const absences = checkAbsences(passages(quotedText, quotedBlocks).map(unquoted), quotedBlocks, ctx.searches);
  const tidied = tidyAnswer(absences.rewrite(quotedText), onText(quotedBlocks, absences.rewrite));
  const asDrafted = tidyAnswer(input.text, input.content_blocks);
  return {
    text: tidied.text,
    kept: tidied.blocks,
    citations: absences.citations,
    quotes,
    absences,
    tidied: tidied.unfinished.length,
    tidiedWhat: tidied.unfinished,
    unfinished: asDrafted.unfinished,
    // What the renderer's pass tidied after the verifier's own removals is in the check's detail, not a problem.
    problems: [...quotes.problems, ...absences.problems, ...asDrafted.unfinished],
  };
}

/**
 * The prose correction for the kept quotes' labels: the lines quoting a kept quote name its
 * warehouse account (and speaker, deal, date) instead of what the draft wrote, and a line that names
 * no account beside a quote on one names it. Reads the workspace account names those lines mention,
 * once, and only when a line needs correcting.
 */
async function proseRelabeler(
  ctx: GroundingContext,
  draft: AnswerDraft,
  relabeled: ReadonlyMap<number, Extract<BlockDraft, { kind: 'quote' }>>,
  wrongLabels: ReadonlySet<number>,
  verdicts: ReadonlyMap<number, boolean>,
): Promise<(text: string) => string> {
  const quotes: QuoteLabels[] = [...relabeled].flatMap(([i, verified]) => {
    const drafted = draft.content_blocks[i];
    return drafted?.kind === 'quote' && verdicts.get(i) ? [{ drafted, verified, changed: wrongLabels.has(i) }] : [];
  });
  if (quotes.length === 0) return (text) => text;
  const prose = [draft.text, ...draft.content_blocks.flatMap((b) => (b.kind === 'text' ? [b.markdown] : []))];
  const quoting = prose.flatMap((p) => linesToRelabel(p, quotes));
  if (quoting.length === 0) return (text) => text;
  const names = await accountNamesIn(ctx.db, ctx.workspaceId, quoting.join('\n'));
  return (text) => relabelProse(text, quotes, names);
}

// ---- reads ---------------------------------------------------------------------------------

async function readThemes(ctx: GroundingContext, blocks: readonly BlockDraft[]) {
  const ids = [...new Set(blocks.flatMap((b) => (b.kind === 'theme_finding' ? [b.theme_id] : [])))];
  if (ids.length === 0) return new Map<string, { label: string; memberCount: number }>();
  const rows = await ctx.db
    .select({ id: themes.id, label: themes.label, memberCount: themes.memberCount })
    .from(themes)
    .where(and(eq(themes.workspaceId, ctx.workspaceId), inArray(themes.id, ids)));
  return new Map(rows.map((r) => [r.id, r]));
}

async function readUtterances(ctx: GroundingContext, blocks: readonly BlockDraft[]): Promise<Set<string>> {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const ids = [
    ...new Set(
      blocks.flatMap((b) => (b.kind === 'citation' && b.cite === 'utterance' && UUID.test(b.ref) ? [b.ref] : [])),
    ),
  ];
  if (ids.length === 0) return new Set();
  const rows = await ctx.db
    .select({ id: utterances.id })
    .from(utterances)
    .where(and(eq(utterances.workspaceId, ctx.workspaceId), inArray(utterances.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** Each distinct table or metric query re-run once; a failed re-run has no entry. */
async function rerunQueries(
  ctx: GroundingContext,
  blocks: readonly BlockDraft[],
): Promise<Map<string, Record<string, unknown>[]>> {
  const queries = new Map<string, Record<string, unknown>>();
  for (const b of blocks) if (b.kind === 'table' || b.kind === 'metric') queries.set(canonicalJson(b.query), b.query);
  const results = new Map<string, Record<string, unknown>[]>();
  for (const [key, query] of queries) {
    const result = await ctx.rerun(query);
    const rows = result.ok ? (result.output as { results?: unknown }).results : undefined;
    if (Array.isArray(rows)) results.set(key, rows as Record<string, unknown>[]);
  }
  return results;
}

// ---- cells and numbers -----------------------------------------------------------------------

/** Two cells are the same value: numbers by value (a numeric string matches its number), the rest exactly. */
export function sameCell(a: unknown, b: unknown): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (typeof a === 'number' || typeof b === 'number') {
    const x = typeof a === 'string' && a.trim() !== '' ? Number(a) : a;
    const y = typeof b === 'string' && b.trim() !== '' ? Number(b) : b;
    return typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && x === y;
  }
  if (typeof a === 'object' || typeof b === 'object') return canonicalJson(a) === canonicalJson(b);
  return a === b;
}

/**
 * A number as prose writes it: optional $, digits with thousands commas, decimals, a K/M/B scale
 * and %. Not preceded or followed by a letter or digit (so "Q3", "SOC2", "H1" and ids are words, not
 * numbers).
 */
const PROSE_NUMBER = /(?<![A-Za-z0-9_.])\$?\d[\d,]*(?:\.\d+)?(?:\s?(?:[KkMmBb])(?![A-Za-z]))?%?(?![A-Za-z0-9_])/g;

export function numericValue(token: string): number | null {
  const m = /^\$?([\d,]*\d(?:\.\d+)?)\s?([KkMmBb])?%?$/.exec(token.trim());
  if (!m) return null;
  const base = Number(m[1]!.replace(/,/g, ''));
  const scale = { k: 1e3, m: 1e6, b: 1e9 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  const value = base * scale;
  return Number.isFinite(value) ? Math.round(value * 1e6) / 1e6 : null;
}

/** Every number in a value: numbers themselves, and the digit runs inside strings (dates, ids of cells). */
export function numbersIn(value: unknown, into: Set<number>): void {
  if (typeof value === 'number' && Number.isFinite(value)) into.add(Math.round(value * 1e6) / 1e6);
  else if (typeof value === 'string') for (const m of value.matchAll(/\d+(?:\.\d+)?/g)) into.add(Number(m[0]));
  else if (Array.isArray(value)) for (const v of value) numbersIn(v, into);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) numbersIn(v, into);
}

/** Every number in the prose (text and text/callout blocks) must be backed by the kept evidence. */
function checkProseNumbers(
  text: string,
  kept: readonly BlockDraft[],
  extra: readonly number[],
  /** Words the check does not read, besides the verified quotes (the asked period's dates). */
  echoed: readonly string[] = [],
): { checked: number; unverified: string[] } {
  const backing = new Set<number>(extra);
  for (const b of kept) {
    if (b.kind === 'table') {
      for (const row of b.data) for (const c of b.columns) numbersIn(row[c.key], backing);
      numbersIn(b.query, backing);
    } else if (b.kind === 'metric') {
      numbersIn(b.value, backing);
      numbersIn(b.query, backing);
    } else if (b.kind === 'theme_finding') {
      backing.add(b.member_count);
    }
  }
  const quotes = kept.flatMap((b) =>
    b.kind === 'quote' || b.kind === 'document_quote' || b.kind === 'memory_quote' ? [b.text] : [],
  );
  const prose = [text, ...kept.flatMap((b) => (b.kind === 'text' || b.kind === 'callout' ? [b.markdown] : []))];
  let checked = 0;
  const unverified: string[] = [];
  for (const passage of prose) {
    for (const token of stripUnchecked(passage, [...quotes, ...echoed]).match(PROSE_NUMBER) ?? []) {
      const value = numericValue(token);
      if (value === null) continue;
      checked++;
      if (!backing.has(value)) unverified.push(token.trim());
    }
  }
  return { checked, unverified };
}

/** Blank out what the number check does not read: verified quotes, code, link targets, URLs, list markers. */
function stripUnchecked(passage: string, quotes: readonly string[]): string {
  let out = passage;
  for (const quote of [...quotes].sort((a, b) => b.length - a.length)) out = out.split(quote).join(' ');
  return out
    .replace(/`[^`]*`/g, ' ')
    .replace(/\]\([^)]*\)/g, '] ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/^(\s*)\d+\.\s/gm, '$1 ');
}
