import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import type { Analysis, Interpretation } from '../understanding/interpretation.js';
import { ASK_USER, toolNameFor } from '../tool-names.js';
import { ONE_ACCOUNT_ANALYSES } from '../understanding/operation-analyses.js';
import type { PolicyContext } from './context.js';
import { call, calls, finish } from './steps.js';

/**
 * A question a registry analysis answers (functions/analyses/), for the local model: the reading
 * becomes the operation's input, the operation is called as a tool like any other, and the answer is
 * what it returned — how it was read, its summary and its blocks as they are — so the local model and
 * a hosted one calling the same tool answer from the same computation, checked by the same verifier.
 */

type Input = Record<string, unknown>;

/**
 * Each analysis's operation, the filter fields of a reading its input carries (`takes`), and its
 * input built from the reading. A filter the question asked for that the input cannot carry is said
 * in the answer, never dropped in silence: the analysis then covers more than was asked.
 */
interface AnalysisOperation {
  operation: string;
  /** A field whose every value the input carries, or a field and the values it carries. */
  takes: readonly (string | { field: string; values: readonly string[] })[];
  input(r: Interpretation): Input;
}

const SPOKEN = ['call', 'meeting'];
/** Accounts named per request when a question asks who asked: enough to act on, inside one tool result. */
const ACCOUNTS_NAMED = 10;
const CONVERSATIONS = ['call', 'meeting', 'email'];

/** The reading's filters `dealFiltersOf` carries to a deal analysis. */
const DEAL_FILTERS = ['owner_email', 'account_name', 'account_region', 'account_industry'];

/** What every deal analysis is over by definition (open, renewal, stage): never a narrowing it dropped. */
const DEAL_SCOPE = ['is_closed', 'is_won', 'name', 'stage', 'close_date'];

const OPERATIONS: Partial<Record<Analysis, AnalysisOperation>> = {
  talk_ratio: {
    operation: 'analyses.talk_ratio',
    takes: ['owner_email', 'account_name', { field: 'kind', values: SPOKEN }, 'occurred_at'],
    input: (r) => ({
      ...periodOf(r),
      ...listOf('reps', [...valuesOf(r, 'owner_email'), ...r.names.people.filter((p) => !isOwnerName(r, p))]),
      ...listOf('accounts', valuesOf(r, 'account_name')),
      ...listOf(
        'kinds',
        valuesOf(r, 'kind').filter((k) => SPOKEN.includes(k)),
      ),
      order: r.order?.dir === 'asc' ? 'least' : 'most',
      limit: Math.min(r.limit ?? 20, 50),
    }),
  },
  feature_requests: {
    operation: 'analyses.feature_requests',
    takes: [
      'account_name',
      'account_region',
      'account_industry',
      'audience',
      { field: 'kind', values: CONVERSATIONS },
      'occurred_at',
    ],
    input: (r) => ({
      ...periodOf(r),
      ...listOf('accounts', valuesOf(r, 'account_name')),
      ...listOf('regions', valuesOf(r, 'account_region')),
      ...listOf('industries', valuesOf(r, 'account_industry')),
      ...(valuesOf(r, 'audience')[0] ? { audience: valuesOf(r, 'audience')[0] } : {}),
      ...listOf(
        'kinds',
        valuesOf(r, 'kind').filter((k) => CONVERSATIONS.includes(k)),
      ),
      ...(r.topic ? { topic: r.topic } : {}),
      // A question asking who ("which customers asked for SSO") is answered with the accounts by name.
      ...(r.show.includes('account_name') ? { accounts_per_request: ACCOUNTS_NAMED } : {}),
      limit: Math.min(r.limit ?? 10, 50),
    }),
  },
  competitors: {
    operation: 'analyses.competitors',
    takes: ['account_name', { field: 'kind', values: CONVERSATIONS }, 'occurred_at'],
    input: (r) => ({
      ...periodOf(r),
      ...listOf('competitors', r.names.competitors),
      ...listOf('accounts', valuesOf(r, 'account_name')),
      ...listOf(
        'kinds',
        valuesOf(r, 'kind').filter((k) => CONVERSATIONS.includes(k)),
      ),
      limit: Math.min(r.limit ?? 10, 50),
    }),
  },
  // Row limits that keep a result inside one tool result's budget (transcript.ts), blocks and all.
  renewal_risk: {
    operation: 'analyses.renewal_risk',
    takes: [...DEAL_FILTERS, ...DEAL_SCOPE],
    input: (r) => ({ ...periodOf(r), ...dealFiltersOf(r), limit: Math.min(r.limit ?? 5, 100) }),
  },
  champion_changes: {
    operation: 'analyses.champion_changes',
    takes: [...DEAL_FILTERS, ...DEAL_SCOPE],
    input: (r) => ({ ...periodOf(r), ...dealFiltersOf(r), limit: Math.min(r.limit ?? 6, 200) }),
  },
  account_history: {
    operation: 'analyses.account_history',
    takes: ['account_name', 'occurred_at'],
    input: (r) => ({ account: valuesOf(r, 'account_name')[0] ?? r.names.accounts[0] ?? '', ...periodOf(r), limit: 12 }),
  },
};

