import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { day, money, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';
import { call, calls, finish, said, whyEmpty, type Query } from './steps.js';

/**
 * What went quiet: open deals with no call, meeting or email linked to them since the cutoff (the
 * last touch per deal), or accounts whose latest interaction is older than it (per account).
 */

type QuietIntent = Extract<Intent, { kind: 'quiet' }>;
const CLOSED = ['closed_won', 'closed_lost'];

const QUERIES = {
  openDeals: (owner: string | null): Query => ({
    surface: 'deals',
    filters: [
      { field: 'is_closed', op: 'eq', value: false },
      ...(owner ? [{ field: 'owner_email', op: 'eq', value: owner }] : []),
    ],
    order_by: { field: 'close_date', dir: 'asc' },
    limit: 1000,
  }),
  lastTouchPerDeal: (): Query => ({
    surface: 'interactions',
    filters: [{ field: 'deal_stage', op: 'not_in', value: CLOSED }],
    group_by: ['deal_id', 'deal_name'],
    metrics: [{ fn: 'max', field: 'occurred_at' }],
    limit: 1000,
  }),
  lastTouchPerAccount: (): Query => ({
    surface: 'interactions',
    filters: [{ field: 'account_name', op: 'not_null' }],
    group_by: ['account_name', 'account_type'],
    metrics: [{ fn: 'max', field: 'occurred_at' }],
    order_by: { field: 'account_name', dir: 'asc' },
    limit: 1000,
  }),
};

const window = (intent: QuietIntent) =>
  /\d/.test(intent.period.phrase)
    ? `since ${intent.period.from}`
    : `(${intent.period.phrase}: nothing since ${intent.period.from})`;

export function quietStep(ctx: PolicyContext, intent: QuietIntent): StepResult {
  return intent.target === 'accounts' ? quietAccounts(ctx, intent) : quietDeals(ctx, intent);
}

function quietDeals(ctx: PolicyContext, intent: QuietIntent): StepResult {
  const open = ctx.results.get('open');
  if (!open && !ctx.mustFinish)
    return calls(call(ctx, 'open', QUERIES.openDeals(intent.owner)), call(ctx, 'touch', QUERIES.lastTouchPerDeal()));
  const touches = rowsOf(ctx.results.get('touch'));
  const last = new Map(
    touches.map((r) => [String(r.deal_id), typeof r.max_occurred_at === 'string' ? r.max_occurred_at : null]),
  );
  const quiet = rowsOf(open).filter((d) => {
    const at = last.get(String(d.id));
    return !at || at.slice(0, 10) < intent.period.from;
  });
  const quietIds = new Set(quiet.map((d) => String(d.id)));
  if (quiet.length === 0) {
    return finish({
      text:
        rowsOf(open).length === 0
          ? `I found no open deals: ${whyEmpty(open)}.`
          : `Every open deal has had a call, meeting or email linked to it ${window(intent)}.`,
      content_blocks: [],
      follow_ups: ['Which deals are closing this quarter?'],
    });
  }
  const lines = [
    `These open deals have had no call, meeting or email linked to them ${window(intent)}, soonest close date first; the second table has the last touch of those that had any:`,
    '',
  ];
  for (const d of quiet.slice(0, 20)) {
    const at = last.get(String(d.id));
    lines.push(
      `- **${String(d.name)}** (${String(d.account_name ?? 'no account')}): ${String(d.stage)}, ${money(d.amount) ?? 'amount unknown'}, ${at ? `last touch ${day(at)}` : 'no touch logged at all'}`,
    );
  }
  if (quiet.length > 20) lines.push('- … the rest are in the table.');
  const blocks: BlockDraft[] = [
    tableBlock(
      'Open deals gone quiet',
      [
        ['name', 'Deal'],
        ['account_name', 'Account'],
        ['stage', 'Stage'],
        ['amount', 'Amount'],
        ['close_date', 'Close date'],
        ['owner_email', 'Owner'],
      ],
      quiet,
      QUERIES.openDeals(intent.owner),
    ),
  ];
  const touched = touches.filter((r) => quietIds.has(String(r.deal_id)));
  if (touched.length > 0)
    blocks.push(
      tableBlock(
        'Last touch of each quiet deal',
        [
          ['deal_name', 'Deal'],
          ['max_occurred_at', 'Last touch'],
        ],
        touched,
        QUERIES.lastTouchPerDeal(),
      ),
    );
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: ['Who is the champion on these deals?', 'Which accounts have gone quiet?'],
  });
}

function quietAccounts(ctx: PolicyContext, intent: QuietIntent): StepResult {
  const touches = ctx.results.get('touch');
  if (!touches && !ctx.mustFinish) return calls(call(ctx, 'touch', QUERIES.lastTouchPerAccount()));
  const quiet = rowsOf(touches).filter(
    (r) => typeof r.max_occurred_at === 'string' && r.max_occurred_at.slice(0, 10) < intent.period.from,
  );
  if (quiet.length === 0) {
    return finish({
      text: `Every account with any interaction has had one ${window(intent)}${rowsOf(touches).length === 0 ? `; ${whyEmpty(touches)}` : ''}.`,
      content_blocks: [],
      follow_ups: ['Which deals have gone quiet?'],
    });
  }
  const lines = [
    `These accounts have had no call, meeting or email ${window(intent)} (${said(intent.period.phrase)}); their last touch:`,
    '',
  ];
  for (const r of quiet)
    lines.push(
      `- **${String(r.account_name)}** (${String(r.account_type ?? 'untyped')}): last touch ${day(r.max_occurred_at)}`,
    );
  return finish({
    text: lines.join('\n'),
    content_blocks: [
      tableBlock(
        'Accounts gone quiet, with their last touch',
        [
          ['account_name', 'Account'],
          ['account_type', 'Type'],
          ['max_occurred_at', 'Last touch'],
        ],
        quiet,
        QUERIES.lastTouchPerAccount(),
      ),
    ],
    follow_ups: ['Which deals have gone quiet?', 'Which customers are at risk of churning?'],
  });
}
