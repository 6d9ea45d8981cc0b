import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import type { Interpretation } from '../understanding/interpretation.js';
import { toolNameFor } from '../tool-names.js';
import type { PolicyContext } from './context.js';
import type { Intent } from './intent.js';
import { call, calls, finish } from './steps.js';

/**
 * Why deals were lost, answered by the `analyses.losses` operation called as a tool (a hosted model
 * calls the same one): the lost deals, the risks their qualification recorded and what the buyers on
 * the largest of them said. This step only builds its input and writes out what it returned.
 */

type LossesIntent = Extract<Intent, { kind: 'losses' }>;
const OPERATION = 'analyses.losses';
const PURPOSE = 'losses';

/** The losses analysis as the reader composed it: its period (on the close date) and its other deal filters. */
export function lossesIntentOf(r: Interpretation): LossesIntent {
  const state = new Set(['is_closed', 'is_won']);
  return {
    kind: 'losses',
    period: r.period && r.period.field === 'close_date' ? r.period : null,
    accounts: [],
    deals: [],
    filters: r.filters.filter((f) => !state.has(f.field)).map(({ field, op, value }) => ({ field, op, value })),
  };
}

const inputOf = (intent: LossesIntent): Record<string, unknown> => ({
  ...(intent.period ? { period: { from: intent.period.from, to: intent.period.to } } : {}),
  ...(intent.deals.length > 0 ? { deals: [...new Set(intent.deals)] } : {}),
  ...(intent.deals.length === 0 && intent.accounts.length > 0 ? { accounts: [...new Set(intent.accounts)] } : {}),
  ...(intent.filters?.length ? { filters: intent.filters } : {}),
});

export function lossesStep(ctx: PolicyContext, intent: LossesIntent): StepResult {
  const tool = toolNameFor(OPERATION);
  const result = ctx.results.get(PURPOSE);
  if (!result && ctx.tools.has(tool) && !ctx.mustFinish) return calls(call(ctx, PURPOSE, inputOf(intent), tool));
  if (!result?.ok)
    return finish({
      text: result
        ? `I could not run the losses analysis (${result.error.code}): ${result.error.message}`
        : 'This agent cannot run the losses analysis, so I cannot answer that here.',
      content_blocks: [],
      follow_ups: [],
    });
  const out = result.output as { summary: string[]; blocks: BlockDraft[]; empty_reason: string | null };
  if (out.empty_reason)
    return finish({
      text: out.empty_reason,
      content_blocks: out.blocks,
      follow_ups: ['Which deals did we lose this year?'],
    });
  return finish({
    text: out.summary.join('\n'),
    content_blocks: out.blocks,
    follow_ups: ['Which competitors come up most often?', 'Which open deals have a champion at risk?'],
  });
}
