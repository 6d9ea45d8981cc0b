import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { day, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';
import { call, calls, finish, whyEmpty, type Query } from './steps.js';

/**
 * Champion and economic-buyer status from the deals' qualification rows (MEDDPICC): the latest
 * assessment of the criterion per deal, with its status, notes, date and assessor. History stays
 * in the rows; the answer reads the newest one per deal.
 */

type Row = Record<string, unknown>;
const CLOSED = ['closed_won', 'closed_lost'];
const LABEL = { champion: 'champion', economic_buyer: 'economic buyer' } as const;

export const latestPerDeal = (rows: readonly Row[]): Row[] => {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = `${String(r.deal_id)}:${String(r.criterion)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

export const qualificationColumns: [string, string][] = [
  ['deal_name', 'Deal'],
  ['account_name', 'Account'],
  ['criterion', 'Criterion'],
  ['status', 'Status'],
  ['notes', 'Notes'],
  ['occurred_at', 'Assessed'],
  ['assessed_by', 'By'],
];

export function qualificationStep(ctx: PolicyContext, intent: Extract<Intent, { kind: 'qualification' }>): StepResult {
  const filters: Query[] = [{ field: 'criterion', op: 'eq', value: intent.criterion }];
  if (intent.deals.length > 0) filters.push({ field: 'deal_name', op: 'in', value: intent.deals });
  else {
    filters.push({ field: 'deal_stage', op: 'not_in', value: CLOSED });
    if (intent.accounts.length > 0) filters.push({ field: 'account_name', op: 'in', value: intent.accounts });
  }
  const query: Query = {
    surface: 'deal_qualification',
    filters,
    order_by: { field: 'occurred_at', dir: 'desc' },
    limit: 1000,
  };
  const found = ctx.results.get('qualification');
  if (!found && !ctx.mustFinish) return calls(call(ctx, 'qualification', query));
  const label = LABEL[intent.criterion];
  const latest = latestPerDeal(rowsOf(found)).filter((r) => !intent.status || r.status === intent.status);
  const scope =
    intent.deals.length > 0
      ? intent.deals.join(' and ')
      : intent.accounts.length > 0
        ? `open deals with ${intent.accounts.join(' or ')}`
        : 'open deals';
  const wanted =
    intent.status === 'unknown'
      ? ` with no ${label} identified`
      : intent.status === 'at_risk'
        ? ` with the ${label} at risk`
        : '';
  if (latest.length === 0) {
    return finish({
      text: `I found no ${label} assessment for ${scope}${wanted}: ${rowsOf(found).length > 0 ? 'the latest assessments say otherwise' : whyEmpty(found)}.`,
      content_blocks: [],
      follow_ups: ['Which open deals have a champion at risk?', 'Which open deals have no economic buyer identified?'],
    });
  }
  const lines = [
    `The latest ${label} assessment on ${scope}${wanted}, from the deals' qualification records (status, the assessor's notes, and when):`,
    '',
  ];
  for (const r of latest.slice(0, 15))
    lines.push(
      `- **${String(r.deal_name)}** (${String(r.account_name ?? 'no account')}): ${String(r.status).replace('_', ' ')}${r.notes ? ` — “${String(r.notes)}”` : ''}${day(r.occurred_at) ? ` (assessed ${day(r.occurred_at)}${r.assessed_by ? ` by ${String(r.assessed_by)}` : ''})` : ''}`,
    );
  if (latest.length > 15) lines.push('- … the rest are in the table.');
  lines.push('', `Status reads: unknown (nobody identified), identified, validated (confirmed), at risk.`);
  const blocks: BlockDraft[] = [tableBlock(`Latest ${label} assessment per deal`, qualificationColumns, latest, query)];
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: [
      intent.criterion === 'champion'
        ? 'Who is the economic buyer on these deals?'
        : 'Who is the champion on these deals?',
      'Which deals have gone quiet?',
    ],
  });
}
