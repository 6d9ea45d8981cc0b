import { beforeAll, describe, expect, it } from 'vitest';
import { InterpretationSchema, type Interpretation } from '../../functions/agents/understanding/interpretation.js';
import { readQuestion } from '../../functions/agents/understanding/reader.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';
import { vocabularyOf } from '../../functions/agents/understanding/vocabulary.js';

/**
 * A customer asking, in whatever verb the asker chose, is a feature-request question: the customer side
 * is the subject and the verb takes what is wanted, after "for" or directly after "want" or "need". The
 * asker's own wanting, and a verb's other senses with another subject, are read as before.
 */

const TODAY = '2026-11-20';
const vocab = vocabularyOf(
  [{ name: 'Acme Logistics - Renewal 2026', account_name: 'Acme Logistics', owner_email: 'paula.park@brightwave.io' }],
  [{ account_name: 'Acme Logistics', account_industry: 'Logistics', account_region: 'EMEA' }],
);

beforeAll(loadTokenizer);

const read = (ask: string): Interpretation => {
  const r = readQuestion({ ask, earlierAsks: [], today: TODAY }, vocab);
  if (!r) throw new Error(`no reading of "${ask}"`);
  return InterpretationSchema.parse(r);
};

describe('a customer asking, in any verb', () => {
  it.each([
    ['anyone pushing for a HubSpot integration lately?', 'HubSpot integration', 'pushing for'],
    ["who's been pressing us for SSO", 'SSO', 'pressing us for'],
    ['which prospects are lobbying for a mobile app', 'mobile app', 'lobbying for'],
    ['are buyers hoping for offline mode?', 'offline mode', 'hoping for'],
    ['how many accounts want a slack integration', 'slack integration', 'want'],
    ['which customers need audit logs', 'audit logs', 'need'],
    // An -ing form the tagger took for a noun, an adverb between the verb and "for", "for" left at the end.
    ["who's been nagging us for a zapier connector this quarter?", 'zapier connector', 'nagging us for'],
    ['what are EMEA accounts pushing hardest for?', null, 'pushing hardest for'],
    ['what are customers really pushing for?', null, 'pushing for'],
  ] as const)('"%s" asks for feature requests about %s, read through "%s"', (ask, topic, words) => {
    const r = read(ask);
    expect(r.analysis).toBe('feature_requests');
    expect(r.topic).toBe(topic);
    expect(r.near_words).toContainEqual({ word: words, as: 'ask for' });
  });

  it('shows the accounts when the question asks who, and only then', () => {
    for (const ask of [
      'who asked for SSO',
      'which customers want webhooks',
      'what big accounts keep pushing for exports',
    ])
      expect(read(ask).show, ask).toContain('account_name');
    for (const ask of ['top feature requests', 'how many accounts asked for slack alerts'])
      expect(read(ask).show, ask).not.toContain('account_name');
    // Who asks is never what is asked for.
    expect(read('has anybody asked for a microsoft integration?').topic).toBe('microsoft integration');
  });

  it("keeps the asker's own wanting, and a verb's other sense with another subject, as they were read", () => {
    expect(read('i want to see deals closing this month').analysis).toBe('records');
    expect(read('which deals are pushed to next quarter').analysis).toBe('slipped');
    expect(read('which customers pay for the premium tier').analysis).not.toBe('feature_requests');
    // "Want" with nothing wanted right after it asks what customers say of a subject (the intent reader's).
    const said = readQuestion(
      { ask: 'What do customers want from reporting and dashboards?', earlierAsks: [], today: TODAY },
      vocab,
    );
    expect(said?.analysis ?? null).not.toBe('feature_requests');
  });
});
