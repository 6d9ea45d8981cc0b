import { describe, expect, it } from 'vitest';
import { narrowedHeads } from '../../functions/agents/understanding/topic-heads.js';
import { relevanceScore, topicOf } from '../../functions/agents/relevance.js';
import { topicTerms } from '../../functions/search/topic-terms.js';

/**
 * A compound's head does not stand for the compound: a text saying only "connector" is about some
 * connector, not the "zapier connector" asked. The phrases are none of the demo corpus's topics, and
 * the names are products it never mentions, so nothing passes by a table of its words.
 */

describe('the heads a topic narrows', () => {
  it.each([
    ['zapier connector', ['connector']],
    ['a marketo sync', ['sync']],
    ['the pipedrive plugin', ['plugin']],
    ['okta provisioning', ['provisioning']],
    ['warehouse exports', ['exports']],
    ['webhook retries for admins', ['retries']],
    ['audit logs', ['logs']],
  ])('%j narrows %j', async (topic, heads) => {
    expect(await narrowedHeads(topic)).toEqual(heads);
  });

  it.each([
    'better reporting',
    'faster exports',
    'new integrations',
    'improved dashboards',
    'reporting',
    'export to csv',
    'residency EU',
  ])('a describing word, a lone noun or a name last narrows nothing: %j', async (topic) => {
    expect(await narrowedHeads(topic)).toEqual([]);
  });
});

describe('a text holding only the head is about another of its kind', () => {
  const texts = [
    'Is there a BigQuery connector, or do we build it ourselves?',
    'We would love a Zapier integration for the alerts.',
    'Can the Zapier connector post to our channel?',
    'Pricing looks fine.',
  ];

  it('the topic terms keep the texts that hold the modifier', async () => {
    const terms = topicTerms('zapier connector', { texts, heads: await narrowedHeads('zapier connector') });
    expect(texts.filter((t) => terms.matches(t))).toEqual([texts[1], texts[2]]);
    expect(terms.lookedFor()).toContain('("connector" only with another of them)');
    // Without the heads, the head alone matched: the broader reading the narrowing replaces.
    expect(topicTerms('zapier connector', { texts }).matches(texts[0]!)).toBe(true);
  });

  it('the relevance check scores such a text 0, and keeps the one naming the modifier', async () => {
    const question = 'what did customers say about the zapier connector?';
    const topic = topicOf(question, [], await narrowedHeads(question))!;
    expect(relevanceScore(topic, texts[0]!)).toBe(0);
    expect(relevanceScore(topic, texts[2]!)).toBeGreaterThan(0.5);
    // A describing word narrows nothing: any reporting quote is about "better reporting".
    const reporting = topicOf('better reporting', [], await narrowedHeads('better reporting'))!;
    expect(reporting.narrowed.size).toBe(0);
  });
});
