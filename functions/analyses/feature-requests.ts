import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import type { BlockDraft } from '../agents/answer.js';
import { yielder } from '../../platform/yielder.js';
import {
  competitorNames,
  loadRequestTagger,
  narrowedHeads,
  REQUEST_CUE_SQL,
  requestObjectOf,
  sentencesOf,
} from '../agents/index.js';
import { AnalysisPeriodSchema, defineAnalysis, type AnalysisOutput } from './analysis.js';
import { collectFromConversationSlices, type TopicTerms, topicTerms } from '../search/index.js';
import {
  accountKind,
  ConversationKindsSchema,
  conversationsWhere,
  filterWords,
  kindWords,
  type ConversationKind,
} from './analysis-scope.js';
import { inPeriod } from './deal-scope.js';
import { periodWords } from './analysis-words.js';

/**
 * Feature requests: what customers and prospects ask the product to do, read from their own words
 * (external transcript turns and inbound emails) by request language and grouped by what is asked
 * for (agents/understanding/request-language.ts), ranked by how many distinct accounts ask, each with verbatim quotes.
 */

const Names = z.array(z.string().trim().min(1).max(300)).max(50);

const FeatureRequestsBodySchema = z
  .object({
    period: AnalysisPeriodSchema.optional(),
    accounts: Names.optional(),
    regions: Names.optional(),
    industries: Names.optional(),
    audience: z.enum(['customers', 'prospects', 'both']).default('both').openapi({
      description:
        '`customers` (typed customer or with a won deal), `prospects` (other accounts with a deal or typed sales_target), or `both`.',
    }),
    kinds: ConversationKindsSchema,
    topic: z.string().trim().min(1).max(200).optional().openapi({
      description:
        'Only requests about this: sharing a word with it ("Slack alerts"), or an acronym of it either way, read from the asks ("SSO" and "single sign-on").',
    }),
    limit: z.number().int().min(1).max(50).default(10),
    quotes_per_request: z.number().int().min(0).max(5).default(2),
    accounts_per_request: z.number().int().min(0).max(50).default(0).openapi({
      description:
        'List up to this many of the accounts asking for each request, most conversations first (30 rows at most): "which customers asked for SSO".',
    }),
  })
  .strict()
  .openapi('FeatureRequestsRequest');
type Body = z.output<typeof FeatureRequestsBodySchema>;

/** One sentence of a customer asking for something, attributed. */
interface Asked extends Record<string, unknown> {
  interaction_id: string;
  turn_id: string | null;
  text: string;
  speaker: string | null;
  occurred_at: string;
  account: string;
  deal: string | null;
  kind: string;
}

interface RequestRow extends Record<string, unknown> {
  request: string;
  accounts: number;
  conversations: number;
  customers: number;
  prospects: number;
  last_asked: string;
}

