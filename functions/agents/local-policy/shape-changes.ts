import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { day, money, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';
import { call, calls, finish, said, type Query } from './steps.js';

/**
 * What changed for one account in a window: its interactions (counted and listed), deals opened,
 * deals closed (won or lost), qualification risks recorded, and the deals open now.
 */

type ChangesIntent = Extract<Intent, { kind: 'account_changes' }>;

const queries = ({ account, period }: ChangesIntent) => {
  const acc = { field: 'account_name', op: 'eq', value: account };
  const window = (field: string) => [
    { field, op: 'gte', value: period.from },
    { field, op: 'lt', value: period.to },
  ];
  return {
    count: { surface: 'interactions', filters: [acc, ...window('occurred_at')], metrics: [{ fn: 'count' }] } as Query,
    list: {
      surface: 'interactions',
      filters: [acc, ...window('occurred_at')],
      order_by: { field: 'occurred_at', dir: 'desc' },
      limit: 10,
    } as Query,
    opened: {
      surface: 'deals',
      filters: [acc, ...window('occurred_at')],
      order_by: { field: 'occurred_at', dir: 'asc' },
      limit: 50,
    } as Query,
    closed: {
      surface: 'deals',
      filters: [acc, { field: 'is_closed', op: 'eq', value: true }, ...window('close_date')],
      order_by: { field: 'close_date', dir: 'asc' },
      limit: 50,
    } as Query,
    risks: {
      surface: 'deal_qualification',
      filters: [acc, { field: 'status', op: 'eq', value: 'at_risk' }, ...window('occurred_at')],
      order_by: { field: 'occurred_at', dir: 'desc' },
      limit: 20,
    } as Query,
    open: {
      surface: 'deals',
      filters: [acc, { field: 'is_closed', op: 'eq', value: false }],
      order_by: { field: 'close_date', dir: 'asc' },
      limit: 20,
    } as Query,
  };
};

export function changesStep(ctx: PolicyContext, intent: ChangesIntent): StepResult {
  const q = queries(intent);
  if (!ctx.results.has('count') && !ctx.mustFinish)
    return calls(
      call(ctx, 'count', q.count),
      call(ctx, 'list', q.list),
      call(ctx, 'opened', q.opened),
      call(ctx, 'closed', q.closed),
      call(ctx, 'risks', q.risks),
      call(ctx, 'open', q.open),
    );
  const { account, period } = intent;
  const when = said(period.phrase);
  const n = rowsOf(ctx.results.get('count'))[0]?.count;
  const list = rowsOf(ctx.results.get('list'));
  const opened = rowsOf(ctx.results.get('opened'));
  const closed = rowsOf(ctx.results.get('closed'));
  const risks = rowsOf(ctx.results.get('risks'));
  const open = rowsOf(ctx.results.get('open'));
  const blocks: BlockDraft[] = [];
  const lines = [`### What changed with ${account} ${when}`, ''];
  if (typeof n === 'number') {
    blocks.push({
      kind: 'metric',
      label: `Interactions with ${account} ${when}`,
      value: n,
      column: 'count',
      query: q.count,
    });
    lines.push(
      n === 0
        ? `- No calls, meetings or emails ${when}.`
        : `- **${n}** calls, meetings and emails ${when} (latest in the table).`,
    );
    if (list.length > 0)
      blocks.push(
        tableBlock(
          `Interactions with ${account} ${when}`,
          [
            ['occurred_at', 'When'],
            ['kind', 'Kind'],
            ['title', 'Title'],
          ],
          list,
          q.list,
        ),
      );
  }
  const deal = (d: Record<string, unknown>) =>
    `**${String(d.name)}** (${String(d.stage)}, ${money(d.amount) ?? 'amount unknown'})`;
  lines.push(opened.length > 0 ? `- Deals opened: ${opened.map(deal).join('; ')}.` : '- No deal was opened.');
  // Empty, the table is what backs "No deal was opened": the query that found none, in the answer.
  blocks.push(
    tableBlock(
      'Deals opened',
      [
        ['name', 'Deal'],
        ['stage', 'Stage'],
        ['amount', 'Amount'],
        ['occurred_at', 'Created'],
      ],
      opened,
      q.opened,
    ),
  );
  lines.push(
    closed.length > 0
      ? `- Deals closed: ${closed.map((d) => `${deal(d)} ${d.is_won ? 'won' : 'lost'} on ${day(d.close_date)}`).join('; ')}.`
      : '- No deal was won or lost.',
  );
  blocks.push(
    tableBlock(
      'Deals closed',
      [
        ['name', 'Deal'],
        ['stage', 'Stage'],
        ['amount', 'Amount'],
        ['close_date', 'Closed'],
      ],
      closed,
      q.closed,
    ),
  );
  if (risks.length > 0) {
    lines.push(
      `- Risks recorded in qualification: ${risks
        .slice(0, 4)
        .map(
          (r) =>
            `${String(r.criterion).replace('_', ' ')} at risk on ${String(r.deal_name)}${r.notes ? ` (“${String(r.notes)}”)` : ''}`,
        )
        .join('; ')}.`,
    );
    blocks.push(
      tableBlock(
        'Qualification risks recorded',
        [
          ['deal_name', 'Deal'],
          ['criterion', 'Criterion'],
          ['notes', 'Notes'],
          ['occurred_at', 'Assessed'],
        ],
        risks,
        q.risks,
      ),
    );
  }
  // No section for what is not there: one line says so (a section that only says it has nothing is unfinished).
  if (open.length === 0) lines.push('', `${account} has no open deals now.`);
  else {
    lines.push('', '### Open deals now');
    for (const d of open) lines.push(`- ${deal(d)}${day(d.close_date) ? `, closing ${day(d.close_date)}` : ''}`);
    blocks.push(
      tableBlock(
        `Open deals with ${account}`,
        [
          ['name', 'Deal'],
          ['stage', 'Stage'],
          ['amount', 'Amount'],
          ['close_date', 'Close date'],
        ],
        open,
        q.open,
      ),
    );
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: [`Prep me for my next call with ${account}`, `What did ${account} say about pricing ${period.phrase}?`],
  });
}
