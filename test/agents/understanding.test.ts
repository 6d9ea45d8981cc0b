import { describe, expect, it } from 'vitest';
import { readIntent, topicWords, voiceTopic } from '../../functions/agents/local-policy/intent.js';
import { linkEntities } from '../../functions/agents/understanding/entities.js';
import { asksForQuiet, parseAskedPeriod } from '../../functions/search/asked-period.js';
import { nameFromEmail, vocabularyOf } from '../../functions/agents/understanding/vocabulary.js';

/**
 * Reading an ask: the period it names (one parser for the model and the verifier) and the names it
 * holds, linked against a workspace's vocabulary, never guessed from capital letters.
 */

const TODAY = '2026-11-20';

describe('parseAskedPeriod', () => {
  it.each([
    ['How many deals did we win this year?', '2026-01-01', '2027-01-01', 'this year'],
    ['What did customers say about renewal last quarter?', '2026-07-01', '2026-10-01', 'last quarter'],
    ['deals closing next quarter', '2027-01-01', '2027-04-01', 'next quarter'],
    ['What changed with Acme Logistics since last month?', '2026-10-01', '2026-11-21', 'since last month'],
    ['How many deals did we lose in the last 60 days?', '2026-09-21', '2026-11-21', 'in the last 60 days'],
    ["What's closing in the next 30 days?", '2026-11-20', '2026-12-21', 'in the next 30 days'],
    ['What have customers said about data privacy recently?', '2026-08-22', '2026-11-21', 'recently'],
    ['Which deals have gone quiet?', '2026-10-21', '2026-11-21', 'gone quiet'],
    ['Any open deals with no touch in 45 days?', '2026-10-06', '2026-11-21', 'no touch in 45 days'],
    ['calls in March', '2026-03-01', '2026-04-01', 'March'],
    ['since 2026-09-01', '2026-09-01', '2026-11-21', 'since 2026-09-01'],
    ['what happened in Q3', '2026-07-01', '2026-10-01', 'Q3'],
    // What the search planner's own rules read before it asked this parser (one reader since 2026-11-26).
    ['calls since Oct', '2026-10-01', '2026-11-21', 'since Oct'],
    ['renewals from sept 2025', '2025-09-01', '2026-11-21', 'from sept 2025'],
    ['pricing 2025', '2025-01-01', '2026-01-01', '2025'],
    ['2025 calls with Acme', '2025-01-01', '2026-01-01', '2025'],
    ['meetings in May 2025', '2025-05-01', '2025-06-01', 'May 2025'],
    ['calls from March to May', '2026-03-01', '2026-06-01', 'from March to May'],
    ['Which accounts have been quiet?', '2026-10-21', '2026-11-21', 'been quiet'],
    // Units as people shorten them, echoed as they wrote them.
    ['emails this qtr', '2026-10-01', '2027-01-01', 'this qtr'],
    ['won deals last yr', '2025-01-01', '2026-01-01', 'last yr'],
    ['calls in the past 2 wks', '2026-11-06', '2026-11-21', 'in the past 2 wks'],
    // Counts said in words, vague ones too: every rule that reads a count reads the same ones.
    ['how did the last few months go with acme', '2026-08-22', '2026-11-21', 'the last few months'],
    ['deals not touched in a couple of weeks', '2026-11-06', '2026-11-21', 'not touched in a couple of weeks'],
    ['meetings over the next five days', '2026-11-20', '2026-11-26', 'over the next five days'],
    ['calls in the past several days', '2026-11-17', '2026-11-21', 'in the past several days'],
  ])('%s → [%s, %s)', (text, from, to, phrase) => {
    expect(parseAskedPeriod(text, TODAY)).toEqual({ from, to, phrase });
  });

  it('reads no period from deal names, amounts or a verb "may"', () => {
    expect(parseAskedPeriod('Why did we lose Acme Logistics - Renewal 2026', TODAY)).toBeNull();
    expect(parseAskedPeriod('Which deals over $50K are in negotiation?', TODAY)).toBeNull();
    expect(parseAskedPeriod('May I see the deals in proposal?', TODAY)).toBeNull();
    expect(parseAskedPeriod('What did Acme say about the Acme Logistics - Renewal 2027 deal?', TODAY)).toBeNull();
    expect(parseAskedPeriod('Which deals are over 2000 seats?', TODAY)).toBeNull();
    expect(parseAskedPeriod('Which deals are over $2025?', TODAY)).toBeNull();
  });

  it('tells an absence of touch from a window of events', () => {
    expect(asksForQuiet("Which accounts haven't we touched in 60 days?")).toBe(true);
    expect(asksForQuiet('What happened in the last 60 days?')).toBe(false);
  });
});

