import {
  QUALIFICATION_CRITERIA,
  type DealStage,
  type QualificationCriterion,
  type QualificationStatus,
} from '../../../../schema/warehouse-deals.js';
import type { AccountPlan } from './people.js';
import { isBuyerType } from './people.js';
import type { IdKind, Rng } from './prng.js';
import type { DealRow, QualificationRow } from './rows.js';
import { addDays, daysBetween, isoDate, type CorpusTimeline } from './timeline.js';

/** A deal and the times the generator needs to place conversations in its life. */
export interface DealPlan {
  row: DealRow & { id: string; stage: DealStage; occurredAt: Date };
  accountId: string;
  kind: 'new_business' | 'renewal' | 'expansion';
  createdAt: Date;
  /** Actual close for closed deals, expected close for open ones. */
  closeAt: Date;
  outcome: 'won' | 'lost' | 'open';
}

const OPEN_STAGES: readonly DealStage[] = ['prospecting', 'discovery', 'evaluation', 'proposal', 'negotiation'];
const STAGE_PROBABILITY: Record<DealStage, number> = {
  prospecting: 10,
  discovery: 20,
  evaluation: 40,
  proposal: 60,
  negotiation: 80,
  closed_won: 100,
  closed_lost: 0,
};
const CURRENCY_BY_REGION: Record<string, string> = { 'North America': 'USD', EMEA: 'EUR', APAC: 'USD', LATAM: 'USD' };

/** The stage a deal was in at time `t` (open deals move through the stages evenly over their cycle). */
export function stageAt(deal: DealPlan, t: Date): DealStage {
  if (deal.outcome !== 'open' && t >= deal.closeAt) return deal.row.stage;
  return openStageAt(deal.createdAt, deal.closeAt, t);
}

function openStageAt(createdAt: Date, closeAt: Date, t: Date): DealStage {
  const span = Math.max(1, daysBetween(createdAt, closeAt));
  const progress = Math.max(0, Math.min(0.999, daysBetween(createdAt, t) / span));
  return OPEN_STAGES[Math.floor(progress * OPEN_STAGES.length)] ?? 'prospecting';
}

/** The deal a conversation at time `t` belongs to: the one open then, newest first. */
export function dealAt(deals: readonly DealPlan[], t: Date): DealPlan | null {
  let best: DealPlan | null = null;
  for (const d of deals) {
    const end = d.outcome === 'open' ? Number.POSITIVE_INFINITY : d.closeAt.getTime() + 86_400_000;
    if (
      t.getTime() >= d.createdAt.getTime() - 7 * 86_400_000 &&
      t.getTime() <= end &&
      (!best || d.createdAt > best.createdAt)
    )
      best = d;
  }
  return best;
}

interface DealsInput {
  rng: Rng;
  account: AccountPlan;
  timeline: CorpusTimeline;
  id: (kind: IdKind) => string;
  workspaceId: string;
}

export function planDeals(input: DealsInput): DealPlan[] {
  const { rng, account, timeline } = input;
  const out: DealPlan[] = [];
  const { start, end } = timeline;
  const add = (kind: DealPlan['kind'], createdAt: Date, closeAt: Date, outcome: DealPlan['outcome'], label: string) => {
    if (createdAt < start || createdAt > end) return;
    out.push(makeDeal(input, kind, createdAt, closeAt, outcome, label));
  };

  if (account.type === 'customer' && account.customerSince) {
    const since = account.customerSince;
    // The deal that made them a customer, when it falls in the window.
    add('new_business', addDays(since, -rng.int(45, 120)), since, 'won', 'New Business');
    // Annual renewals: opened 90 days ahead; past ones closed (lost at the churn date), the next one open.
    for (
      let renewal = addDays(since, 365);
      renewal.getTime() - 90 * 86_400_000 <= end.getTime();
      renewal = addDays(renewal, 365)
    ) {
      const opened = addDays(renewal, -90);
      const churned = account.churnedAt !== null && Math.abs(daysBetween(account.churnedAt, renewal)) < 200;
      const outcome = renewal > end ? 'open' : churned ? 'lost' : 'won';
      add('renewal', opened, renewal, outcome, `Renewal ${renewal.getUTCFullYear()}`);
      if (churned) break;
    }
    const expansions = rng.int(1, 3);
    for (let k = 0; k < expansions; k++) {
      const created = addDays(since, rng.int(60, 500));
      const close = addDays(created, rng.int(30, 100));
      const outcome = close > end ? 'open' : rng.chance(0.65) ? 'won' : 'lost';
      add(
        'expansion',
        created,
        close,
        outcome,
        rng.pick(['Expansion - CS team', 'Expansion - EMEA', 'Expansion - SDR team', 'Add-on seats']),
      );
    }
  } else if (isBuyerType(account.type) || account.contacts.some((c) => c.row.isBuyer)) {
    // Prospects: opportunities opened one after another, sometimes overlapping (a second team, a
    // pilot next to the main deal). Most end lost or still open; untyped accounts sometimes win.
    const n = account.type === 'sales_target' ? rng.int(2, 5) : account.type === null ? rng.int(1, 3) : 1;
    let cursor = addDays(start, rng.int(0, 240));
    for (let k = 0; k < n && cursor < end; k++) {
      const close = addDays(cursor, rng.int(40, 160));
      const wonPossible = account.type !== 'sales_target';
      const outcome = close > end || rng.chance(0.4) ? 'open' : wonPossible && rng.chance(0.4) ? 'won' : 'lost';
      add(
        'new_business',
        cursor,
        close,
        outcome,
        k === 0 ? 'New Business' : rng.pick(['Pilot', 'Team Plan', 'Enterprise', 'Second Attempt', 'EMEA Rollout']),
      );
      cursor = addDays(cursor, rng.int(25, 150));
    }
  }
  return out;
}

