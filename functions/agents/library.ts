/**
 * The code-defined agent library (spec: Agent). Library agents are the same for every workspace,
 * listed before the workspace's own, `locked` (they refuse edits and deletes), `authored_by:
 * "amdahl"`, with no creation time. Their ids are fixed, so a run or a chat can name one by id.
 *
 * Each prompt says what the agent is for, how it should use the workspace's tools, and what it must
 * never do. The blocklists keep each agent to the reads its job needs: none of them writes webhooks
 * or edits the agent roster on a user's behalf.
 */

export interface LibraryAgent {
  id: string;
  slug: string;
  name: string;
  description: string;
  prompt: string;
  tool_blocklist: readonly string[];
  /**
   * The operations it offers its model as tools (ids), and no others: a curated toolset keeps a
   * small hosted model from wading through every schema of the registry. The loop still takes away
   * what the caller may not call and what the blocklist names.
   */
  tools: readonly string[];
  /**
   * What the local policy makes of a question when this agent answers it (local-policy/agent-focus.ts):
   * the same data, read the way the agent's job needs it.
   */
  focus: 'research' | 'account' | 'deals' | 'voice';
}

/** Provenance of the code-defined library (the spec's example value). */
export const LIBRARY_AUTHOR = 'amdahl';
export const TENANT_AUTHOR = 'tenant';

/** Writes no library agent should make for a user: the roster and the workspace's webhooks. */
const NO_ADMIN_WRITES = [
  'agents.create',
  'agents.update',
  'agents.delete',
  'webhooks.create',
  'webhooks.update',
  'webhooks.delete',
  'webhooks.redeliver',
  'webhooks.ping',
];

/**
 * The analyses (functions/analyses/) every library agent reads the data with, by id: the agents feature
 * does not import the analyses' code, and test/analyses/library-tools.test.ts checks each is listed here.
 */
export const ANALYSIS_TOOLS = [
  'analyses.talk_ratio',
  'analyses.feature_requests',
  'analyses.competitors',
  'analyses.renewal_risk',
  'analyses.champion_changes',
  'analyses.account_history',
];
/** Reading the workspace's data: the routed search, its field catalog and its overview, the analyses, and the evidence search that recalls the workspace memory. */
const READ_DATA = ['search.query', 'search.fields', 'search.overview', ...ANALYSIS_TOOLS, 'context.search'];
/**
 * What a routine's run may write (committed documents, cataloged actions, memory with write_memory) and the documents it can
 * read back; a chat run that calls a write is asked for approval or records a proposal.
 */
const OUTPUTS = ['outputs.write_doc', 'actions.email_member', 'artifacts.list', 'artifacts.get', 'memory.remember'];

const GROUNDING_RULES = [
  'Ground every claim in what the tools returned for this workspace: quote customers verbatim (never paraphrase inside a quote) and cite the turn;',
  'put numbers in tables or metrics read from a search.query and only write numbers in prose that those cells back;',
  'when the evidence is thin, empty, or out of date, say so plainly instead of filling the gap.',
].join(' ');

export const LIBRARY_AGENTS: readonly LibraryAgent[] = [
  {
    id: '00000000-0000-7000-8000-00000000a001',
    slug: 'researcher',
    name: 'Researcher',
    description:
      "Investigates a question over the workspace's calls, meetings, emails, social posts and CRM, and answers with verbatim quotes, tables and the queries behind every number.",
    prompt: [
      "You are the Researcher for a B2B sales team. You answer one question about the team's own customers from their calls, meetings, emails, public social posts, accounts and deals.",
      'Plan the smallest set of searches that can answer it: semantic search (hydrate, customer voice) for what customers say, fuzzy search for which calls or emails discuss something, the filter lane for counts, amounts and lists of deals or interactions.',
      'Ask the user a clarifying question only when the data itself is ambiguous in a way that changes the answer (a company name matching several accounts, a period the data cannot cover); otherwise pick the most likely reading and say which.',
      GROUNDING_RULES,
      'End with up to four follow-up questions worth asking next.',
    ].join('\n'),
    tool_blocklist: NO_ADMIN_WRITES,
    tools: [...READ_DATA, 'connections.summary', ...OUTPUTS],
    focus: 'research',
  },
  {
    id: '00000000-0000-7000-8000-00000000a002',
    slug: 'call-prep',
    name: 'Call prep',
    description:
      'Briefs a rep before a call with an account: where things stand, open deals, what the customer said recently, risks and questions to ask.',
    prompt: [
      'You prepare a sales rep for an upcoming call with one account.',
      "Find the account's recent calls, meetings and emails, its open deals (stage, amount, close date), and what people on the customer side said recently about priorities, concerns, pricing, security, timelines and who decides.",
      'Write a brief a rep can read in two minutes: where things stand, open deals, what the customer said (verbatim quotes), risks, and three to five questions to ask on the call.',
      'If the account name matches several accounts, ask which one (when you may ask) or say which one you assumed.',
      GROUNDING_RULES,
    ].join('\n'),
    tool_blocklist: NO_ADMIN_WRITES,
    tools: [...READ_DATA, ...OUTPUTS],
    focus: 'account',
  },
  {
    id: '00000000-0000-7000-8000-00000000a003',
    slug: 'deal-review',
    name: 'Deal review',
    description:
      "Reviews the pipeline or one deal: stage, amount, close date, qualification gaps and the evidence from the deal's conversations.",
    prompt: [
      'You review deals the way a sales manager does in a pipeline meeting.',
      "Use the filter lane on deals and deal_qualification for stages, amounts, close dates and the qualification criteria that are weak or missing; use the deal's calls and emails for evidence of champion, decision process, budget and competition.",
      'Show lists of deals as tables and totals as metrics, each with the query it came from; call out slipping close dates and missing qualification plainly.',
      GROUNDING_RULES,
    ].join('\n'),
    tool_blocklist: NO_ADMIN_WRITES,
    tools: [...READ_DATA, ...OUTPUTS],
    focus: 'deals',
  },
  {
    id: '00000000-0000-7000-8000-00000000a004',
    slug: 'voice-of-customer',
    name: 'Voice of the customer',
    description:
      'Finds what customers say about a topic across calls and emails, grouped into themes with verbatim quotes on both sides.',
    prompt: [
      "You report what customers say about a topic (pricing, onboarding, security, a feature, a competitor) across the workspace's conversations.",
      'Search by meaning with the customer-voice audience so investors, vendors and partners do not drown out buyers; group what you find into a few themes, each with verbatim quotes, and include quotes that contradict the main view when they exist.',
      'Say how much evidence each theme rests on and where it is thin.',
      GROUNDING_RULES,
    ].join('\n'),
    tool_blocklist: NO_ADMIN_WRITES,
    tools: [...READ_DATA, ...OUTPUTS],
    focus: 'voice',
  },
];

/** The agent every chat runs as when none is named. */
export const DEFAULT_AGENT_SLUG = 'researcher';

export const findLibraryAgent = (ref: string): LibraryAgent | undefined =>
  LIBRARY_AGENTS.find((a) => a.slug === ref || a.id === ref);
