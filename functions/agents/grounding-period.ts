import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../platform/db/port.js';
import { interactions } from '../../schema/index.js';
import type { AnswerDraft, BlockDraft } from './answer.js';
import { type AskedPeriod, asksForQuiet, parseAskedPeriod, periodBoundsCloseDates } from '../search/index.js';

/**
 * The verifier's period rule, for every model: a period the question names
 * ("last quarter", "recently" = the last 90 days) bounds every quote, or the answer says it did
 * not apply it. What the period bounds depends on what it qualifies (periodBoundsCloseDates):
 *
 * - a question about when things happened ("what did customers say about pricing last quarter"):
 *   the quote's interaction must have happened inside the period;
 * - a question about deals closing, won or lost in a period ("why did we lose deals last quarter",
 *   "which deals close this quarter"): the period bounds the deals' close dates, so a quote must be
 *   from one of those deals' buyers while that deal was open — its interaction linked to a deal (or
 *   on the account of a deal) whose close date is in the period, dated from the deal's creation to
 *   its close date. A quote from a year before that deal existed is not what its buyers said.
 *
 * A quote outside is taken out of the answer, and a note says so, unless the answer already says
 * the period does not bound its quotes. The dates are read from the interactions and deals, not
 * from what the answer claims. "Gone quiet" and "no touch in N days" name an absence, not a window
 * of events: nothing to bound.
 */

export interface AskedQuestion {
  text: string;
  /** When it was asked (ISO): "last quarter" is relative to it. */
  asked_at: string;
  /**
   * The period as the answering model read the question (its interpretation), when it reported one:
   * null when it read no period ("right now" is the present state, not today's events). Absent: the
   * verifier reads the text itself.
   */
  period?: AskedPeriod | null;
  /**
   * What the answering model read the question as being about (its interpretation), when it reported
   * a reading: the analysis it answered by and the topic it read (null: none). Quotes are judged
   * against that reading, not against every word the question held (relevance.ts).
   */
  reading?: { analysis: string; topic: string | null };
}

/** The period a question names: the model's reading when it gave one, else the verifier's own. */
export function askedPeriodOf(question: AskedQuestion): AskedPeriod | null {
  return question.period !== undefined
    ? question.period
    : parseAskedPeriod(question.text, question.asked_at.slice(0, 10));
}

const DAY_MS = 86_400_000;

/** The dates a period covers, its last day included (`to` is exclusive). */
export function periodDates(period: AskedPeriod): { from: string; through: string } {
  const through = new Date(Date.parse(`${period.to}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
  return { from: period.from, through: through < period.from ? period.from : through };
}

/**
 * The period in the asker's words, with the dates it was applied as: "last quarter (2026-07-01 –
 * 2026-09-30)". The words are the question's own: a model's reading may name the period otherwise
 * (an internal label, digits masked as "Q# ####"), so its phrase is used only where the question
 * holds it, else the phrase the verifier reads in the question; with neither, the dates alone.
 */
export function askedPeriodWords(question: AskedQuestion, period: AskedPeriod): string {
  const { from, through } = periodDates(period);
  const dates = from === through ? from : `${from} – ${through}`;
  const text = question.text;
  const lower = text.toLowerCase();
  const phrase = [period.phrase, readPhrase(question)]
    .map((p) => (p ?? '').trim())
    .filter((p) => p.length > 0 && lower.includes(p.toLowerCase()))
    .sort((a, b) => b.length - a.length)[0];
  if (!phrase) return `the period ${dates}`;
  const at = lower.indexOf(phrase.toLowerCase());
  return `${text.slice(at, at + phrase.length)} (${dates})`;
}

/** The period's words as the verifier reads the question (none where it reads no period, or an impossible date). */
function readPhrase(question: AskedQuestion): string | null {
  try {
    return parseAskedPeriod(question.text, question.asked_at.slice(0, 10))?.phrase ?? null;
  } catch {
    return null;
  }
}

/** Prose that says the period does not bound the quotes (the answer chose to show them anyway). */
export const PERIOD_NOT_APPLIED =
  /not (limited|restricted) to|did(?: not|n't) apply|could(?: not|n't) apply|not applied|outside (that|the) (window|period)|whatever (the|their) date/i;

type Ctx = { db: Queryable; workspaceId: string; question?: AskedQuestion };

export async function keepToAskedPeriod(draft: AnswerDraft, ctx: Ctx): Promise<AnswerDraft> {
  if (!ctx.question) return draft;
  const period = askedPeriodOf(ctx.question);
  if (!period || asksForQuiet(ctx.question.text) || PERIOD_NOT_APPLIED.test(draft.text)) return draft;
  const ids = [...new Set(draft.content_blocks.flatMap((b) => (b.kind === 'quote' ? [b.source.interaction_id] : [])))];
  if (ids.length === 0) return draft;
  const byCloseDate = periodBoundsCloseDates(ctx.question.text);
  const inside = byCloseDate ? await saidWhileDealsOpen(ctx, ids, period) : await happenedInside(ctx, ids, period);
  const kept = draft.content_blocks.filter((b) => b.kind !== 'quote' || inside(b.source.interaction_id));
  if (kept.length === draft.content_blocks.length) return draft;
  const when = askedPeriodWords(ctx.question, period);
  const note: BlockDraft = {
    kind: 'callout',
    tone: 'info',
    markdown: byCloseDate
      ? `Quotes not said while a deal closing ${when} was open were left out: the period bounds the deals' close dates, so only what their buyers said during those deals is quoted.`
      : `Quotes from outside ${when} were left out: only what was said in the period the question asked about is quoted.`,
  };
  return { ...draft, content_blocks: [...kept, note] };
}

/** Interactions of this workspace that happened inside the period (an unknown one is left for the verbatim check). */
async function happenedInside(ctx: Ctx, ids: string[], period: AskedPeriod): Promise<(id: string) => boolean> {
  const rows = await ctx.db
    .select({ id: interactions.id, occurredAt: interactions.occurredAt })
    .from(interactions)
    .where(and(eq(interactions.workspaceId, ctx.workspaceId), inArray(interactions.id, ids)));
  const day = new Map(rows.map((r) => [r.id, new Date(r.occurredAt).toISOString().slice(0, 10)]));
  return (id) => {
    const d = day.get(id);
    return d === undefined || (d >= period.from && d < period.to);
  };
}

/** Interactions said during a deal whose close date is in the period: linked to it, or on its account, between its creation and its close. */
async function saidWhileDealsOpen(ctx: Ctx, ids: string[], period: AskedPeriod): Promise<(id: string) => boolean> {
  const rows = await queryRows<{ id: string; during: boolean }>(
    ctx.db,
    sql`select i.id, exists (
          select 1 from deals d
          where d.workspace_id = i.workspace_id
            and d.close_date >= ${period.from}::date and d.close_date < ${period.to}::date
            and (d.id = i.deal_id or d.account_id = i.account_id)
            and i.occurred_at >= d.occurred_at and i.occurred_at::date <= d.close_date
        ) as during
        from interactions i
        where i.workspace_id = ${ctx.workspaceId} and i.id = any(${`{${ids.join(',')}}`}::uuid[])`,
  );
  const during = new Map(rows.map((r) => [r.id, r.during]));
  return (id) => during.get(id) ?? true;
}