const OPEN_STAGE_WEIGHTS: readonly (readonly [number, number])[] = [
  [0, 2],
  [1, 3],
  [2, 3],
  [3, 2],
  [4, 1.5],
];

function makeDeal(
  input: DealsInput,
  kind: DealPlan['kind'],
  createdAt: Date,
  plannedClose: Date,
  outcome: DealPlan['outcome'],
  label: string,
): DealPlan {
  const { rng, account, timeline, id, workspaceId } = input;
  let closeAt = plannedClose;
  if (outcome === 'open' && kind !== 'renewal') {
    // Pick where the open deal stands today, then set its expected close so that it is there.
    const index = rng.weighted(OPEN_STAGE_WEIGHTS);
    const progress = (index + 0.1 + rng.next() * 0.8) / OPEN_STAGES.length;
    const elapsed = Math.max(7, daysBetween(createdAt, timeline.end));
    closeAt = addDays(createdAt, Math.max(elapsed + 7, Math.round(elapsed / progress)));
  }
  const seatFactor = kind === 'expansion' ? rng.around(0.35, 0.2, 0.1, 0.8) : 1;
  const seats = Math.max(5, Math.round(account.seats * seatFactor));
  const amount = Math.round((seats * account.price * 12 * rng.around(1, 0.15, 0.7, 1.3)) / 100) * 100;
  const stage: DealStage =
    outcome === 'won'
      ? 'closed_won'
      : outcome === 'lost'
        ? 'closed_lost'
        : openStageAt(createdAt, closeAt, timeline.end);
  const lastTouch = outcome === 'open' ? addDays(timeline.end, -rng.int(0, 20)) : addDays(closeAt, rng.int(0, 3));
  const updatedAt = lastTouch > timeline.end ? timeline.end : lastTouch < createdAt ? createdAt : lastTouch;
  const currency = account.row.region ? (CURRENCY_BY_REGION[account.row.region] ?? 'USD') : 'USD';
  const dealId = id('deal');
  return {
    row: {
      id: dealId,
      workspaceId,
      accountId: account.row.id,
      name: `${account.row.name} - ${label}`,
      stage,
      // One opportunity in twelve has no amount yet: unknown stays null, never 0.
      amount: rng.chance(1 / 12) && outcome === 'open' ? null : amount,
      currency,
      closeDate: isoDate(closeAt),
      ownerEmail: account.owner.email,
      probability: STAGE_PROBABILITY[stage],
      isClosed: outcome !== 'open',
      isWon: outcome === 'won',
      source: 'salesforce',
      externalId: `006${dealId.slice(-12)}`,
      occurredAt: createdAt,
      updatedAt,
    },
    accountId: account.row.id,
    kind,
    createdAt,
    closeAt,
    outcome,
  };
}

/**
 * What an assessor writes for each criterion, by how it stands: a healthy note for an identified or
 * validated criterion, a risk for one at risk, and the "not known yet" note for a score of 0. A note
 * that contradicts its status ("Champion is engaged" on a champion at risk) would make an answer
 * about risks read the opposite of the data.
 */
interface CriterionNotes {
  healthy: readonly string[];
  risk: readonly string[];
  unknown: string;
}

