/** Calls and meetings: who attends, what is said (turns and utterances), and the interaction row. */
import { buyerSentence, fill, repSentence, wordCount } from './text.js';
import {
  contact,
  member,
  chooseTopics,
  clampIngest,
  fresh,
  joinPhrases,
  slotsFor,
  speakerKey,
  unused,
  voiceFor,
  VOICE,
  THEME_LABEL,
  type ConversationContext,
  type ConversationPlan,
  type Line,
  type Speaker,
} from './conversation-kit.js';
import type { Rng } from './prng.js';
import type { InteractionRow } from './rows.js';
import { FRAMING, SCENARIOS, type Scenario } from './scenarios.js';
import type { Topic } from './topics.js';
import { FIRST_NAMES, LAST_NAMES, SELLER } from './vocabulary.js';

function attendees(
  ctx: ConversationContext,
  plan: ConversationPlan,
  scenario: Scenario,
  topics: readonly Topic[],
): { internal: Speaker[]; external: Speaker[] } {
  const { rng } = ctx;
  const internal = [member(plan.account.owner)];
  const ses = ctx.team.filter((m) => m.role === 'se');
  const managers = ctx.team.filter((m) => m.role === 'sales_manager' || m.role === 'executive');
  if (topics.some((t) => t.technical) && ses.length > 0 && rng.chance(0.7)) internal.push(member(rng.pick(ses)));
  if (
    (plan.scenario === 'executive' || plan.scenario === 'pricing' || plan.scenario === 'at_risk') &&
    managers.length > 0 &&
    rng.chance(0.5)
  )
    internal.push(member(rng.pick(managers)));

  if (plan.rescueContact) return { internal, external: [contact(plan.rescueContact)] };
  const present = plan.account.contacts.filter(
    (c) => (!c.row.leftAt || c.row.leftAt > plan.at) && (scenario.buyer ? c.row.isBuyer : !c.row.isBuyer),
  );
  const pool = present.length > 0 ? present : plan.account.contacts;
  const wanted = scenario.buyer ? rng.int(1, Math.min(3, pool.length)) : rng.int(1, Math.min(2, pool.length));
  // Bring the personas the topics call for first, then whoever else.
  const voices = new Set(topics.flatMap((t) => Object.keys(t.buyer).flatMap((k) => VOICE[k] ?? [])));
  const ranked = rng
    .shuffle(pool)
    .sort((a, b) => Number(voices.has(b.persona ?? '')) - Number(voices.has(a.persona ?? '')));
  const external = ranked.slice(0, wanted).map(contact);
  if (rng.chance(0.08)) {
    // A guest the CRM does not know: a participant with no contact behind it.
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    external.push({
      name: `${first} ${last}`,
      email: `${first}.${last}@${plan.account.row.domain}`.toLowerCase(),
      side: 'external',
      role: 'guest',
      persona: null,
      contactId: null,
      firstName: first,
    });
  }
  return { internal, external };
}

/** Calls and meetings: participants, turns (consecutive speech of one speaker) and utterances. */
export function buildCall(ctx: ConversationContext, plan: ConversationPlan): void {
  const { rng, out } = ctx;
  const scenario: Scenario = SCENARIOS[plan.scenario];
  const topics = chooseTopics(rng, scenario);
  const { internal, external } = attendees(ctx, plan, scenario, topics);
  const slots = slotsFor(ctx, plan, external);
  const used = new Set<string>();
  const owner = internal[0] as Speaker;
  const se = internal.find((s) => s.role === 'se');
  const lines: Line[] = [];
  const say = (speaker: Speaker, text: string, themeKey: string | null = null) =>
    lines.push({ speaker, text, themeKey });
  const concerns: string[] = [];

  const topicPhrases = topics.map((t) => fill(rng.pick(t.summary), slots));
  say(owner, repSentence(rng.pick(FRAMING.greeting), slots));
  say(owner, repSentence(rng.pick(FRAMING.agenda), { ...slots, agenda: joinPhrases(topicPhrases) }));
  say(external[0] as Speaker, repSentence(rng.pick(FRAMING.context), slots));
  for (const topic of topics) {
    const answerer = topic.technical && se ? se : owner;
    say(rng.chance(0.5) ? answerer : owner, repSentence(fresh(rng, topic.prompts, used), slots));
    const themeKeys = Object.keys(topic.buyer);
    const themeKey = rng.pick(themeKeys);
    const speaker = voiceFor(rng, external, themeKey);
    const n = rng.int(1, 3);
    for (let k = 0; k < n; k++)
      say(speaker, buyerSentence(rng, fresh(rng, topic.buyer[themeKey] ?? [], used), slots, used), themeKey);
    concerns.push(themeKey);
    for (let k = rng.int(1, 2); k > 0; k--) {
      const answer = unused(rng, topic.answers[themeKey] ?? [], used);
      if (answer) say(answerer, repSentence(answer, slots));
    }
    if (rng.chance(0.55)) {
      const followKey = rng.pick(themeKeys);
      const follow = unused(rng, topic.buyer[followKey] ?? [], used);
      if (follow) {
        say(voiceFor(rng, external, followKey), buyerSentence(rng, follow, slots, used), followKey);
        const answer = unused(rng, topic.answers[followKey] ?? [], used);
        if (answer) say(answerer, repSentence(answer, slots));
      }
    }
  }
  say(owner, repSentence(rng.pick(FRAMING.nextSteps), slots));
  say(rng.pick(external), repSentence(rng.pick(FRAMING.ack), slots));

  const kind = rng.chance(0.6) ? 'call' : 'meeting';
  const source = kind === 'call' ? 'gong' : rng.chance(0.7) ? 'zoom' : 'google_meet';
  const scheduled = rng.pick(
    plan.scenario === 'qbr' || plan.scenario === 'security_review' ? [45, 60] : [30, 30, 45, 60],
  );
  const durationSeconds = Math.round(scheduled * 60 * rng.around(0.85, 0.2, 0.5, 1.1));
  const interactionId = ctx.id('interaction');
  const everyone = [...internal, ...external];
  const title = callTitle(rng, scenario.label, plan.account.row.name);
  const lead = concerns[0] ? external.find((s) => s.side === 'external') : undefined;
  const summary =
    `${scenario.label} with ${plan.account.row.name}: discussed ${joinPhrases(topicPhrases)}.` +
    (lead && concerns[0]
      ? ` ${lead.firstName} raised ${(THEME_LABEL.get(concerns[0]) ?? concerns[0]).toLowerCase()}.`
      : '') +
    ` Next step: ${rng.pick(NEXT_STEPS)}.`;
  const ingestedAt = clampIngest(ctx.now, plan.at, durationSeconds + rng.int(10, 90) * 60);
  const row: InteractionRow = {
    id: interactionId,
    workspaceId: ctx.workspaceId,
    kind,
    title,
    accountId: plan.account.row.id,
    dealId: plan.deal?.row.id ?? null,
    occurredAt: plan.at,
    durationSeconds,
    direction: null,
    source,
    externalId: `${source}-${interactionId.slice(-12)}`,
    threadId: null,
    summary,
    body: null,
    participantCount: everyone.length,
    externalParticipantCount: external.length,
    ingestedAt,
  };
  out.interactions.push(row);
  ctx.freshness.add(source, 'interactions', plan.at, ingestedAt);
  for (const p of everyone) {
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
  }
  writeTranscript(ctx, interactionId, plan.at, durationSeconds, lines);
}

