import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { competitorNames } from '../understanding/competitors.js';
import type { AskedPeriod } from '../../search/index.js';
import { rowsOf, type PolicyContext } from './context.js';
import { externalTurnsOf, quoteBlock, tableBlock, type QuoteCandidate } from './evidence.js';
import type { Intent } from './intent.js';
import { call, calls, finish, inPeriod, said, type Query } from './steps.js';

/**
 * Competitors: which names buyers bring up as alternatives (read from the turns where people
 * compare, switch or run a bake-off), how many conversations mention each (a count on the filter
 * lane over everything said or written), ranked, with a quote for the leaders.
 */

type CompetitorsIntent = Extract<Intent, { kind: 'competitors' }>;

const CUE_SEARCHES = [
  'different from',
  'switching from',
  'bake-off',
  'contract with',
  'chose us over',
  'looking at',
  'liked',
];

/** Interactions whose title, summary, body or transcript names `name`, inside the period when one was asked. */
const mentioning = (name: string, period: AskedPeriod | null) => [
  { field: 'said_or_written', op: 'contains', value: name },
  ...(period
    ? [
        { field: 'occurred_at', op: 'gte', value: period.from },
        { field: 'occurred_at', op: 'lt', value: period.to },
      ]
    : []),
];

const QUERIES = {
  /** One small search per comparison cue: a tool result is cut at 8 KB, so many short reads beat one long one. */
  discover: (cue: string): Query => ({ query: `"${cue}"`, mode: 'fuzzy', limit: 6 }),
  count: (name: string, period: AskedPeriod | null): Query => ({
    surface: 'interactions',
    filters: mentioning(name, period),
    metrics: [{ fn: 'count' }],
  }),
  byAccount: (name: string, period: AskedPeriod | null): Query => ({
    surface: 'interactions',
    filters: [...mentioning(name, period), { field: 'account_name', op: 'not_null' }],
    metrics: [{ fn: 'count' }],
    group_by: ['account_name'],
    order_by: { field: 'count', dir: 'desc' },
    limit: 50,
  }),
  quotes: (name: string, period: AskedPeriod | null): Query => ({
    query: `"${name}"${period ? ` ${period.phrase}` : ''}`,
    mode: 'fuzzy',
    limit: 20,
  }),
};

export function competitorsStep(
  ctx: PolicyContext,
  intent: CompetitorsIntent,
  known: ReadonlySet<string> = new Set(),
): StepResult {
  let names: string[];
  if (intent.name) names = [intent.name];
  else {
    if (!ctx.results.has('discover0') && !ctx.mustFinish)
      return calls(...CUE_SEARCHES.map((cue, i) => call(ctx, `discover${i}`, QUERIES.discover(cue))));
    const found = CUE_SEARCHES.flatMap((_, i) => rowsOf(ctx.results.get(`discover${i}`)));
    // Calls and meetings match in their turns; emails in their body.
    const texts = found.flatMap((r) => [
      ...(Array.isArray(r.matching_turns)
        ? (r.matching_turns as { text?: unknown }[]).map((t) => String(t.text ?? ''))
        : []),
      ...(typeof r.body === 'string' ? [r.body] : []),
    ]);
    names = competitorNames(texts, known);
  }
  const when = intent.period ? ` ${said(intent.period.phrase)}` : '';
  if (names.length === 0)
    return finish({
      text: `I found no competitor named in the conversations where buyers compare, switch or run a bake-off${when}.`,
      content_blocks: [],
      follow_ups: ['What do customers say about pricing?'],
    });
  if (!ctx.results.has('count0') && !ctx.mustFinish)
    return calls(
      ...names.map((n, i) => call(ctx, `count${i}`, QUERIES.count(n, intent.period))),
      ...names.slice(0, 3).map((n, i) => call(ctx, `quotes${i}`, QUERIES.quotes(n, intent.period))),
    );
  const ranked = names
    .map((name, i) => ({ name, i, n: rowsOf(ctx.results.get(`count${i}`))[0]?.count }))
    .filter((r): r is { name: string; i: number; n: number } => typeof r.n === 'number')
    .sort((a, b) => b.n - a.n || a.name.localeCompare(b.name));
  if (intent.byAccount) return accountsStep(ctx, intent, ranked, when);
  const blocks: BlockDraft[] = ranked.map((r) => mentionsMetric(r, intent.period, when));
  const lines = intent.name
    ? [
        `**${intent.name}** comes up in **${ranked[0]?.n ?? 0}** calls, meetings and emails${when} (anywhere in the title, summary, email body or transcript).`,
      ]
    : [
        `Competitors buyers name, by how many calls, meetings and emails mention them${when} (anywhere in the title, summary, email body or transcript):`,
        '',
      ];
  if (!intent.name) ranked.forEach((r, k) => lines.push(`${k + 1}. **${r.name}**: ${r.n}`));
  const quotes: ReturnType<typeof quoteBlock>[] = [];
  names.slice(0, 3).forEach((name, i) => {
    const turns: QuoteCandidate[] = externalTurnsOf(
      rowsOf(ctx.results.get(`quotes${i}`)).filter((r) => inPeriod(r.occurred_at, intent.period)),
      10,
    ).filter((c) => c.text.includes(name));
    if (turns[0]) quotes.push(quoteBlock(turns[0], name));
  });
  if (quotes.length > 0) {
    lines.push('', 'What buyers said about them:');
    for (const q of quotes)
      lines.push(`- **${q.source.account ?? 'No linked account'}**, ${q.source.speaker ?? 'a customer'}: “${q.text}”`);
    blocks.push(...quotes);
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: [`What do customers say about ${ranked[0]?.name ?? names[0]}?`, 'Why did we lose deals last quarter?'],
  });
}

