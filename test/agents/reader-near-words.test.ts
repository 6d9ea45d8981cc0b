import { beforeAll, describe, expect, it } from 'vitest';
import { InterpretationSchema, type Interpretation } from '../../functions/agents/understanding/interpretation.js';
import { LEXICON } from '../../functions/agents/understanding/lexicon.js';
import NEAR_WORDS from '../../functions/agents/understanding/near-words.json';
import { isScaffoldWord } from '../../functions/agents/understanding/question-words.js';
import { readQuestion } from '../../functions/agents/understanding/reader.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';
import { vocabularyOf } from '../../functions/agents/understanding/vocabulary.js';

/**
 * Reading a question worded with words nobody wrote into the lexicon, by what they mean: a word WordNet
 * says shares a sense with a lexicon phrase is read as it (near-words.ts), and the reading says so; a
 * reason asked beside an analysis that gives reasons is that analysis; a part that asks only what an
 * analysis already holds of its accounts is answered by it; a verb is never what a request is about.
 */

const TODAY = '2026-11-20';
const vocab = vocabularyOf(
  [
    { name: 'Acme Logistics - Renewal 2026', account_name: 'Acme Logistics', owner_email: 'paula.park@brightwave.io' },
    { name: 'Acme Logistics - New Business', account_name: 'Acme Logistics', owner_email: 'zoe.kim@brightwave.io' },
    { name: 'Beacon Logistics - Renewal 2027', account_name: 'Beacon Logistics', owner_email: 'zoe.kim@brightwave.io' },
    { name: 'Petition Health - Pilot', account_name: 'Petition Health', owner_email: 'oscar.rossi@brightwave.io' },
  ],
  [
    { account_name: 'Acme Logistics', account_industry: 'Logistics', account_region: 'North America' },
    { account_name: 'Beacon Logistics', account_industry: 'Logistics', account_region: 'EMEA' },
    { account_name: 'Petition Health', account_industry: 'Healthcare', account_region: 'EMEA' },
  ],
);

beforeAll(async () => {
  await loadTokenizer();
});

const read = (ask: string): Interpretation | null => {
  const r = readQuestion({ ask, earlierAsks: [], today: TODAY }, vocab);
  if (r) InterpretationSchema.parse(r);
  return r;
};

describe('the near-words table', () => {
  const words = NEAR_WORDS.words as unknown as Record<string, [string, string, string]>;
  const phrases = new Set(LEXICON.map(([phrase]) => phrase));

  it('reads every word as a phrase the lexicon holds, and holds no lexicon phrase or question word itself', () => {
    expect(Object.keys(words).length).toBeGreaterThan(300);
    for (const [word, [phrase]] of Object.entries(words)) {
      expect(phrases.has(phrase), `${word} → ${phrase}`).toBe(true);
      expect(phrases.has(word), word).toBe(false);
    }
    expect(Object.keys(words).filter((w) => isScaffoldWord(w))).toEqual([]);
  });
});

describe('a word the lexicon does not hold, read by its meaning', () => {
  it.each([
    ['what are customers begging us to build? rank by how many accounts', 'feature_requests', 'begging', 'request'],
    ['which prospects are soliciting an api', 'feature_requests', 'soliciting', 'request'],
    ['which renewals look rickety', 'renewal_risk', 'rickety', 'shaky'],
    ['who are our contenders in deals lately', 'competitors', 'contenders', 'competitor'],
    ['deals we shelved this quarter', 'slipped', 'shelved', 'postpone'],
  ])('%s', (ask, analysis, word, as) => {
    const r = read(ask);
    expect(r?.analysis).toBe(analysis);
    expect(r?.near_words).toContainEqual({ word, as });
    expect(r?.unexplained).not.toContain(word);
  });

  it('reads appointments as meetings, with the account and period the words give', () => {
    const r = read('any appointments with acme logistics last month');
    expect(r?.filters).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'kind', value: 'meeting' })]));
    expect(r?.names.accounts).toEqual(['Acme Logistics']);
    expect(r?.near_words).toEqual([{ word: 'appointments', as: 'meeting' }]);
  });

  it('reads no word of many senses by one of them ("ordered" is no request)', () => {
    const r = read('open deals ordered by amount, smallest first');
    expect(r?.analysis).toBe('records');
    expect(r?.near_words).toEqual([]);
    expect(r?.order).toMatchObject({ dir: 'asc' });
  });

  it('never reads a name of the workspace as a near word', () => {
    const r = read('how many open deals does Petition Health have');
    expect(r?.names.accounts).toEqual(['Petition Health']);
    expect(r?.near_words).toEqual([]);
    expect(r?.analysis).toBe('records');
  });

  it("leaves a question in the lexicon's own words as it was", () => {
    expect(read('which renewals are at risk?')?.near_words).toEqual([]);
  });
});

describe('a reason asked beside an analysis that gives reasons', () => {
  it('is the renewal-risk analysis, which says why each renewal looks at risk', () => {
    const r = read('any renewals looking shaky for next quarter, and why');
    expect(r?.analysis).toBe('renewal_risk');
    expect(r?.parts).toEqual([]);
    expect(r?.period?.phrase).toBe('next quarter');
  });

  it('stays why deals were lost when the words say they were lost', () => {
    expect(read('why did we lose renewals this year')?.analysis).toBe('losses');
  });
});

describe('a part that asks only what the analysis holds of its accounts', () => {
  it('is read with the champion changes, which list the deals since each departure', () => {
    const r = read(
      'which of our customers lost their main champion this year and did we still close anything with them after?',
    );
    expect(r?.analysis).toBe('champion_changes');
    expect(r?.parts).toEqual([]);
    expect(r?.period?.phrase).toBe('this year');
  });

  it.each([
    'which champions left this year and how many open deals do we have in EMEA',
    'which champions left this year and what is our win rate',
    'which champions left this year and what did customers say about pricing',
  ])('keeps a part that asks of other records or another kind of question apart: %s', (ask) => {
    expect(read(ask)?.parts).toHaveLength(2);
  });
});

describe('what a request is about', () => {
  it('is never a verb in use', () => {
    const r = read('which features are people clamoring for');
    expect(r?.analysis).toBe('feature_requests');
    expect(r?.topic).toBeNull();
  });

  it('keeps -ing words placed as nouns', () => {
    const r = read('requests about onboarding and reporting');
    expect(r?.analysis).toBe('feature_requests');
    expect(r?.topic).toBe('onboarding reporting');
  });
});