/** Merge consecutive lines of one speaker into turns; pace them across the call's duration. */
function writeTranscript(
  ctx: ConversationContext,
  interactionId: string,
  at: Date,
  durationSeconds: number,
  lines: readonly Line[],
): void {
  const turns: { speaker: Speaker; lines: Line[] }[] = [];
  for (const line of lines) {
    const last = turns[turns.length - 1];
    if (last && speakerKey(last.speaker) === speakerKey(line.speaker)) last.lines.push(line);
    else turns.push({ speaker: line.speaker, lines: [line] });
  }
  const speech = (text: string) => wordCount(text) / 2.5 + 1;
  const spoken = lines.reduce((s, l) => s + speech(l.text), 0);
  // The transcript keeps the substance of the call; the time between turns stands for the
  // discussion around it, so turns keep a natural length and the gaps stretch to fill the call.
  const gapPerTurn = Math.max(2, (durationSeconds * 0.9 - spoken) / Math.max(1, turns.length));
  let clock = ctx.rng.int(5, 60);
  let utteranceIndex = 0;
  turns.forEach((turn, turnIndex) => {
    const turnId = ctx.id('turn');
    const started = clock;
    for (const line of turn.lines) {
      const utteranceId = ctx.id('utterance');
      ctx.out.utterances.push({
        id: utteranceId,
        workspaceId: ctx.workspaceId,
        interactionId,
        turnId,
        utteranceIndex: utteranceIndex++,
        side: turn.speaker.side,
        speakerName: turn.speaker.name,
        text: line.text,
        occurredAt: at,
      });
      if (line.themeKey && turn.speaker.side === 'external')
        ctx.themes.add(line.themeKey, { id: utteranceId, interactionId, text: line.text, occurredAt: at });
      clock += speech(line.text);
    }
    ctx.out.turns.push({
      id: turnId,
      workspaceId: ctx.workspaceId,
      interactionId,
      turnIndex,
      speakerName: turn.speaker.name,
      speakerEmail: turn.speaker.email,
      side: turn.speaker.side,
      startedAtSeconds: Math.round(started * 10) / 10,
      endedAtSeconds: Math.round(clock * 10) / 10,
      text: turn.lines.map((l) => l.text).join(' '),
      occurredAt: at,
    });
    clock += gapPerTurn * ctx.rng.around(1, 0.5, 0.2, 1.8);
  });
}

const NEXT_STEPS = [
  'send the recap and proposal',
  'share the SOC 2 report and security documentation',
  'schedule a technical session with IT',
  'book time with the economic buyer',
  'prepare a revised quote',
  'set up a pilot on their own calls',
  'draft a mutual close plan',
  'follow up with usage data',
] as const;

function callTitle(rng: Rng, label: string, company: string): string {
  switch (rng.int(0, 2)) {
    case 0:
      return `${company} <> ${SELLER.company} | ${label}`;
    case 1:
      return `${label}: ${company}`;
    default:
      return `${company} - ${label}`;
  }
}