describe('the topic of a question about what customers say', () => {
  it('is the question without the scaffolding the relevance check sets aside (one list)', () => {
    expect(voiceTopic('What concerns do buyers raise about security?')).toBe('security');
    expect(topicWords('What concerns do buyers raise about security?')).toEqual(['security']);
    expect(voiceTopic('What are the biggest problems customers have with onboarding?')).toBe('onboarding');
  });

  it('reads "not talked to in N weeks" written without an apostrophe as a quiet window', () => {
    expect(parseAskedPeriod('any accounts we havent spoken to in 6 weeks?', TODAY)?.from).toBe('2026-10-09');
    expect(asksForQuiet('any accounts we havent spoken to in 6 weeks?')).toBe(true);
  });

  it('keeps the words that pick records, which can be what customers talk about', () => {
    expect(voiceTopic('What do customers say about value?')).toBe('value');
    expect(topicWords('What do customers say about value?')).toEqual(['value']);
  });
});

describe('linkEntities', () => {
  const vocab = vocabularyOf(
    [
      {
        name: 'Acme Logistics - Renewal 2026',
        account_name: 'Acme Logistics',
        owner_email: 'paula.park@brightwave.io',
      },
      {
        name: 'Willow Logistics - Renewal 2026',
        account_name: 'Willow Logistics',
        owner_email: 'zoe.kim@brightwave.io',
      },
      { name: 'Prism Logistics - Pilot', account_name: 'Prism Logistics', owner_email: 'rhea.okafor@brightwave.io' },
    ],
    [
      { account_name: 'Acme Health', account_industry: 'Biotech', account_region: 'EMEA' },
      { account_name: 'Acme Logistics', account_industry: 'Logistics', account_region: 'North America' },
      { account_name: 'Keystone Health', account_industry: 'Retail', account_region: 'EMEA' },
      { account_name: 'Tidewater Logistics', account_industry: 'Financial Services', account_region: 'EMEA' },
    ],
  );
  const accounts = (ask: string) => linkEntities(ask, vocab).accounts;

  it('never takes a sentence-initial or capitalised word for a name', () => {
    for (const ask of ['Why do customers push back on pricing?', 'Anything new?', 'And what is the total?'])
      expect(accounts(ask)).toEqual([]);
  });

  it('links whole names with typos, lower case and a trailing full stop, and normalizes them', () => {
    expect(accounts('brief me on Keystone Helath')).toEqual([
      { asked: 'Keystone Helath', matches: ['Keystone Health'] },
    ]);
    expect(linkEntities('Prep me for my call with Tidewater Logistics.', vocab).normalized).toBe(
      'Prep me for my call with Tidewater Logistics.',
    );
    expect(accounts('what did tidewater say about budget')[0]!.matches).toEqual(['Tidewater Logistics']);
    expect(accounts('catch me up on acme logistics')[0]!.matches).toEqual(['Acme Logistics']);
  });

  it('keeps a shared first word ambiguous, and does not link a word that is only close to one', () => {
    expect(accounts('prep me for Acme')[0]!.matches).toEqual(['Acme Health', 'Acme Logistics']);
    expect(accounts('prep me for Zanzibar Aerospace')).toEqual([]);
  });

  it('links deal owners by name, deals by account and kind, and regions', () => {
    const e = linkEntities("What's in Rhea Okafor's pipeline in EMEA?", vocab);
    expect(e.owners.map((o) => o.email)).toEqual(['rhea.okafor@brightwave.io']);
    expect(e.regions).toEqual(['EMEA']);
    expect(linkEntities('Why did we lose the Willow Logistics renewal?', vocab).deals).toEqual([
      'Willow Logistics - Renewal 2026',
    ]);
    expect(nameFromEmail('sales@brightwave.io')).toBeNull();
  });
});