export const featureRequests = defineAnalysis({
  name: 'feature_requests',
  path: 'feature-requests',
  summary: 'Feature requests: what customers and prospects ask the product to do, by how many accounts ask',
  description:
    'Customer sentences (their turns, inbound emails) asking for something ("can we", "do you support"), grouped by what is asked for, ranked by accounts asking, with verbatim quotes. Price and seat asks are left out.',
  body: FeatureRequestsBodySchema,
  example: { period: { from: '2026-07-01', to: '2026-10-01' }, audience: 'customers', limit: 5 },
  async run(ctx, input, cite): Promise<AnalysisOutput> {
    await loadRequestTagger();
    const { asked, readBackTo } = await askingSentences(ctx.caller.workspaceId, ctx.services.db, input);
    const own = await ownNames(ctx.caller.workspaceId, ctx.services.db);
    // A rival the buyers compare with ("the team liked Pipewell, so you will need to beat that") is who
    // the product competes with, not what it should do: read from the same sentences, no query more.
    const rivals = competitorNames(
      asked.map((a) => a.text),
      own,
      50,
    ).flatMap((name) => [name.toLowerCase(), ...name.toLowerCase().split(/\s+/)]);
    const notObjects = new Set([...own, ...rivals]);
    // The topic's terms are read from the asks themselves: an acronym one of them spells out counts.
    // A compound's head alone is a broader ask: "connector" is not a "zapier connector".
    const topic = input.topic
      ? topicTerms(input.topic, { texts: asked.map((a) => a.text), heads: await narrowedHeads(input.topic) })
      : null;
    const groups = new Map<string, { label: string; items: (Asked & { sentence: string })[] }>();
    let onTopic = 0;
    // The tagger is synchronous work per sentence: the loop lets other requests run between slices.
    const pause = yielder();
    for (const row of asked)
      for (const sentence of sentencesOf(row.text)) {
        await pause();
        const object = requestObjectOf(sentence, notObjects);
        if (!object) continue;
        if (topic && !topic.matches(`${sentence} ${object.label}`)) continue;
        onTopic++;
        const group = groups.get(object.key) ?? { label: object.label, items: [] };
        // A name as written ("Slack") over the same word read as a noun ("slack").
        if (object.label !== object.key) group.label = object.label;
        group.items.push({ ...row, sentence });
        groups.set(object.key, group);
      }
    mergeIntoHeads(groups);
    const kinds = await accountKinds(ctx.caller.workspaceId, ctx.services.db, [
      ...new Set(asked.map((a) => a.account)),
    ]);
    const ranked: (RequestRow & { items: (Asked & { sentence: string })[] })[] = [...groups.values()]
      .map((g) => {
        const accounts = [...new Set(g.items.map((i) => i.account))];
        return {
          request: g.label,
          accounts: accounts.length,
          conversations: new Set(g.items.map((i) => i.interaction_id)).size,
          customers: accounts.filter((a) => kinds.get(a) === 'customer').length,
          prospects: accounts.filter((a) => kinds.get(a) === 'prospect').length,
          last_asked: lastAsked(g.items),
          items: g.items,
        };
      })
      // A request one account made once is a remark; two accounts, or one asking twice, is a request.
      .filter((r) => r.accounts > 1 || r.conversations > 1)
      .sort(
        (a, b) => b.accounts - a.accounts || b.conversations - a.conversations || a.request.localeCompare(b.request),
      )
      .slice(0, input.limit);
    const rows: RequestRow[] = ranked.map(({ items: _items, ...row }) => row);
    const scope = `${input.audience === 'both' ? 'customers and prospects' : input.audience}${filterWords({ ...input, audience: 'all' })}${periodWords(input.period)}`;
    const bound = readBackTo
      ? `; only the newest conversations were read, back to ${readBackTo} (one analysis reads at most ${MAX_ASKED_ROWS.toLocaleString('en-US')} asking turns and emails: narrow the period or the accounts to read older ones)`
      : '';
    const readAs = `feature requests of ${scope}${input.topic ? ` about "${input.topic}"` : ''}: asks ${whereAsked(input.kinds)}, grouped by what they ask for, ranked by the accounts asking${bound}`;
    if (rows.length === 0)
      return {
        analysis: 'feature_requests',
        read_as: readAs,
        summary: [],
        // What the reason says, as figures the verifier re-runs: none requested, out of so many read.
        blocks: input.topic
          ? [
              {
                kind: 'metric',
                label: `Requests about "${input.topic}"`,
                value: 0,
                column: 'requests',
                query: cite('read') as unknown as Record<string, unknown>,
              },
              {
                kind: 'metric',
                label: 'Turns and emails read',
                value: asked.length,
                column: 'asks_read',
                query: cite('read') as unknown as Record<string, unknown>,
              },
            ]
          : [],
        results: { requests: [], read: [{ requests: 0, asks_read: asked.length }] },
        empty_reason: `No ${scope} asked for ${input.topic ? `anything about "${input.topic}"` : 'a feature'} ${whereAsked(input.kinds, 'or')}${readBackTo ? ` since ${readBackTo} (older conversations were not read)` : ''}.${topic ? ` ${searched(topic, asked.length, onTopic)}` : ''}`,
      };
    const quotes = ranked.flatMap((r) => distinctQuotes(r.items, input.quotes_per_request).map((q) => quoteOf(q)));
    // Inside one tool result's budget beside the quotes: the first requests' accounts, then no more.
    const asking = ranked
      .flatMap((r) => accountsAsking(r.request, r.items, kinds, input.accounts_per_request))
      .slice(0, MAX_ACCOUNT_ROWS);
    const first = rows[0]!;
    const summary = input.topic
      ? [
          `${first.accounts} accounts asked for "${first.request}" in ${first.conversations} conversations, the most of the requests about "${input.topic}".`,
        ]
      : [
          `The most requested is "${first.request}": ${first.accounts} accounts asked for it in ${first.conversations} conversations.`,
          ...(rows[1] ? [`Next: "${rows[1].request}" (${rows[1].accounts} accounts).`] : []),
        ];
    if (asking.length > 0) {
      // Who asks for the most requested, named: "which customers asked for SSO" is answered in words too.
      const names = asking.filter((a) => a.request === first.request).map((a) => a.account);
      summary.push(
        names.length < first.accounts
          ? `Asking for "${first.request}", most conversations first: ${names.join(', ')}, and more.`
          : `Asking for "${first.request}": ${names.join(', ')}.`,
      );
    }
    const blocks: BlockDraft[] = [
      {
        kind: 'table',
        title: 'Feature requests by accounts asking',
        columns: [
          { key: 'request', label: 'Request' },
          { key: 'accounts', label: 'Accounts asking' },
          { key: 'conversations', label: 'Conversations' },
          { key: 'customers', label: 'Customers' },
          { key: 'prospects', label: 'Prospects' },
          { key: 'last_asked', label: 'Last asked' },
        ],
        data: rows,
        query: cite('requests') as unknown as Record<string, unknown>,
      },
      ...(asking.length > 0
        ? [
            {
              kind: 'table' as const,
              title: 'Accounts asking, most conversations first',
              columns: [
                { key: 'request', label: 'Request' },
                { key: 'account', label: 'Account' },
                { key: 'kind', label: 'Customer or prospect' },
                { key: 'conversations', label: 'Conversations' },
                { key: 'last_asked', label: 'Last asked' },
              ],
              data: asking,
              query: cite('accounts') as unknown as Record<string, unknown>,
            },
          ]
        : []),
      ...quotes,
    ];
    return {
      analysis: 'feature_requests',
      read_as: readAs,
      summary,
      blocks,
      results: { requests: rows, ...(asking.length > 0 ? { accounts: asking } : {}) },
      empty_reason: null,
    };
  },
});

