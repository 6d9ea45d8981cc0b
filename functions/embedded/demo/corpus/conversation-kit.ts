/** What calls and emails share: the plan of one conversation, its speakers, slots and topic choice. */
import type { Side } from '../../../../schema/warehouse-columns.js';
import type { FreshnessAccumulator, ThemeAccumulator } from './accumulators.js';
import type { DealPlan } from './deals.js';
import type { AccountPlan, ContactPlan, TeamMember } from './people.js';
import type { IdKind, Rng } from './prng.js';
import type { CorpusChunk } from './rows.js';
import type { Scenario, ScenarioKey } from './scenarios.js';
import { calendarSlots, type Slots } from './text.js';
import { NON_BUYER_TOPICS, THEMES, TOPICS, type Topic } from './topics.js';
import { INTEGRATIONS, SELLER } from './vocabulary.js';

export interface ConversationContext {
  rng: Rng;
  workspaceId: string;
  id: (kind: IdKind) => string;
  team: readonly TeamMember[];
  now: Date;
  themes: ThemeAccumulator;
  freshness: FreshnessAccumulator;
  out: CorpusChunk;
}

export interface ConversationPlan {
  account: AccountPlan;
  at: Date;
  deal: DealPlan | null;
  scenario: ScenarioKey;
  /** A buyer on a non-buyer account: the only person on the other side. */
  rescueContact: ContactPlan | null;
}

export const TOPIC_BY_KEY = new Map<string, Topic>(
  [...TOPICS, ...Object.values(NON_BUYER_TOPICS)].map((t) => [t.key, t]),
);
export const THEME_LABEL = new Map(THEMES.map((t) => [t.key, t.label]));

/** Which buyer persona usually voices a theme. */
export const VOICE: Record<string, readonly string[]> = {
  pricing_too_high: ['economic_buyer', 'champion'],
  discount_ask: ['procurement', 'economic_buyer', 'champion'],
  budget_freeze: ['economic_buyer', 'champion'],
  soc2_report: ['technical_evaluator'],
  sso_saml: ['technical_evaluator'],
  data_residency: ['legal', 'technical_evaluator'],
  dpa_legal: ['legal', 'procurement'],
  procurement_process: ['procurement', 'champion'],
  executive_alignment: ['champion'],
  roi_business_case: ['economic_buyer', 'champion'],
  api_limits: ['technical_evaluator'],
  warehouse_export: ['technical_evaluator'],
  adoption_training: ['end_user', 'champion'],
  reporting_dashboards: ['end_user', 'economic_buyer'],
  ai_accuracy: ['end_user', 'technical_evaluator'],
};

export interface Line {
  speaker: Speaker;
  text: string;
  themeKey: string | null;
}

export interface Speaker {
  name: string;
  email: string | null;
  side: Side;
  role: string;
  persona: string | null;
  contactId: string | null;
  firstName: string;
}

export const speakerKey = (s: Speaker): string => `${s.side}:${s.email ?? s.name}`;

export const member = (m: TeamMember): Speaker => ({
  name: m.name,
  email: m.email,
  side: 'internal',
  role: m.role,
  persona: null,
  contactId: null,
  firstName: m.name.split(' ')[0] ?? m.name,
});
export const contact = (c: ContactPlan): Speaker => ({
  name: c.row.name,
  email: c.row.email ?? null,
  side: 'external',
  role: c.role,
  persona: c.persona,
  contactId: c.row.id,
  firstName: c.firstName,
});

export function voiceFor(rng: Rng, external: readonly Speaker[], themeKey: string): Speaker {
  const wanted = VOICE[themeKey];
  const matching = wanted ? external.filter((s) => s.persona !== null && wanted.includes(s.persona)) : [];
  return rng.pick(matching.length > 0 ? matching : external);
}

export function slotsFor(ctx: ConversationContext, plan: ConversationPlan, external: readonly Speaker[]): Slots {
  const { rng } = ctx;
  const champion = plan.account.contacts.find((c) => c.row.isChampion);
  const cal = calendarSlots(plan.at, rng.int(1, 4));
  return {
    company: plan.account.row.name,
    competitor: plan.account.competitor,
    integration: rng.pick(INTEGRATIONS),
    price: `$${plan.account.price}`,
    seats: String(Math.max(5, Math.round(plan.account.seats * rng.around(1, 0.3, 0.4, 1.6)))),
    pct: String(rng.pick([10, 15, 20, 25, 30])),
    quarter: cal.quarter,
    month: cal.month,
    weeks: String(rng.int(3, 10)),
    region: plan.account.row.region ?? 'North America',
    champion: champion?.firstName ?? 'our champion',
    name: external[0]?.firstName ?? 'everyone',
    rep: plan.account.owner.name.split(' ')[0] ?? plan.account.owner.name,
    product: SELLER.product,
  };
}

export function chooseTopics(rng: Rng, scenario: Scenario): Topic[] {
  const count = rng.int(scenario.topicCount[0], scenario.topicCount[1]);
  const chosen: Topic[] = [];
  for (let guard = 0; chosen.length < count && guard < 20; guard++) {
    const topic = TOPIC_BY_KEY.get(rng.weighted(scenario.topics));
    if (topic && !chosen.includes(topic)) chosen.push(topic);
  }
  return chosen;
}

/** A template not yet said in this conversation, or null: a rep does not give the same answer twice. */
export function unused(rng: Rng, templates: readonly string[], used: Set<string>): string | null {
  const left = templates.filter((t) => !used.has(t));
  if (left.length === 0) return null;
  const template = rng.pick(left);
  used.add(template);
  return template;
}

/** Draw a template not yet used in this conversation when possible. */
export function fresh(rng: Rng, templates: readonly string[], used: Set<string>): string {
  const unused = templates.filter((t) => !used.has(t));
  const template = rng.pick(unused.length > 0 ? unused : templates);
  used.add(template);
  return template;
}

export function joinPhrases(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export function clampIngest(now: Date, at: Date, lagSeconds: number): Date {
  const t = Math.min(now.getTime() - 30_000, at.getTime() + lagSeconds * 1000);
  return new Date(Math.max(at.getTime(), t));
}
