import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext, type Result } from './context.js';
import { day, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';
import { call, calls, finish, type Query } from './steps.js';
import { whyEmpty } from './search-notes.js';

/**
 * Champion and economic-buyer status from the deals' qualification rows (MEDDPICC): the latest
 * assessment of the criterion per deal, with its status, notes, date and assessor. History stays
 * in the rows; the answer reads the newest one per deal.
 */

type Row = Record<string, unknown>;
const CLOSED = ['closed_won', 'closed_lost'];
/** Deals per read of their assessments. */
const CHUNK = 8;
const LABEL = { champion: 'champion', economic_buyer: 'economic buyer' } as const;

/**
 * The latest assessment per deal and criterion, in two compact reads (a tool result is cut at 8 KB,
 * and a deal's whole history would not fit): the newest assessment time per deal and criterion,
 * then the rows from that time on (with the status asked for), of which the newest per deal count.
 */
export function latestAssessments(
  ctx: PolicyContext,
  filters: Query[],
  status: string | null,
): { step: StepResult } | { rows: Row[]; parts: { query: Query; rows: Row[] }[]; read: Result | undefined } {
  const times: Query = {
    surface: 'deal_qualification',
    filters,
    group_by: ['deal_id', 'criterion'],
    metrics: [{ fn: 'max', field: 'occurred_at' }],
    limit: 1000,
  };
  const latest = ctx.results.get('latest');
  if (!latest && !ctx.mustFinish) return { step: calls(call(ctx, 'latest', times)) };
  const newest = new Map(
    rowsOf(latest).map((r) => [`${String(r.deal_id)}:${String(r.criterion)}`, String(r.max_occurred_at)]),
  );
  if (newest.size === 0) return { rows: [], parts: [], read: latest };
  // The rows from each deal's newest time on, read a few deals at a time so no read is cut.
  const deals = [...new Set(rowsOf(latest).map((r) => String(r.deal_id)))];
  const chunks = Array.from({ length: Math.ceil(deals.length / CHUNK) }, (_, i) =>
    deals.slice(i * CHUNK, (i + 1) * CHUNK),
  );
  const queries = chunks.map((ids): Query => {
    const from = rowsOf(latest)
      .filter((r) => ids.includes(String(r.deal_id)))
      .map((r) => String(r.max_occurred_at))
      .sort()[0]!;
    return {
      surface: 'deal_qualification',
      filters: [
        ...filters,
        { field: 'deal_id', op: 'in', value: ids },
        { field: 'occurred_at', op: 'gte', value: from },
        ...(status ? [{ field: 'status', op: 'eq', value: status }] : []),
      ],
      order_by: { field: 'occurred_at', dir: 'desc' },
      limit: 1000,
    };
  });
  if (!ctx.results.has('assessments0') && !ctx.mustFinish)
    return { step: calls(...queries.map((q, i) => call(ctx, `assessments${i}`, q))) };
  const parts = queries.map((query, i) => ({
    query,
    rows: rowsOf(ctx.results.get(`assessments${i}`)).filter(
      (r) => newest.get(`${String(r.deal_id)}:${String(r.criterion)}`) === String(r.occurred_at),
    ),
  }));
  const rows = parts.flatMap((p) => p.rows);
  const found = ctx.results.get('assessments0');
  return { rows, parts: parts.filter((p) => p.rows.length > 0), read: found };
}

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
  const read = latestAssessments(ctx, filters, intent.status);
  if ('step' in read) return read.step;
  const label = LABEL[intent.criterion];
  const latest = read.rows;
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
      text: !read.read?.ok
        ? `I could not read the ${label} assessments for ${scope}: ${whyEmpty(read.read)}.`
        : wanted && rowsOf(read.read).length > 0
          ? // Assessments exist; none of the latest has the asked status.
            `I found no ${scope}${wanted}: the latest ${label} assessment of each says otherwise (ask without "${wanted.trim()}" to see them).`
          : `No ${label} assessment is recorded for ${scope}: the deals' qualification records hold none${scope.startsWith('open deals') ? '. Only open deals are read; name a closed deal to see its history' : ''}.`,
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
  const blocks: BlockDraft[] = read.parts.map((p) =>
    tableBlock(`Latest ${label} assessment per deal`, qualificationColumns, p.rows, p.query),
  );
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