/**
 * The asking rows one analysis reads at most: past it the oldest slices are left unread and the
 * answer says how far back it read (a bound on the rows, the memory and the tagging of one call).
 */
export const MAX_ASKED_ROWS = 20_000;

interface AskingSentences {
  asked: Asked[];
  /** The day of the oldest conversation read when MAX_ASKED_ROWS stopped the read; null when all were read. */
  readBackTo: string | null;
}

/**
 * The customers' turns and inbound emails in scope that use request language, newest first: read a
 * slice of conversations per statement (a regular-expression scan of every customer turn would hold
 * the database, and every tenant's requests, for as long as the corpus is large).
 */
async function askingSentences(
  workspaceId: string,
  db: Parameters<typeof queryRows>[0],
  input: Body,
): Promise<AskingSentences> {
  const where = conversationsWhere(workspaceId, input);
  const { rows: asked, readBackTo } = await collectFromConversationSlices(
    db,
    workspaceId,
    (slice) => {
      const inSlice = slice.over(sql`i.occurred_at`, sql`i.id`);
      return queryRows<Asked>(
        db,
        sql`select * from (
          select i.id as interaction_id, t.id as turn_id, t.text, t.speaker_name as speaker,
                 i.occurred_at::text as occurred_at, a.name as account, d.name as deal, i.kind
          from transcript_turns t
          join interactions i on i.id = t.interaction_id and i.workspace_id = t.workspace_id
          join accounts a on a.id = i.account_id and a.workspace_id = i.workspace_id
          left join deals d on d.id = i.deal_id and d.workspace_id = i.workspace_id
          where t.workspace_id = ${workspaceId} and ${slice.over(sql`t.occurred_at`, sql`t.interaction_id`)}
            and ${inSlice} and t.side = 'external' and ${where} and t.text ~* ${REQUEST_CUE_SQL}
          union all
          select i.id, null, i.body, (select p.name from participants p where p.workspace_id = i.workspace_id
                   and p.interaction_id = i.id and p.side = 'external' order by p.name limit 1),
                 i.occurred_at::text, a.name, d.name, i.kind
          from interactions i
          join accounts a on a.id = i.account_id and a.workspace_id = i.workspace_id
          left join deals d on d.id = i.deal_id and d.workspace_id = i.workspace_id
          where ${inSlice} and ${where} and i.kind = 'email' and i.direction = 'inbound' and i.body ~* ${REQUEST_CUE_SQL}
        ) asked order by occurred_at desc, interaction_id, turn_id`,
      );
    },
    { where: inPeriod(sql`i.occurred_at`, input.period), max: MAX_ASKED_ROWS },
  );
  // Slices run newest first by (time, id); the answer's order is newest first, then by id ascending.
  asked.sort(
    (x, y) =>
      compare(y.occurred_at, x.occurred_at) ||
      compare(x.interaction_id, y.interaction_id) ||
      compare(x.turn_id ?? '\uffff', y.turn_id ?? '\uffff'),
  );
  return { asked, readBackTo };
}

/**
 * A phrase whose last word is itself asked for is that request, narrowed ("pipeline report", "custom
 * report" are asks for reports): its asks join the word's group, so one need is counted once.
 */
function mergeIntoHeads(groups: Map<string, { label: string; items: unknown[] }>): void {
  for (const [key, group] of [...groups]) {
    const head = key.split(' ').at(-1)!;
    const into = head !== key ? groups.get(head) : undefined;
    if (!into) continue;
    into.items.push(...group.items);
    groups.delete(key);
  }
}

