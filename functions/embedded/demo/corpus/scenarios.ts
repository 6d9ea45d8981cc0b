import type { DealStage } from '../../../../schema/warehouse-deals.js';

/** A kind of conversation: its title and which topics it tends to cover. */
export interface Scenario {
  key: string;
  label: string;
  /** Topic keys (TOPICS or NON_BUYER_TOPICS) with weights. */
  topics: readonly (readonly [string, number])[];
  /** How many topics one conversation covers. */
  topicCount: readonly [number, number];
  /** Whether the people on the other side are buyers (their talk is customer voice). */
  buyer: boolean;
}

const s = (
  key: string,
  label: string,
  topics: Scenario['topics'],
  topicCount: Scenario['topicCount'] = [2, 3],
  buyer = true,
): Scenario => ({ key, label, topics, topicCount, buyer });

export const SCENARIOS = {
  intro: s('intro', 'Intro call', [
    ['value', 3],
    ['competition', 2],
    ['budget', 1],
    ['crm_integration', 1],
  ]),
  discovery: s('discovery', 'Discovery call', [
    ['value', 3],
    ['competition', 2],
    ['crm_integration', 2],
    ['implementation', 1],
    ['budget', 1],
    ['adoption', 1],
  ]),
  demo: s('demo', 'Product demo', [
    ['crm_integration', 3],
    ['data_integrations', 2],
    ['adoption', 2],
    ['competition', 2],
    ['platform', 1],
    ['value', 1],
  ]),
  technical: s('technical', 'Technical deep dive', [
    ['security', 3],
    ['crm_integration', 2],
    ['data_integrations', 2],
    ['platform', 2],
    ['privacy', 1],
  ]),
  security_review: s(
    'security_review',
    'Security review',
    [
      ['security', 4],
      ['privacy', 3],
      ['platform', 1],
    ],
    [2, 2],
  ),
  pricing: s('pricing', 'Pricing discussion', [
    ['pricing', 5],
    ['budget', 2],
    ['competition', 2],
    ['procurement', 1],
    ['value', 1],
  ]),
  proposal: s('proposal', 'Proposal review', [
    ['pricing', 4],
    ['procurement', 2],
    ['value', 2],
    ['implementation', 2],
    ['competition', 1],
  ]),
  legal: s(
    'legal',
    'Legal and procurement sync',
    [
      ['privacy', 3],
      ['procurement', 3],
      ['pricing', 1],
    ],
    [2, 2],
  ),
  executive: s('executive', 'Executive alignment', [
    ['value', 3],
    ['procurement', 2],
    ['pricing', 2],
    ['implementation', 1],
  ]),
  onboarding: s('onboarding', 'Onboarding kickoff', [
    ['implementation', 4],
    ['crm_integration', 2],
    ['adoption', 2],
    ['security', 1],
  ]),
  check_in: s('check_in', 'Customer check-in', [
    ['adoption', 3],
    ['platform', 3],
    ['data_integrations', 1],
    ['value', 1],
    ['renewal', 1],
  ]),
  qbr: s('qbr', 'Quarterly business review', [
    ['value', 3],
    ['adoption', 3],
    ['renewal', 1],
    ['platform', 2],
    ['competition', 1],
  ]),
  renewal: s('renewal', 'Renewal discussion', [
    ['renewal', 5],
    ['pricing', 3],
    ['budget', 2],
    ['competition', 1],
    ['adoption', 1],
    ['champion', 0.5],
  ]),
  at_risk: s('at_risk', 'Account health review', [
    ['renewal', 4],
    ['platform', 2],
    ['adoption', 2],
    ['competition', 2],
    ['budget', 1],
    ['champion', 1],
  ]),
  expansion: s('expansion', 'Expansion discussion', [
    ['value', 4],
    ['pricing', 3],
    ['security', 1],
    ['adoption', 1],
  ]),
  escalation: s(
    'escalation',
    'Support escalation',
    [
      ['platform', 5],
      ['renewal', 1],
    ],
    [1, 2],
  ),
  transition: s(
    'transition',
    'Account transition',
    [
      ['champion', 5],
      ['adoption', 2],
      ['renewal', 2],
    ],
    [2, 2],
  ),
  investor_update: s('investor_update', 'Investor update', [['investor', 1]], [1, 1], false),
  advisor_session: s('advisor_session', 'Advisor session', [['advisor', 1]], [1, 1], false),
  press: s('press', 'Press interview', [['media', 1]], [1, 1], false),
  partnership: s('partnership', 'Partnership sync', [['partnership', 1]], [1, 1], false),
  vendor_pitch: s('vendor_pitch', 'Vendor pitch', [['vendor', 1]], [1, 1], false),
} satisfies Record<string, Scenario>;
export type ScenarioKey = keyof typeof SCENARIOS;

