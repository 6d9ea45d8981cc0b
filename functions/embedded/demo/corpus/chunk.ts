import type { FreshnessAccumulator, ThemeAccumulator } from './accumulators.js';
import { buildCall } from './calls.js';
import type { ConversationContext, ConversationPlan } from './conversation-kit.js';
import { buildEmail, type EmailThread } from './emails.js';
import { dealAt, planDeals, planQualification, stageAt, type DealPlan } from './deals.js';
import { isBuyerType, planAccounts, type AccountPlan, type TeamMember } from './people.js';
import { createRng, type IdKind } from './prng.js';
import type { CorpusChunk } from './rows.js';
import { EXCLUSION_REASONS, NON_BUYER_SCENARIO, SCENARIOS_BY_STAGE, type ScenarioKey } from './scenarios.js';
import { addDays, daysBetween, spreadEventTimes, type CorpusTimeline } from './timeline.js';

export interface ChunkInput {
  workspaceId: string;
  seed: number;
  chunkIndex: number;
  /** Accounts in this chunk (a full chunk has ACCOUNTS_PER_CHUNK). */
  accountCount: number;
  /** Fraction of a full chunk's conversations this chunk gets. */
  fraction: number;
  timeline: CorpusTimeline;
  team: readonly TeamMember[];
  ids: (kind: IdKind, n: number) => string;
  themes: ThemeAccumulator;
  freshness: FreshnessAccumulator;
}

/** Per full chunk (60 accounts): the volumes the demo aims for. */
export const CALLS_PER_CHUNK = 600;
export const EMAILS_PER_CHUNK = 400;
export const EXCLUDED_PER_CHUNK = 8;

interface Activity {
  account: AccountPlan;
  deals: DealPlan[];
  from: Date;
  to: Date;
  weight: number;
}

/**
 * Generate one chunk. It draws only from its own random streams (derived from seed and chunk
 * index), so any chunk can be produced alone, and ids count from the chunk's own block.
 */
export function generateChunk(input: ChunkInput): CorpusChunk {
  const { workspaceId, seed, chunkIndex, timeline } = input;
  const rng = createRng(seed, `chunk:${chunkIndex}`);
  const counters = new Map<IdKind, number>();
  // 2^28 ids per kind per chunk; 2^20 chunks fit in the 48-bit counter.
  const id = (kind: IdKind) => {
    const n = counters.get(kind) ?? 0;
    counters.set(kind, n + 1);
    return input.ids(kind, chunkIndex * 2 ** 28 + n);
  };
  const out: CorpusChunk = {
    index: chunkIndex,
    accounts: [],
    contacts: [],
    deals: [],
    qualification: [],
    interactions: [],
    participants: [],
    turns: [],
    utterances: [],
    excluded: [],
  };

  const accounts = planAccounts({
    rng: rng.fork('accounts'),
    chunkIndex,
    count: input.accountCount,
    team: input.team,
    timeline,
    id,
    workspaceId,
  });
  const dealRng = rng.fork('deals');
  const activities: Activity[] = accounts.map((account) => {
    const deals = planDeals({ rng: dealRng, account, timeline, id, workspaceId });
    out.accounts.push(account.row);
    out.contacts.push(...account.contacts.map((c) => c.row));
    for (const deal of deals) {
      out.deals.push(deal.row);
      out.qualification.push(...planQualification(dealRng, deal, id, workspaceId, timeline));
      input.freshness.add('salesforce', 'deals', deal.createdAt, deal.row.updatedAt);
    }
    return activityOf(account, deals, timeline);
  });
  for (const q of out.qualification)
    input.freshness.add('salesforce', 'deal_qualification', q.occurredAt, q.occurredAt);

  const ctx: ConversationContext = {
    rng: rng.fork('conversations'),
    workspaceId,
    id,
    team: input.team,
    now: timeline.end,
    themes: input.themes,
    freshness: input.freshness,
    out,
  };
  const pickRng = rng.fork('pick');
  const callTimes = spreadEventTimes(timeline, Math.round(CALLS_PER_CHUNK * input.fraction), rng.fork('call-times'), {
    weekdaysOnly: true,
  });
  const emailTimes = spreadEventTimes(
    timeline,
    Math.round(EMAILS_PER_CHUNK * input.fraction),
    rng.fork('email-times'),
    { weekdaysOnly: false },
  );
  const threads = new Map<string, EmailThread>();
  // Merge both streams in time order so threads see earlier mail first.
  let c = 0;
  let e = 0;
  while (c < callTimes.length || e < emailTimes.length) {
    const nextCall = callTimes[c];
    const nextEmail = emailTimes[e];
    const isCall = nextCall !== undefined && (nextEmail === undefined || nextCall <= nextEmail);
    const at = (isCall ? nextCall : nextEmail) as Date;
    if (isCall) c++;
    else e++;
    const activity = pickActivity(pickRng, activities, at);
    if (!activity) continue;
    const plan = conversationPlan(pickRng, activity, at);
    if (isCall) {
      buildCall(ctx, plan);
    } else {
      const open = threads.get(activity.account.row.id);
      const reply = open && daysBetween(open.lastAt, at) < 10 && pickRng.chance(0.45) ? open : null;
      threads.set(activity.account.row.id, buildEmail(ctx, plan, reply));
    }
  }

  const exclusionRng = rng.fork('exclusions');
  const wanted = Math.max(1, Math.round(EXCLUDED_PER_CHUNK * input.fraction));
  const calls = out.interactions.filter((i) => i.kind !== 'email');
  const emails = out.interactions.filter((i) => i.kind === 'email');
  const picked = [
    ...exclusionRng.sample(calls, Math.ceil(wanted * 0.6)),
    ...exclusionRng.sample(emails, Math.floor(wanted * 0.4)),
  ];
  const admin = input.team.find((m) => m.role === 'sales_manager') ?? input.team[0];
  for (const interaction of picked) {
    const excludedAt = addDays(interaction.occurredAt, exclusionRng.int(1, 20));
    out.excluded.push({
      workspaceId,
      interactionId: interaction.id as string,
      reason: exclusionRng.pick(EXCLUSION_REASONS),
      excludedBy: admin?.email ?? null,
      createdAt: excludedAt > timeline.end ? timeline.end : excludedAt,
    });
  }
  return out;
}