/** The day of the newest ask among these. */
const lastAsked = (items: readonly Asked[]): string =>
  items
    .map((i) => i.occurred_at)
    .sort()
    .at(-1)!
    .slice(0, 10);

/** Where the asks were read, in words: "said on calls and meetings or written in inbound emails". */
function whereAsked(kinds: readonly ConversationKind[], joiner: 'or' | 'said' = 'said'): string {
  const spoken = kindWords(kinds.filter((k) => k !== 'email'));
  const said = spoken ? `${joiner === 'said' ? 'said ' : ''}on ${spoken}` : '';
  const written = kinds.includes('email') ? `${joiner === 'said' ? 'written ' : ''}in inbound emails` : '';
  return [said, written].filter(Boolean).join(' or ');
}

const compare = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/** The workspace's regions, industries and people: where and who asks, never what is asked for. */
async function ownNames(workspaceId: string, db: Parameters<typeof queryRows>[0]): Promise<Set<string>> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select lower(region) as name from accounts where workspace_id = ${workspaceId} and region is not null
        union select lower(industry) from accounts where workspace_id = ${workspaceId} and industry is not null
        union select lower(split_part(name, ' ', 1)) from contacts where workspace_id = ${workspaceId}
        union select lower(split_part(name, ' ', 1)) from accounts where workspace_id = ${workspaceId}`,
  );
  return new Set(rows.map((r) => r.name));
}

async function accountKinds(
  workspaceId: string,
  db: Parameters<typeof queryRows>[0],
  names: readonly string[],
): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const rows = await queryRows<{ name: string; kind: string }>(
    db,
    sql`select a.name, ${accountKind(workspaceId, sql`a`)} as kind from accounts a
        where a.workspace_id = ${workspaceId} and a.name in (${sql.join(
          names.map((n) => sql`${n}`),
          sql`, `,
        )})`,
  );
  return new Map(rows.map((r) => [r.name, r.kind]));
}

/**
 * What a topic's empty answer searched: its terms, the asks read, and the asks about it that were
 * remarks (a request is asked by two accounts or in two conversations), so "no one asked" is a claim
 * about what was looked for.
 */
function searched(topic: TopicTerms, read: number, remarks: number): string {
  const asks = `${read.toLocaleString('en-US')} asking turn${read === 1 ? '' : 's'} and emails`;
  const aside =
    remarks > 0
      ? ` ${remarks === 1 ? 'One ask was' : `${remarks} asks were`} about it, none made in more than one conversation.`
      : '';
  return `Looked for ${topic.lookedFor()} in ${asks}.${aside}`;
}

/** The accounts-asking table's rows at most, whatever accounts_per_request and limit ask. */
const MAX_ACCOUNT_ROWS = 30;

interface AskingAccount extends Record<string, unknown> {
  request: string;
  account: string;
  kind: string;
  conversations: number;
  last_asked: string;
}

/** The accounts asking for one request, most conversations first (then the latest ask, then by name), up to n. */
function accountsAsking(
  request: string,
  items: readonly Asked[],
  kinds: ReadonlyMap<string, string>,
  n: number,
): AskingAccount[] {
  if (n === 0) return [];
  const byAccount = new Map<string, Asked[]>();
  for (const item of items) {
    const asked = byAccount.get(item.account);
    if (asked) asked.push(item);
    else byAccount.set(item.account, [item]);
  }
  return [...byAccount]
    .map(([account, asked]) => ({
      request,
      account,
      kind: kinds.get(account) ?? 'other',
      conversations: new Set(asked.map((a) => a.interaction_id)).size,
      last_asked: lastAsked(asked),
    }))
    .sort(
      (a, b) =>
        b.conversations - a.conversations || compare(b.last_asked, a.last_asked) || compare(a.account, b.account),
    )
    .slice(0, n);
}

/** Quotes from different accounts first (newest first within), one per conversation. */
function distinctQuotes<T extends Asked>(items: readonly T[], n: number): T[] {
  const out: T[] = [];
  for (const item of items) {
    if (out.length >= n) break;
    if (out.some((o) => o.account === item.account || o.interaction_id === item.interaction_id)) continue;
    out.push(item);
  }
  return out;
}

function quoteOf(q: Asked & { sentence: string }): BlockDraft {
  return {
    kind: 'quote',
    text: q.sentence,
    source: {
      interaction_id: q.interaction_id,
      turn_id: q.turn_id,
      speaker: q.speaker,
      occurred_at: q.occurred_at,
      account: q.account,
      deal: q.deal,
      side: 'external',
    },
    stance: 'supports',
  };
}
