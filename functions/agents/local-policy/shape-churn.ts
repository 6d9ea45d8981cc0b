import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { day, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';
import { latestAssessments, qualificationColumns } from './shape-qualification.js';
import { call, calls, finish, type Query } from './steps.js';
import { whyEmpty } from './search-notes.js';

/**
 * Churn risk, with its signals named: on customers' open deals, the latest champion or economic
 * buyer assessment at risk (or its notes saying the person left or is unclear); and customers with
 * no call, meeting or email in the last 30 days.
 */

type ChurnIntent = Extract<Intent, { kind: 'churn' }>;
const CLOSED = ['closed_won', 'closed_lost'];

const queries = (account: string | null) => ({
  qualification: [
    { field: 'criterion', op: 'in', value: ['champion', 'economic_buyer'] },
    { field: 'deal_stage', op: 'not_in', value: CLOSED },
    account
      ? { field: 'account_name', op: 'eq', value: account }
      : { field: 'account_type', op: 'eq', value: 'customer' },
  ] as Query[],
  lastTouch: {
    surface: 'interactions',
    filters: [
      account
        ? { field: 'account_name', op: 'eq', value: account }
        : { field: 'account_type', op: 'eq', value: 'customer' },
    ],
    group_by: ['account_name'],
    metrics: [{ fn: 'max', field: 'occurred_at' }],
    order_by: { field: 'account_name', dir: 'asc' },
    limit: 1000,
  } as Query,
});

export function churnStep(ctx: PolicyContext, intent: ChurnIntent): StepResult {
  const q = queries(intent.account);
  const touched = ctx.results.get('touch');
  if (!touched && !ctx.mustFinish) return calls(call(ctx, 'touch', q.lastTouch));
  const read = latestAssessments(ctx, q.qualification, 'at_risk');
  if ('step' in read) return read.step;
  const flagged = read.rows;
  const touches = rowsOf(touched);
  const latest =
    touches
      .map((r) => String(r.max_occurred_at ?? ''))
      .sort()
      .at(-1) ?? '';
  const cutoff = latest ? new Date(Date.parse(ctx.today) - 30 * 86_400_000).toISOString().slice(0, 10) : '';
  const quiet = touches.filter((r) => typeof r.max_occurred_at === 'string' && r.max_occurred_at.slice(0, 10) < cutoff);
  const who = intent.account ?? 'customers';
  const blocks: BlockDraft[] = [];
  const lines = [
    `Churn signals for ${who}, from the data (there is no churn score field; these are the signals it holds):`,
    '',
    '### Champion or economic buyer at risk on an open deal',
  ];
  if (flagged.length === 0)
    lines.push(
      `None: ${read.read?.ok ? 'the latest champion and economic buyer assessments are not at risk' : whyEmpty(read.read)}.`,
    );
  else {
    const accounts = [...new Set(flagged.map((r) => String(r.account_name)))];
    lines.push(`Accounts: ${accounts.map((a) => `**${a}**`).join(', ')}.`);
    for (const r of flagged.slice(0, 12))
      lines.push(
        `- **${String(r.account_name)}**, ${String(r.deal_name)}: ${String(r.criterion).replace('_', ' ')} ${String(r.status).replace('_', ' ')}${r.notes ? ` — “${String(r.notes)}”` : ''} (${day(r.occurred_at)})`,
      );
    for (const part of read.parts)
      blocks.push(tableBlock('Champion and economic buyer signals', qualificationColumns, part.rows, part.query));
  }
  lines.push('', '### No call, meeting or email in the last month');
  if (quiet.length === 0)
    lines.push(`None: every ${intent.account ? 'interaction' : 'customer'} has a touch in the last month.`);
  else {
    lines.push(quiet.map((r) => `**${String(r.account_name)}** (last ${day(r.max_occurred_at)})`).join(', '));
    blocks.push(
      tableBlock(
        'Last touch per account',
        [
          ['account_name', 'Account'],
          ['max_occurred_at', 'Last touch'],
        ],
        quiet,
        q.lastTouch,
      ),
    );
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: ['Which open deals have a champion at risk?', 'Which accounts have gone quiet?'],
  });
}
