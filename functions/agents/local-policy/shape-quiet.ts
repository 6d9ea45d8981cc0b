import type { StepResult } from '../../../platform/model/port.js';
import { isDefaultQuiet } from '../../search/index.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { day, money, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';
import { call, calls, finish, type Query } from './steps.js';
import { whyEmpty } from './search-notes.js';

/**
 * What went quiet: open deals with no call, meeting or email linked to them since the cutoff (the
 * last touch per deal), or accounts whose latest interaction is older than it (per account).
 */

type QuietIntent = Extract<Intent, { kind: 'quiet' }>;
const CLOSED = ['closed_won', 'closed_lost'];

const QUERIES = {
  /** Open deals touched since the cutoff: one compact row per deal (a tool result is cut at 8 KB). */
  touchedSince: (intent: QuietIntent): Query => ({
    surface: 'interactions',
    filters: [
      { field: 'deal_stage', op: 'not_in', value: CLOSED },
      { field: 'occurred_at', op: 'gte', value: intent.period.from },
    ],
    group_by: ['deal_id'],
    metrics: [{ fn: 'count' }],
    limit: 1000,
  }),
  /** The open deals not among them, grouped per deal so only the columns shown come back. */
  quiet: (intent: QuietIntent, touched: string[]): Query => ({
    surface: 'deals',
    filters: [
      { field: 'is_closed', op: 'eq', value: false },
      ...(touched.length > 0 ? [{ field: 'id', op: 'not_in', value: touched }] : []),
      ...(intent.owner ? [{ field: 'owner_email', op: 'eq', value: intent.owner }] : []),
    ],
    group_by: ['id', 'name', 'account_name', 'stage', 'close_date'],
    metrics: [{ fn: 'sum', field: 'amount' }],
    order_by: { field: 'close_date', dir: 'asc' },
    limit: 1000,
  }),
  lastTouch: (ids: string[]): Query => ({
    surface: 'interactions',
    filters: [{ field: 'deal_id', op: 'in', value: ids }],
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

/** The window in words: a number the asker gave is not repeated (the number check reads digits); "gone quiet" alone is a month. */
const window = (intent: QuietIntent) =>
  /\d/.test(intent.period.phrase)
    ? 'in the period you asked about'
    : isDefaultQuiet(intent.period)
      ? `(${intent.period.phrase}: nothing in the last month)`
      : `(${intent.period.phrase})`;

export function quietStep(ctx: PolicyContext, intent: QuietIntent): StepResult {
  return intent.target === 'accounts' ? quietAccounts(ctx, intent) : quietDeals(ctx, intent);
}

function quietDeals(ctx: PolicyContext, intent: QuietIntent): StepResult {
  const touchedResult = ctx.results.get('touched');
  if (!touchedResult && !ctx.mustFinish) return calls(call(ctx, 'touched', QUERIES.touchedSince(intent)));
  const touched = rowsOf(touchedResult).flatMap((r) => (typeof r.deal_id === 'string' ? [r.deal_id] : []));
  const quietQuery = QUERIES.quiet(intent, touched);
  const found = ctx.results.get('quiet');
  if (!found && !ctx.mustFinish) return calls(call(ctx, 'quiet', quietQuery));
  const quiet = rowsOf(found);
  const ids = quiet.map((d) => String(d.id));
  const lastResult = ctx.results.get('last');
  if (ids.length > 0 && !lastResult && !ctx.mustFinish) return calls(call(ctx, 'last', QUERIES.lastTouch(ids)));
  const touches = rowsOf(lastResult);
  const last = new Map(
    touches.map((r) => [String(r.deal_id), typeof r.max_occurred_at === 'string' ? r.max_occurred_at : null]),
  );
  if (quiet.length === 0) {
    return finish({
      text: found?.ok
        ? `Every open deal has had a call, meeting or email linked to it ${window(intent)}.`
        : `I could not read the open deals: ${whyEmpty(found)}.`,
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
      `- **${String(d.name)}** (${String(d.account_name ?? 'no account')}): ${String(d.stage)}, ${money(d.sum_amount) ?? 'amount unknown'}, ${at ? `last touch ${day(at)}` : 'no touch logged at all'}`,
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
        ['sum_amount', 'Amount'],
        ['close_date', 'Close date'],
      ],
      quiet,
      quietQuery,
    ),
  ];
  if (touches.length > 0)
    blocks.push(
      tableBlock(
        'Last touch of each quiet deal',
        [
          ['deal_name', 'Deal'],
          ['max_occurred_at', 'Last touch'],
        ],
        touches,
        QUERIES.lastTouch(ids),
      ),
    );
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: ['Who is the champion on these deals?', 'Which accounts have gone quiet?'],
  });
}

const NOT_BUYERS = new Set(['competitor', 'vendor', 'investor', 'partner']);

function quietAccounts(ctx: PolicyContext, intent: QuietIntent): StepResult {
  const touches = ctx.results.get('touch');
  if (!touches && !ctx.mustFinish) return calls(call(ctx, 'touch', QUERIES.lastTouchPerAccount()));
  // A seller asking which accounts went quiet means buyers: competitors, vendors, investors and partners are
  // not accounts to win back (as what customers say leaves them out).
  const quiet = rowsOf(touches).filter(
    (r) =>
      typeof r.max_occurred_at === 'string' &&
      r.max_occurred_at.slice(0, 10) < intent.period.from &&
      !NOT_BUYERS.has(String(r.account_type ?? '')),
  );
  if (quiet.length === 0) {
    return finish({
      text: `Every account with any interaction has had one ${window(intent)}${rowsOf(touches).length === 0 ? `; ${whyEmpty(touches)}` : ''}.`,
      content_blocks: [],
      follow_ups: ['Which deals have gone quiet?'],
    });
  }
  const lines = [
    `These accounts have had no call, meeting or email ${window(intent)} (competitors, vendors, investors and partners left out); their last touch:`,
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