function activityOf(account: AccountPlan, deals: DealPlan[], timeline: CorpusTimeline): Activity {
  const { start, end } = timeline;
  if (account.type === 'customer') {
    const since = account.customerSince ?? start;
    const from = addDays(since, -100);
    return { account, deals, from: from < start ? start : from, to: account.churnedAt ?? end, weight: 1.2 };
  }
  if (isBuyerType(account.type)) {
    const first = deals[0];
    if (!first) return { account, deals, from: addDays(end, -120), to: end, weight: 0.5 };
    const allClosed = deals.every((d) => d.outcome !== 'open');
    const last = deals[deals.length - 1] as DealPlan;
    const to = allClosed ? addDays(last.closeAt, 30) : end;
    return {
      account,
      deals,
      from: addDays(first.createdAt, -10),
      to: to > end ? end : to,
      weight: account.type === null ? 0.7 : 1.3,
    };
  }
  return { account, deals, from: start, to: end, weight: 0.3 };
}

function pickActivity(rng: ReturnType<typeof createRng>, activities: readonly Activity[], at: Date): Activity | null {
  const active = activities.filter((a) => a.from <= at && at <= a.to);
  const pool = active.length > 0 ? active : activities.filter((a) => a.account.type === 'customer');
  if (pool.length === 0) return activities[0] ?? null;
  return rng.weighted(pool.map((a) => [a, a.weight] as const));
}

/** What a conversation at `at` with this account is about, given where the account and its deals stand. */
function conversationPlan(rng: ReturnType<typeof createRng>, activity: Activity, at: Date): ConversationPlan {
  const { account, deals } = activity;
  const deal = dealAt(deals, at);
  const base = { account, at, deal, rescueContact: null } as const;
  if (!isBuyerType(account.type)) {
    const rescue = account.contacts.find((c) => c.row.isBuyer);
    if (rescue && deal && rng.chance(0.6)) {
      return { ...base, rescueContact: rescue, scenario: rng.weighted(SCENARIOS_BY_STAGE[stageAt(deal, at)]) };
    }
    return { ...base, scenario: NON_BUYER_SCENARIO[account.type ?? 'other'] ?? 'partnership' };
  }
  const isCustomerNow = account.type === 'customer' && account.customerSince !== null && at >= account.customerSince;
  if (!isCustomerNow) {
    const scenario: ScenarioKey = deal
      ? rng.weighted(SCENARIOS_BY_STAGE[stageAt(deal, at)])
      : rng.pick(['intro', 'discovery'] as const);
    return { ...base, scenario };
  }
  return { ...base, scenario: customerScenario(rng, account, deal, at) };
}

function customerScenario(
  rng: ReturnType<typeof createRng>,
  account: AccountPlan,
  deal: DealPlan | null,
  at: Date,
): ScenarioKey {
  const since = account.customerSince as Date;
  if (
    account.championLeftAt &&
    at >= account.championLeftAt &&
    daysBetween(account.championLeftAt, at) < 75 &&
    rng.chance(0.6)
  )
    return 'transition';
  if (account.churnedAt && daysBetween(at, account.churnedAt) < 120 && rng.chance(0.7))
    return rng.pick(['at_risk', 'renewal'] as const);
  if (deal?.kind === 'renewal')
    return rng.weighted([['renewal', 3], account.atRisk ? ['at_risk', 3] : ['qbr', 1], ['check_in', 1]] as const);
  if (deal?.kind === 'expansion')
    return rng.weighted([
      ['expansion', 3],
      ['security_review', 1],
      ['check_in', 1],
    ] as const);
  if (daysBetween(since, at) < 45)
    return rng.weighted([
      ['onboarding', 3],
      ['check_in', 1],
    ] as const);
  return rng.weighted([
    ['check_in', 4],
    ['qbr', 2],
    ['escalation', 1],
    ['at_risk', account.atRisk ? 2 : 0.2],
  ] as const);
}