const mentionsMetric = (r: { name: string; n: number }, period: AskedPeriod | null, when: string): BlockDraft => ({
  kind: 'metric',
  label: `Conversations mentioning ${r.name}${when}`,
  value: r.n,
  column: 'count',
  query: QUERIES.count(r.name, period),
});

/** The accounts whose conversations name each competitor asked about (the top one, or up to three), with counts. */
function accountsStep(
  ctx: PolicyContext,
  intent: CompetitorsIntent,
  ranked: readonly { name: string; n: number }[],
  when: string,
): StepResult {
  const chosen = ranked.slice(0, intent.byAccount?.names === 'top' ? 1 : 3);
  if (!ctx.results.has('accounts0') && !ctx.mustFinish && chosen.length > 0)
    return calls(...chosen.map((r, i) => call(ctx, `accounts${i}`, QUERIES.byAccount(r.name, intent.period))));
  const lines: string[] = [];
  // Each count the text gives is backed by its own query's cell, as in the ranking.
  const blocks: BlockDraft[] = chosen.map((r) => mentionsMetric(r, intent.period, when));
  chosen.forEach((r, i) => {
    const rows = rowsOf(ctx.results.get(`accounts${i}`));
    if (rows.length === 0) {
      lines.push(
        `**${r.name}** comes up in **${r.n}** calls, meetings and emails${when}, none of them linked to an account.`,
      );
      return;
    }
    lines.push(
      `**${r.name}** comes up in **${r.n}** calls, meetings and emails${when}; the accounts they belong to, by how many:`,
    );
    for (const row of rows) lines.push(`- **${String(row.account_name)}**: ${String(row.count)}`);
    lines.push('');
    blocks.push(
      tableBlock(
        `Accounts whose conversations mention ${r.name}${when}`,
        [
          ['account_name', 'Account'],
          ['count', 'Conversations'],
        ],
        rows,
        QUERIES.byAccount(r.name, intent.period),
      ),
    );
  });
  if (chosen.length === 0) lines.push(`I found no competitor named in the conversations${when}.`);
  return finish({
    text: lines.join('\n').trim(),
    content_blocks: blocks,
    follow_ups: [
      `What do customers say about ${chosen[0]?.name ?? 'competitors'}?`,
      'Why did we lose deals last quarter?',
    ],
  });
}
