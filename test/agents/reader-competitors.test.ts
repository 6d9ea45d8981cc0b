import { beforeAll, describe, expect, it } from 'vitest';
import { InterpretationSchema, type Interpretation } from '../../functions/agents/understanding/interpretation.js';
import { leavesWordsUnplaced, readQuestion } from '../../functions/agents/understanding/reader.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';
import { vocabularyOf, type Vocabulary } from '../../functions/agents/understanding/vocabulary.js';

/**
 * Rivals are linked against the workspace's vocabulary like accounts: the competitors its
 * conversations name (learned from the competitors analysis's rows), in any case and with a typo,
 * make a question a competitors question whatever else it is worded with; without them the same
 * words stay unplaced, which is what makes the local policy learn them.
 */

const TODAY = '2026-11-20';
const deals = [
  { name: 'Acme Logistics - Renewal 2026', account_name: 'Acme Logistics', owner_email: 'paula.park@brightwave.io' },
];
const accounts = [{ account_name: 'Acme Logistics', account_industry: 'Logistics', account_region: 'North America' }];
const withoutRivals = vocabularyOf(deals, accounts);
const withRivals = vocabularyOf(deals, accounts, [
  { competitor: 'Pipewell', conversations: 64 },
  { competitor: 'Quotient Labs', conversations: 32 },
  { competitor: 'Clarion AI', conversations: 27 },
]);

beforeAll(async () => {
  await loadTokenizer();
});

const read = (ask: string, vocab: Vocabulary = withRivals, earlierAsks: string[] = []): Interpretation | null => {
  const r = readQuestion({ ask, earlierAsks, today: TODAY }, vocab);
  if (r) InterpretationSchema.parse(r);
  return r;
};

describe('competitors in the vocabulary', () => {
  it('are read from the analysis rows, once each', () => {
    expect(withRivals.competitors).toEqual(['Pipewell', 'Quotient Labs', 'Clarion AI']);
    expect(withoutRivals.competitors).toEqual([]);
  });

  it('leave a rival unplaced until they are learned (the policy then learns them)', () => {
    expect(leavesWordsUnplaced('how many convos mention pipewell', TODAY, withoutRivals)).toBe(true);
    expect(leavesWordsUnplaced('how many deals did we win last quarter?', TODAY, withoutRivals)).toBe(false);
  });

  it.each([
    ['how many convos mention pipewell', ['Pipewell'], 'count'],
    ['How many conversations mentioned Pipewell this year?', ['Pipewell'], 'count'],
    ['clarion ai - how many accounts have mentioned them', ['Clarion AI'], 'count'],
    ['win/loss when quotient labs is in the deal', ['Quotient Labs'], 'list'],
    ['which accounts have brought up Pipewel?', ['Pipewell'], 'list'],
  ])('"%s" is the competitors analysis of %j', (ask, competitors, fn) => {
    const r = read(ask);
    expect(r?.analysis).toBe('competitors');
    expect(r?.names.competitors).toEqual(competitors);
    expect(r?.measure.fn).toBe(fn);
  });

  it('keeps the period the question names', () => {
    expect(read('How many conversations mentioned Pipewell this year?')?.period).toMatchObject({
      from: '2026-01-01',
      to: '2027-01-01',
    });
  });

  it('a rival named in a follow-up replaces the earlier one and keeps its period', () => {
    const r = read('and Pipewell over the same window?', withRivals, [
      'how many conversations mentioned Clarion AI in the last 60 days',
    ]);
    expect(r?.analysis).toBe('competitors');
    expect(r?.names.competitors).toEqual(['Pipewell']);
    expect(r?.period?.from).toBe('2026-09-21');
  });

  it('an account is never read as a rival, and a question naming none is not about them', () => {
    const r = read('how many deals did we win last quarter?');
    expect(r?.analysis).not.toBe('competitors');
    expect(r?.names.competitors).toEqual([]);
  });
});