describe('who spoke narrows a voice question; it is never its topic', () => {
  const vocab = vocabularyOf(
    [],
    [
      { account_name: 'Acme Logistics', account_industry: 'Retail', account_region: 'North America' },
      { account_name: 'Keystone Health', account_industry: 'Insurance', account_region: 'EMEA' },
    ],
  );
  const voice = (ask: string) => {
    const read = readIntent({ ask, earlierAsks: [], today: TODAY }, vocab);
    if (read.kind !== 'voice') throw new Error(`${ask}: ${read.kind}`);
    return read;
  };

  it.each([
    ['what have EMEA customers said about SSO', 'account_region', ['EMEA'], 'SSO'],
    ['What did North American customers say about uptime?', 'account_region', ['North America'], 'uptime'],
    ['Insurance-industry accounts: what have they said about pricing?', 'account_industry', ['Insurance'], 'pricing'],
    ['Pricing pushback from deals in negotiation — what are they saying?', 'deal_stage', ['negotiation'], 'Pricing'],
    ['What did prospects in evaluation say about GDPR?', 'deal_stage', ['evaluation'], 'GDPR'],
  ])('%s', (ask, field, value, topic) => {
    const read = voice(ask);
    expect(read.segment).toEqual([{ field, op: 'in', value }]);
    expect(read.topic).toContain(topic);
    for (const v of value) expect(read.topic.toLowerCase()).not.toContain(v.toLowerCase());
  });

  it('no segment: the crowd at large', () => {
    expect(voice('what do customers say about pricing?').segment).toEqual([]);
  });
});

describe('names that differ by one character', () => {
  // Account families whose names are one letter apart: a typo of one is the exact name of another.
  const vocab = vocabularyOf(
    [],
    ['ES2004a Design', 'ES2004b Design', 'ES2004c Design', 'ES2011b Design', 'ES2011c Design', 'Acme Logistics'].map(
      (account_name) => ({ account_name }),
    ),
  );
  const linked = (ask: string) => linkEntities(ask, vocab).accounts.flatMap((a) => a.matches);
  const intent = (ask: string) => readIntent({ ask, earlierAsks: [], today: TODAY }, vocab);

  it('links the name written exactly (any case) before any name a typo away', () => {
    expect(linked('What did ES2004c Design say about the remote?')).toEqual(['ES2004c Design']);
    expect(linked('what did es2004c design say about the remote?')).toEqual(['ES2004c Design']);
    expect(linked('brief me on ES2004B DESIGN')).toEqual(['ES2004b Design']);
    expect(linked('what did ES2004c say about pricing')).toEqual(['ES2004c Design']);
    // Two exact names in one ask are two accounts, never one of them twice.
    expect(linked('compare ES2004a Design and ES2004c Design')).toEqual(['ES2004a Design', 'ES2004c Design']);
    expect(intent('What did ES2004c Design say about the remote?')).toMatchObject({
      kind: 'account_topic',
      account: 'ES2004c Design',
    });
  });

  it('still links a real typo when no name is written exactly', () => {
    expect(linked('brief me on Acme Logistcs')).toEqual(['Acme Logistics']);
  });

  it('searches the account for the topic, the account name never part of the topic', () => {
    const read = intent('what customers said about es2011c design decide screen usage');
    expect(read).toMatchObject({ kind: 'account_topic', account: 'ES2011c Design' });
    if (read.kind !== 'account_topic') throw new Error(read.kind);
    expect(topicWords(read.question)).toEqual(['decide', 'screen', 'usage']);
    // A crowd question that names an account as an example keeps the crowd, without the name in its topic.
    const crowd = intent('What do other customers like Acme Logistics say about pricing?');
    expect(crowd).toMatchObject({ kind: 'voice' });
    if (crowd.kind !== 'voice') throw new Error(crowd.kind);
    expect(crowd.topic.toLowerCase()).not.toMatch(/acme|logistics/);
    expect(crowd.topic).toContain('pricing');
  });
});