/** The owners, accounts, regions and industries a reading of deals names, as the deal analyses take them. */
const dealFiltersOf = (r: Interpretation): Input => ({
  ...listOf('owners', valuesOf(r, 'owner_email')),
  ...listOf('accounts', valuesOf(r, 'account_name')),
  ...listOf('regions', valuesOf(r, 'account_region')),
  ...listOf('industries', valuesOf(r, 'account_industry')),
});

/** Whether a registry analysis answers this reading. */
export const isOperationAnalysis = (r: Interpretation): boolean => OPERATIONS[r.analysis] !== undefined;

const PURPOSE = 'analysis';

export function analysisStep(ctx: PolicyContext, reading: Interpretation): StepResult {
  const spec = OPERATIONS[reading.analysis]!;
  const tool = toolNameFor(spec.operation);
  const one = oneAccount(ctx, reading);
  if ('tool_calls' in one) return one;
  const { r, note } = one;
  const result = ctx.results.get(PURPOSE);
  if (!result && ctx.tools.has(tool) && !ctx.mustFinish) return calls(call(ctx, PURPOSE, spec.input(r), tool));
  if (!result?.ok)
    return finish({
      text: result
        ? `I could not run the ${r.analysis.replace(/_/g, ' ')} analysis (${result.error.code}): ${result.error.message}`
        : `This agent cannot run the ${r.analysis.replace(/_/g, ' ')} analysis, so I cannot answer that here.`,
      content_blocks: [],
      follow_ups: [],
    });
  const out = result.output as {
    read_as: string;
    summary: string[];
    blocks: BlockDraft[];
    empty_reason: string | null;
  };
  const notNarrowed = filtersNotTaken(spec, r);
  const notes = [
    ...(notNarrowed.length > 0
      ? [
          `This analysis cannot be narrowed by ${notNarrowed.map((w) => `"${w}"`).join(', ')}, so it covers more than you asked.`,
        ]
      : []),
    ...(r.unexplained.length > 0
      ? [
          `I did not use these words of your question, because nothing in the data matched them: ${r.unexplained.map((w) => `"${w}"`).join(', ')}.`,
        ]
      : []),
  ];
  const unread = notes.length > 0 ? ['', ...notes] : [];
  return finish({
    text: [
      `*Read as: ${out.read_as}.*`,
      '',
      ...(note ? [note, ''] : []),
      ...(out.empty_reason ? [out.empty_reason] : out.summary),
      ...unread,
    ]
      .join('\n')
      .trim(),
    content_blocks: out.blocks,
    follow_ups: [],
  });
}

/**
 * An analysis of one account whose name several accounts share ("granite": Granite Logistics and Granite
 * Health): the user is asked which, when the agent may ask; otherwise the first is taken and the answer
 * says so, naming the others.
 */
