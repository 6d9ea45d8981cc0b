/** Emails: inbound in the buyer's words, outbound in the rep's, threaded per account. */
import { buyerSentence, fill, repSentence } from './text.js';
import {
  chooseTopics,
  clampIngest,
  contact,
  fresh,
  member,
  slotsFor,
  unused,
  type ConversationContext,
  type ConversationPlan,
  type Speaker,
} from './conversation-kit.js';
import type { ContactPlan } from './people.js';
import { SCENARIOS, type Scenario } from './scenarios.js';

const EMAIL_OPENINGS = {
  inbound: [
    'Following up on our call.',
    'A couple of things came up internally.',
    'Quick note before our next meeting.',
    'Thanks for the time last week.',
    'Circling back on this.',
  ],
  outbound: [
    'Thanks again for the time today.',
    'Following up on your questions.',
    'As promised, a quick update.',
    'Hope your week is going well.',
    'Circling back on our conversation.',
  ],
} as const;

export interface EmailThread {
  threadId: string;
  subject: string;
  lastAt: Date;
  contact: ContactPlan;
}

/**
 * One email. Inbound mail carries the buyer's words (their concerns, in the same voice as on
 * calls); outbound carries the rep's. A reply continues a recent thread of the same account.
 */
export function buildEmail(ctx: ConversationContext, plan: ConversationPlan, thread: EmailThread | null): EmailThread {
  const { rng, out } = ctx;
  const scenario: Scenario = SCENARIOS[plan.scenario];
  const [topic] = chooseTopics(rng, { ...scenario, topicCount: [1, 1] });
  const contactPool = plan.rescueContact
    ? [plan.rescueContact]
    : plan.account.contacts.filter(
        (c) => (!c.row.leftAt || c.row.leftAt > plan.at) && (scenario.buyer ? c.row.isBuyer : !c.row.isBuyer),
      );
  const counterpart = thread?.contact ?? rng.pick(contactPool.length > 0 ? contactPool : plan.account.contacts);
  const owner = plan.account.owner;
  const them = contact(counterpart);
  const slots = slotsFor(ctx, plan, [them]);
  const inbound = rng.chance(0.45);
  const used = new Set<string>();
  const sentences: string[] = [];
  if (topic) {
    if (inbound) {
      const keys = Object.keys(topic.buyer);
      for (let k = rng.int(1, 2); k > 0; k--)
        sentences.push(buyerSentence(rng, fresh(rng, topic.buyer[rng.pick(keys)] ?? [], used), slots, used));
    } else {
      const answers = topic.answers[rng.pick(Object.keys(topic.answers))] ?? [];
      for (let k = rng.int(1, 2); k > 0; k--) {
        const answer = unused(rng, answers, used);
        if (answer) sentences.push(repSentence(answer, slots));
      }
    }
  }
  const ownerFirst = owner.name.split(' ')[0] ?? owner.name;
  const opening = rng.pick(inbound ? EMAIL_OPENINGS.inbound : EMAIL_OPENINGS.outbound);
  const body = inbound
    ? `Hi ${ownerFirst},\n\n${opening} ${sentences.join(' ')}\n\nThanks,\n${counterpart.firstName}`
    : `Hi ${counterpart.firstName},\n\n${opening} ${sentences.join(' ')}\n\nBest,\n${ownerFirst}`;
  const newSubject = fill(rng.pick(topic?.subjects ?? ['Following up']), slots).replace(/^Re: /, '');
  const subject = thread
    ? thread.subject.startsWith('Re: ')
      ? thread.subject
      : `Re: ${thread.subject}`
    : newSubject.charAt(0).toUpperCase() + newSubject.slice(1);
  const interactionId = ctx.id('interaction');
  const threadId = thread?.threadId ?? `thread-${interactionId.slice(-12)}`;
  const source = owner.mailSource;
  const ingestedAt = clampIngest(ctx.now, plan.at, rng.int(1, 15) * 60);
  const cc = !inbound && rng.chance(0.3) ? ctx.team.find((m) => m.role === 'sales_manager') : undefined;
  const people: Speaker[] = [
    inbound ? them : member(owner),
    inbound ? member(owner) : them,
    ...(cc ? [member(cc)] : []),
  ];
  out.interactions.push({
    id: interactionId,
    workspaceId: ctx.workspaceId,
    kind: 'email',
    title: subject,
    accountId: plan.account.row.id,
    dealId: plan.deal?.row.id ?? null,
    occurredAt: plan.at,
    durationSeconds: null,
    direction: inbound ? 'inbound' : 'outbound',
    source,
    externalId: `${source}-${interactionId.slice(-12)}`,
    threadId,
    summary: null,
    body,
    participantCount: people.length,
    externalParticipantCount: people.filter((p) => p.side === 'external').length,
    ingestedAt,
  });
  ctx.freshness.add(source, 'interactions', plan.at, ingestedAt);
  people.forEach((p) => {
    out.participants.push({
      id: ctx.id('participant'),
      workspaceId: ctx.workspaceId,
      interactionId,
      contactId: p.contactId,
      name: p.name,
      email: p.email,
      side: p.side,
      role: p.role,
    });
  });
  return { threadId, subject, lastAt: plan.at, contact: counterpart };
}
