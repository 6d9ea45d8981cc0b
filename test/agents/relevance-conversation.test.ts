import { describe, expect, it } from 'vitest';
import { keptAsOnTopic } from '../../functions/agents/local-policy/quote-relevance.js';
import type { QuoteCandidate } from '../../functions/agents/local-policy/evidence.js';
import {
  RELEVANCE_THRESHOLD,
  relevanceInConversation,
  relevanceScore,
  topicOf,
} from '../../functions/agents/relevance.js';

/**
 * A spoken turn read in its conversation (relevance.ts, relevanceInConversation): a turn inside a
 * discussion of the topic is on it though it names none of the topic's words; a turn next to one
 * mention, a filler, or a turn with no conversation around it is judged on its own words.
 */

const topic = topicOf('What did they say about the battery life of the remote?');
if (!topic) throw new Error('the question has a topic');

const onIt = 'The battery life of the remote matters most to me.';
const alsoOnIt = 'A remote whose battery dies in a week is no good.';
const reply = 'I would rather we charge it on a little stand every night then.';
const filler = 'Yeah , sure .';

describe('a turn read in its conversation', () => {
  it('holds none of the topic on its own', () => {
    expect(relevanceScore(topic, reply)).toBeLessThan(RELEVANCE_THRESHOLD);
    expect(relevanceScore(topic, onIt)).toBeGreaterThanOrEqual(0.5);
    expect(relevanceScore(topic, alsoOnIt)).toBeGreaterThanOrEqual(0.5);
  });

  it('is on the topic inside a discussion of it: on-topic turns before and after', () => {
    expect(relevanceInConversation(topic, reply, { before: [onIt], after: [alsoOnIt] })).toBeGreaterThanOrEqual(
      RELEVANCE_THRESHOLD,
    );
  });

  it('is not lifted by one side alone: next to a mention is as often the change of subject after it', () => {
    expect(relevanceInConversation(topic, reply, { before: [onIt], after: [] })).toBeLessThan(RELEVANCE_THRESHOLD);
    expect(relevanceInConversation(topic, reply, { before: [onIt], after: [filler] })).toBeLessThan(
      RELEVANCE_THRESHOLD,
    );
  });

  it('never lifts a filler, which says nothing of its own', () => {
    expect(relevanceInConversation(topic, filler, { before: [onIt], after: [alsoOnIt] })).toBeLessThan(
      RELEVANCE_THRESHOLD,
    );
  });

  it('never scores below the turn alone', () => {
    expect(relevanceInConversation(topic, onIt, { before: [filler], after: [filler] })).toBe(
      relevanceScore(topic, onIt),
    );
  });
});

const candidate = (turnId: string, text: string): QuoteCandidate => ({
  interactionId: 'call-1',
  turnId,
  speaker: 'A customer',
  side: 'external',
  occurredAt: null,
  account: 'Acme',
  deal: null,
  text,
});

describe('quotes a plan picks (keptAsOnTopic)', () => {
  const row = (id: string, index: number, text: string, interaction = 'call-1') => ({
    id,
    interaction_id: interaction,
    turn_index: index,
    text,
  });

  it('keeps a turn the searches returned inside a discussion of the topic', () => {
    const kept = keptAsOnTopic(topic, 'battery life remote', [
      row('t1', 1, onIt),
      row('t2', 2, reply),
      row('t3', 3, alsoOnIt),
    ]);
    expect(kept(candidate('t2', reply))).toBe(true);
  });

  it('reads a fuzzy row’s matching turns as neighbours too', () => {
    const kept = keptAsOnTopic(topic, 'battery life remote', [
      {
        id: 'call-1',
        matching_turns: [
          { turn_id: 't1', turn_index: 1, text: onIt },
          { turn_id: 't3', turn_index: 3, text: alsoOnIt },
        ],
      },
      row('t2', 2, reply),
    ]);
    expect(kept(candidate('t2', reply))).toBe(true);
  });

  it('does not take turns of another conversation, or turns further away, as neighbours', () => {
    const otherCall = keptAsOnTopic(topic, 'battery life remote', [
      row('t1', 1, onIt, 'call-2'),
      row('t2', 2, reply),
      row('t3', 3, alsoOnIt, 'call-2'),
    ]);
    expect(otherCall(candidate('t2', reply))).toBe(false);
    const farAway = keptAsOnTopic(topic, 'battery life remote', [
      row('t1', 1, onIt),
      row('t2', 5, reply),
      row('t3', 9, alsoOnIt),
    ]);
    expect(farAway(candidate('t2', reply))).toBe(false);
  });
});
