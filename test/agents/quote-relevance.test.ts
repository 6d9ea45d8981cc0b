import { describe, expect, it } from 'vitest';
import type { QuoteCandidate } from '../../functions/agents/local-policy/evidence.js';
import { keptAsOnTopic } from '../../functions/agents/local-policy/quote-relevance.js';
import { mentionsTopic, requiredStems } from '../../functions/agents/local-policy/shape-voice.js';
import { topicOf } from '../../functions/agents/relevance.js';

/**
 * Which turns the account-topic plan may quote beside the ones naming the topic's words as written:
 * those the verifier keeps on the topic (quote-relevance.ts). Spoken turns say a topic in the form
 * their sentence needs.
 */

const candidate = (text: string): QuoteCandidate => ({
  interactionId: 'call-1',
  turnId: 'turn-1',
  speaker: 'Marketing',
  side: 'external',
  occurredAt: null,
  account: 'ES2002a Design',
  deal: null,
  text,
});

describe('a quote the plan keeps by the verifier’s judgement', () => {
  const question = 'What did the group think of the recognition technology?';
  const topic = topicOf(question);
  if (!topic) throw new Error('the question has a topic');
  const words = 'recognition technology';
  const kept = keptAsOnTopic(topic, words);

  it('keeps a turn saying the topic in another form of its words, which a word match misses', () => {
    const text = 'Could it recognise your voice , something technological like that ?';
    expect(mentionsTopic(text, requiredStems(words))).toBe(false);
    expect(kept(candidate(text))).toBe(true);
  });

  it('leaves out a turn about something else', () => {
    expect(kept(candidate('I think we should meet again on Thursday afternoon to go over the budget.'))).toBe(false);
  });
});
