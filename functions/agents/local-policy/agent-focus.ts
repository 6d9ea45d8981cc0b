import type { StepResult } from '../../../platform/model/port.js';
import { findLibraryAgent, type LibraryAgent } from '../library.js';
import type { PolicyContext } from './context.js';
import type { Intent } from './intent.js';
import { nextStep } from './plans.js';
import { researchStep } from './research-plan.js';

/**
 * The library agent answering shapes what the local policy does with the same question, as its
 * instructions say it should (library.ts, `focus`), reading the same data and inventing nothing:
 *
 * - call-prep (`account`): a question about one account gets the call brief (where things stand,
 *   open deals, what they said), not only the narrow answer;
 * - deal-review (`deals`): a deal question gets the pipeline facets — by stage, by account, by
 *   quarter — and the qualification criteria still unknown or at risk;
 * - voice-of-customer (`voice`): a question about what customers say gets the wider evidence,
 *   grouped by theme, with the accounts and period it comes from;
 * - the researcher, and any workspace agent, answer as asked; at the deep tier (research jobs)
 *   every question gets the research report.
 *
 * A routine's run keeps the chat plan: it commits that answer as a document.
 */
export function focusedStep(ctx: PolicyContext, intent: Intent): StepResult {
  const focus = findLibraryAgent(ctx.agent)?.focus ?? null;
  const read = focusIntent(focus, intent);
  if (ctx.routine) return nextStep(ctx, read);
  return ctx.depth === 'deep' || goesDeeper(focus, read) ? researchStep(ctx, read) : nextStep(ctx, read);
}

/**
 * Whether the run answers a question as asked, with no focus of its agent to widen it and no research
 * report to write: only then is a question about records answered from its interpretation alone
 * (the widened plans and the research report still start from the intent readers).
 */
export function answersAsAsked(ctx: PolicyContext): boolean {
  const focus = findLibraryAgent(ctx.agent)?.focus ?? null;
  return ctx.depth !== 'deep' && (focus === null || focus === 'research');
}

function focusIntent(focus: LibraryAgent['focus'] | null, intent: Intent): Intent {
  if (focus !== 'account') return intent;
  if ((intent.kind === 'account_topic' || intent.kind === 'activity_count') && intent.account)
    return { kind: 'account_brief', account: intent.account };
  return intent;
}

function goesDeeper(focus: LibraryAgent['focus'] | null, intent: Intent): boolean {
  if (focus === 'deals') return intent.kind === 'deals';
  if (focus === 'voice') return intent.kind === 'voice' || intent.kind === 'segment_voice';
  return false;
}
