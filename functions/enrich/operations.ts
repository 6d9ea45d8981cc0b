import { runCallerOf } from '../identity/run-caller.js';
import { defineOperation, type OperationContext } from '../registry.js';
import { buildFullBrief } from './build.js';
import { enqueueRefresh, readFreshBrief, storeBrief } from './cache.js';
import { readEvidence } from './evidence.js';
import {
  EnrichCompanyRequestSchema,
  EnrichPersonRequestSchema,
  EnrichResponseSchema,
  EnrichTopicRequestSchema,
  type EnrichResponse,
} from './schemas.js';
import { companySubject, personSubject, topicSubject, type Subject } from './subject.js';

const common = {
  tags: ['Enrich'],
  scopes: ['data:read'] as const,
  minRole: 'viewer' as const,
  stability: 'beta' as const,
  visibility: 'public' as const,
  quota: 'enrich' as const,
  readOnly: true as const,
};

const TIERS =
  'Tiers: a fresh cached brief answers at once (`tier: cached`, `brief`, `artifact_id`, `captured_at`; fresh for 7 days for a company, 14 for a person or a topic); ' +
  "on a miss, a bounded read of this workspace's own conversations (`tier: first_party`, `evidence`: ranked verbatim `utterances`, `matched_count`, `aggregates`; " +
  'no history is the empty envelope) while the full brief is rebuilt in the background (`refresh_enqueued: true`, one rebuild per subject at a time). ' +
  '`mode: full` blocks for the full brief (`tier: full`). The rebuild and `mode: full` search the market too and need `external_search:execute`; ' +
  'without it the call degrades to the cache and the first-party read with `refresh_omitted: "missing_scope"`. ' +
  'Every quote in a brief is verified verbatim against its transcript turn; market facts are URL citations.';

/** The tier ladder, the same for the three subjects. */
async function enrich(
  ctx: OperationContext,
  subject: Subject,
  input: { mode: 'fast' | 'full'; limit: number },
): Promise<EnrichResponse> {
  const { services, caller } = ctx;
  const workspaceId = caller.workspaceId;
  const canRefresh = caller.scopes.has('external_search:execute');
  const base = { success: true as const, subject: { kind: subject.kind, key: subject.key } };
  if (input.mode === 'full' && canRefresh) {
    const brief = await buildFullBrief(services, workspaceId, subject, input.limit, ctx.signal);
    const stored = await services.engine.transaction((scope) =>
      storeBrief(scope, workspaceId, subject, brief, caller.userId, null),
    );
    return {
      ...base,
      tier: 'full',
      brief,
      artifact_id: stored.artifactId,
      captured_at: stored.capturedAt.toISOString(),
      evidence: null,
      refresh_enqueued: false,
      refresh_omitted: null,
      refresh_run_id: null,
    };
  }
  const omitted = canRefresh ? null : ('missing_scope' as const);
  const cached = await readFreshBrief(services.db, workspaceId, subject, services.clock.now());
  if (cached)
    return {
      ...base,
      tier: 'cached',
      brief: cached.brief,
      artifact_id: cached.artifactId,
      captured_at: cached.capturedAt.toISOString(),
      evidence: null,
      refresh_enqueued: false,
      // A cached brief needs no rebuild; a blocked `mode: full` still says why it did not run.
      refresh_omitted: input.mode === 'full' ? omitted : null,
      refresh_run_id: null,
    };
  const evidence = await readEvidence(services, workspaceId, subject, input.limit);
  const refresh = canRefresh
    ? await enqueueRefresh(services, workspaceId, runCallerOf(caller), { subject, limit: input.limit })
    : null;
  return {
    ...base,
    tier: 'first_party',
    brief: null,
    artifact_id: null,
    captured_at: null,
    evidence,
    refresh_enqueued: refresh !== null,
    refresh_omitted: omitted,
    refresh_run_id: refresh?.runId ?? null,
  };
}

export const enrichCompany = defineOperation({
  ...common,
  id: 'enrich.company',
  example: { domain: 'acme.com', name: 'Acme', mode: 'fast', limit: 10 },
  method: 'post',
  path: '/enrich/company',
  summary: 'What is known of a company, by domain: cached brief, else first-party evidence',
  description: `${TIERS} The domain is the cache key (scheme, \`www.\` and path dropped); \`name\` finds the account when no account has the domain and sharpens the market search.`,
  mcp: { tool: 'enrich', action: 'company' },
  body: EnrichCompanyRequestSchema,
  output: EnrichResponseSchema,
  async handler(ctx, input) {
    return enrich(ctx, companySubject(input), input);
  },
});

export const enrichPerson = defineOperation({
  ...common,
  id: 'enrich.person',
  example: { email: 'jordan@acme.com', name: 'Jordan Lee' },
  method: 'post',
  path: '/enrich/person',
  summary: 'What is known of a person, anchored on a LinkedIn URL or an email',
  description: `${TIERS} A bare name is refused (\`invalid_argument\`): it cannot be resolved to one person. The cache keys on the LinkedIn URL, else the email; the first-party read finds contacts by email (or, beside a LinkedIn URL, by the name given) and what they said in the conversations they took part in.`,
  mcp: { tool: 'enrich', action: 'person' },
  body: EnrichPersonRequestSchema,
  output: EnrichResponseSchema,
  async handler(ctx, input) {
    return enrich(ctx, personSubject(input), input);
  },
});

export const enrichTopic = defineOperation({
  ...common,
  id: 'enrich.topic',
  example: { topic: 'security review', mode: 'full' },
  method: 'post',
  path: '/enrich/topic',
  summary: 'What customers and the market say about a topic',
  description: `${TIERS} The term is the cache key; the first-party read takes the customer sentences nearest the term by meaning (external speakers only), and a brief keeps only quotes about it.`,
  mcp: { tool: 'enrich', action: 'topic' },
  body: EnrichTopicRequestSchema,
  output: EnrichResponseSchema,
  async handler(ctx, input) {
    return enrich(ctx, topicSubject(input), input);
  },
});

export const enrichOperations = [enrichCompany, enrichPerson, enrichTopic];