/** What a prospect's call is about, from the stage its deal was in at the time. */
export const SCENARIOS_BY_STAGE: Record<DealStage, readonly (readonly [ScenarioKey, number])[]> = {
  prospecting: [
    ['intro', 2],
    ['discovery', 2],
  ],
  discovery: [
    ['discovery', 3],
    ['demo', 2],
  ],
  evaluation: [
    ['demo', 2],
    ['technical', 2],
    ['security_review', 2],
  ],
  proposal: [
    ['proposal', 2],
    ['pricing', 2],
    ['executive', 1],
    ['security_review', 1],
  ],
  negotiation: [
    ['pricing', 3],
    ['legal', 2],
    ['executive', 1],
  ],
  closed_won: [['onboarding', 1]],
  closed_lost: [['discovery', 1]],
};

export const NON_BUYER_SCENARIO: Record<string, ScenarioKey> = {
  investor: 'investor_update',
  advisor: 'advisor_session',
  media: 'press',
  competitor: 'partnership',
  vendor: 'vendor_pitch',
  partner: 'partnership',
  reseller: 'partnership',
  other: 'partnership',
};

/** Generic lines that frame a conversation. */
export const FRAMING = {
  greeting: [
    'Thanks for making the time today, {name}.',
    'Good to see you again, {name}.',
    'Hi everyone, thanks for joining.',
    'Thanks for hopping on, {name}.',
  ],
  agenda: [
    'I would like to cover {agenda} today and leave time for questions.',
    'On the agenda: {agenda}.',
    'Let us start with {agenda}, if that works.',
  ],
  context: [
    'Sure. For context, we have about {seats} people on the sales team, mostly in {region}.',
    'Happy to. The team has grown a lot this year and we are at around {seats} reps now.',
    'Sounds good. We just finished planning for next year, so the timing is right.',
    'Thanks. A lot has changed since we last spoke, so this is useful.',
    'Works for me. I have a hard stop at the top of the hour.',
    'Sure, {rep}. I also asked a colleague from IT to join in case there are technical questions.',
    'Great. Quick update from our side: we reorganized the {region} team last month.',
    'Thanks for setting this up. Our priorities shifted a bit in {quarter}, so good timing.',
    'Happy to. We are about {seats} reps today and hiring through {month}.',
    'Sounds good. I have read the recap from last time, so we can jump right in.',
  ],
  nextSteps: [
    'Great, I will send a recap with next steps by tomorrow.',
    'I will follow up with the documents we discussed and we can regroup next week.',
    'Let us book thirty minutes next week to review where things stand.',
    'I will loop in our solutions engineer and get back to you by {month}.',
  ],
  ack: [
    'Sounds good, talk then.',
    'Thanks, this was helpful.',
    'Perfect. I will loop in the rest of the team.',
    'Great, we will review internally and get back to you.',
    'Thanks {rep}, this was useful.',
    'Sounds good. I will share this with {champion} and the team.',
    'Works for me. Talk next week.',
    'Thanks both. I will send over what we discussed to the {region} team.',
    'Great, I will check calendars on our side and confirm by {month}.',
    'Appreciate it, {rep}. Let us keep the momentum.',
    'Okay, that helps. I will come back with questions after I talk to finance.',
    'Thanks. I will put this on the agenda for our Monday meeting.',
  ],
} as const;

export const EXCLUSION_REASONS = ['customer_request', 'legal_hold', 'internal_only', 'recorded_by_mistake'] as const;