function oneAccount(ctx: PolicyContext, r: Interpretation): StepResult | { r: Interpretation; note: string | null } {
  const accounts = valuesOf(r, 'account_name');
  if (!ONE_ACCOUNT_ANALYSES.has(r.analysis) || accounts.length < 2) return { r, note: null };
  const words = r.filters.find((f) => f.field === 'account_name')?.from_words;
  // The question's own words, quoted; without them the accounts are named, never quoted as if said.
  const asked = words ? `"${words}"` : 'The name';
  const reply = ctx.results.get(ASKED);
  const chosenBy = (answer: { answer?: unknown; option_id?: unknown }) =>
    accounts.find((a) => a === answer.option_id) ??
    accounts.find(
      (a) =>
        a.toLowerCase() ===
        String(answer.answer ?? '')
          .trim()
          .toLowerCase(),
    );
  const chosen = reply?.ok ? chosenBy(reply.output as { answer?: unknown; option_id?: unknown }) : undefined;
  if (!reply && ctx.mayAsk && !ctx.mustFinish)
    return calls(
      call(
        ctx,
        ASKED,
        {
          question: `${asked} matches ${accounts.join(' and ')} in your CRM. Which one do you mean?`,
          options: accounts.map((a) => ({ id: a, label: a })),
        },
        ASK_USER,
      ),
    );
  const account = chosen ?? accounts[0]!;
  const others = accounts.filter((a) => a !== account);
  const only = (f: Interpretation['filters'][number]) =>
    f.field === 'account_name' ? { ...f, op: 'eq' as const, value: account } : f;
  return {
    r: { ...r, filters: r.filters.map(only), names: { ...r.names, accounts: [account] } },
    note: chosen
      ? null
      : `I took ${words ? asked : 'the name'} to mean **${account}**; ${others.join(' and ')} also ${others.length === 1 ? 'matches' : 'match'}. Ask again with the full name for ${others.length === 1 ? 'it' : 'them'}.`,
  };
}

const ASKED = 'which_account';

/** The question's words of each filter the analysis's input does not carry (implied filters aside). */
function filtersNotTaken(spec: AnalysisOperation, r: Interpretation): string[] {
  const values = (f: Interpretation['filters'][number]): string[] =>
    Array.isArray(f.value) ? f.value : [String(f.value)];
  const carried = (f: Interpretation['filters'][number]): boolean =>
    spec.takes.some((t) =>
      typeof t === 'string' ? t === f.field : t.field === f.field && values(f).every((v) => t.values.includes(v)),
    );
  const dropped = r.filters.filter((f) => f.from_words !== null && !carried(f));
  return [...new Set(dropped.map((f) => f.from_words!))];
}

const valuesOf = (r: Interpretation, field: string): string[] =>
  r.filters.flatMap((f) =>
    f.field !== field ? [] : Array.isArray(f.value) ? f.value : typeof f.value === 'string' ? [f.value] : [],
  );

const listOf = (key: string, values: readonly string[]): Input =>
  values.length > 0 ? { [key]: [...new Set(values)] } : {};

const periodOf = (r: Interpretation): Input => (r.period ? { period: { from: r.period.from, to: r.period.to } } : {});

/** A person the reading already holds as an owner filter (by the name read from their address). */
const isOwnerName = (r: Interpretation, person: string): boolean =>
  valuesOf(r, 'owner_email').some((email) => email.toLowerCase().startsWith(`${person.toLowerCase().split(' ')[0]}.`));

/**
 * A competitors question the intent reader read (a rival named without the word "competitor": "how
 * often is Pipewell mentioned", "which accounts brought up Stackwise", a follow-up on a ranking) as
 * the reading the competitors analysis takes: the same operation answers it.
 */
export function competitorsReading(
  period: { from: string; to: string; phrase: string } | null,
  name: string | null,
  limit: number | null = null,
): Interpretation {
  return {
    analysis: 'competitors',
    subject: 'interactions',
    measure: { fn: 'count', field: null },
    filters: [],
    period: period ? { from: period.from, to: period.to, field: 'occurred_at', phrase: period.phrase } : null,
    group_by: null,
    order: null,
    limit,
    show: [],
    compare_to: null,
    topic: null,
    names: { accounts: [], deals: [], people: [], competitors: name ? [name] : [] },
    parts: [],
    inherited: [],
    unexplained: [],
    near_words: [],
    absent: [],
    confidence: 1,
  };
}
