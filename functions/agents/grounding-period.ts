import { and, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { interactions } from '../../schema/index.js';
import type { AnswerDraft } from './answer.js';
import { asksForQuiet, parseAskedPeriod, periodWords } from './understanding/period.js';

/**
 * The verifier's period rule (issue 22, item 5), for every model: a period the question names
 * ("last quarter", "recently" = the last 90 days) bounds every quote, or the answer says it did
 * not apply it. A quote whose interaction happened outside the period is taken out of the answer,
 * and a note says so, unless the answer already says the period does not bound its quotes. The
 * quote's date is read from the interaction itself, not from what the answer claims.
 * "Gone quiet" and "no touch in N days" name an absence, not a window of events: nothing to bound.
 */

export interface AskedQuestion {
  text: string;
  /** When it was asked (ISO): "last quarter" is relative to it. */
  asked_at: string;
}

/** Prose that says the period does not bound the quotes (the answer chose to show them anyway). */
export const PERIOD_NOT_APPLIED =
  /not (limited|restricted) to|did(?: not|n't) apply|could(?: not|n't) apply|not applied|outside (that|the) (window|period)|whatever (the|their) date/i;

export async function keepToAskedPeriod(
  draft: AnswerDraft,
  ctx: { db: Queryable; workspaceId: string; question?: AskedQuestion },
): Promise<AnswerDraft> {
  if (!ctx.question) return draft;
  const period = parseAskedPeriod(ctx.question.text, ctx.question.asked_at.slice(0, 10));
  if (!period || asksForQuiet(ctx.question.text) || PERIOD_NOT_APPLIED.test(draft.text)) return draft;
  const ids = [...new Set(draft.content_blocks.flatMap((b) => (b.kind === 'quote' ? [b.source.interaction_id] : [])))];
  if (ids.length === 0) return draft;
  const rows = await ctx.db
    .select({ id: interactions.id, occurredAt: interactions.occurredAt })
    .from(interactions)
    .where(and(eq(interactions.workspaceId, ctx.workspaceId), inArray(interactions.id, ids)));
  const day = new Map(rows.map((r) => [r.id, new Date(r.occurredAt).toISOString().slice(0, 10)]));
  const inside = (id: string) => {
    const d = day.get(id);
    // An interaction that is not in this workspace is left for the verbatim check to reject.
    return d === undefined || (d >= period.from && d < period.to);
  };
  const kept = draft.content_blocks.filter((b) => b.kind !== 'quote' || inside(b.source.interaction_id));
  if (kept.length === draft.content_blocks.length) return draft;
  return {
    ...draft,
    content_blocks: [
      ...kept,
      {
        kind: 'callout',
        tone: 'info',
        markdown: `Quotes from outside ${periodWords(period)} were left out: the question asked about ${periodWords(period)}, so only what was said then is quoted.`,
      },
    ],
  };
}