const NOTES: Record<QualificationCriterion, CriterionNotes> = {
  metrics: {
    healthy: [
      'Goal: cut new-rep ramp from six to four months.',
      'Wants a 10% lift in win rate on competitive deals.',
      'Measuring hours saved on call notes per rep per week.',
    ],
    risk: [
      'Success metric disputed; the business case is not signed off.',
      'Their target moved and the pilot cannot show it.',
    ],
    unknown: 'No agreed success metric yet.',
  },
  economic_buyer: {
    healthy: ['VP of Sales owns the budget and joined the demo.', 'CRO is the economic buyer; sponsor call booked.'],
    risk: ['CFO signs anything over the threshold; not met yet.', 'Economic buyer unclear after the reorg.'],
    unknown: 'Economic buyer not identified yet.',
  },
  decision_criteria: {
    healthy: [
      'CRM sync quality, SSO, and price per seat.',
      'Transcription accuracy on their own calls is the main criterion.',
      'Security review plus ease of rollout.',
    ],
    risk: ['Criteria rewritten around a competitor’s feature list.', 'Price per seat now outweighs everything else.'],
    unknown: 'Criteria not written down yet.',
  },
  decision_process: {
    healthy: [
      'Pilot, security review, then procurement.',
      'Bake-off against a competitor, then exec review.',
      'Committee decision at the quarterly planning meeting.',
    ],
    risk: ['Decision pushed to next quarter’s committee.', 'A new approver was added late in the process.'],
    unknown: 'Process unknown; champion is finding out.',
  },
  paper_process: {
    healthy: [
      'Procurement needs vendor onboarding and a PO.',
      'Legal redlines on the DPA in progress.',
      'Signature through their procurement portal, about three weeks.',
    ],
    risk: ['Legal stalled on the DPA redlines.', 'Procurement froze new vendor onboarding.'],
    unknown: 'Paper process not discussed.',
  },
  identify_pain: {
    healthy: [
      'Managers cannot see what happens on calls.',
      'Forecast misses driven by poor deal visibility.',
      'Reps spend hours writing call notes.',
    ],
    risk: ['Pain no longer a priority after the reorg.', 'They say the current process is good enough.'],
    unknown: 'Pain acknowledged but not quantified.',
  },
  champion: {
    healthy: ['RevOps lead is selling internally for us.', 'Champion is engaged and has influence.'],
    risk: ['Champion left; need a new one.', 'Champion has gone quiet and lost influence.'],
    unknown: 'No clear champion.',
  },
  competition: {
    healthy: ['No competitor in the deal.', 'Incumbent tool up for renewal and they want out.'],
    risk: ['Also evaluating a competitor on price.', 'Competitor offered a steep discount.'],
    unknown: 'Competition not discussed yet.',
  },
};

/**
 * MEDDPICC assessments: an early one once discovery is under way, and a later one for deals that
 * reached proposal. Scores rise as deals advance; lost deals show the criteria that went wrong.
 */
export function planQualification(
  rng: Rng,
  deal: DealPlan,
  id: (kind: IdKind) => string,
  workspaceId: string,
  timeline: CorpusTimeline,
): QualificationRow[] {
  const rows: QualificationRow[] = [];
  const reached = stageAt(deal, deal.outcome === 'open' ? timeline.end : addDays(deal.closeAt, -1));
  const reachedIndex = OPEN_STAGES.indexOf(reached);
  if (deal.outcome === 'open' && reachedIndex < 1) return rows;
  const span = Math.max(2, daysBetween(deal.createdAt, deal.outcome === 'open' ? timeline.end : deal.closeAt));
  const assessments = deal.outcome !== 'open' || reachedIndex >= 3 ? [0.25, 0.8] : [0.3];
  const weakSpots = new Set(rng.sample(QUALIFICATION_CRITERIA, deal.outcome === 'lost' ? 3 : 1));
  assessments.forEach((at, round) => {
    const assessedAt = addDays(deal.createdAt, Math.round(span * at));
    if (assessedAt > timeline.end) return;
    for (const criterion of QUALIFICATION_CRITERIA) {
      const weak = weakSpots.has(criterion);
      const base = round === 0 ? rng.int(0, 2) : rng.int(1, 3);
      const score = weak && round > 0 ? Math.min(base, 1) : base;
      const status: QualificationStatus =
        weak && round > 0 ? 'at_risk' : score === 0 ? 'unknown' : score >= 3 ? 'validated' : 'identified';
      const notes = NOTES[criterion];
      rows.push({
        id: id('qualification'),
        workspaceId,
        dealId: deal.row.id,
        framework: 'MEDDPICC',
        criterion,
        status,
        score,
        notes: score === 0 ? notes.unknown : rng.pick(status === 'at_risk' ? notes.risk : notes.healthy),
        assessedBy: deal.row.ownerEmail ?? null,
        occurredAt: assessedAt,
      });
    }
  });
  return rows;
}
