import { beforeAll, describe, expect, it } from 'vitest';
import { InterpretationSchema, type Interpretation } from '../../functions/agents/understanding/interpretation.js';
import { LEXICON } from '../../functions/agents/understanding/lexicon.js';
import { readAs } from '../../functions/agents/understanding/read-as.js';
import { dealKinds, readQuestion } from '../../functions/agents/understanding/reader.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';
import { vocabularyOf } from '../../functions/agents/understanding/vocabulary.js';

/**
 * The reader composes one interpretation from what each span of a question says (lexicon entries,
 * names linked against the workspace, the period module): these check the structure it composes,
 * not the wording of an answer.
 */

const TODAY = '2026-11-20';
const vocab = vocabularyOf(
  [
    { name: 'Acme Logistics - Renewal 2026', account_name: 'Acme Logistics', owner_email: 'zoe.kim@brightwave.io' },
    { name: 'Acme Logistics - New Business', account_name: 'Acme Logistics', owner_email: 'zoe.kim@brightwave.io' },
    {
      name: 'Tidewater Logistics - Renewal 2027',
      account_name: 'Tidewater Logistics',
      owner_email: 'mateo.bauer@brightwave.io',
    },
    {
      name: 'Tidewater Logistics - New Business',
      account_name: 'Tidewater Logistics',
      owner_email: 'rhea.okafor@brightwave.io',
    },
  ],
  [
    { account_name: 'Acme Logistics', account_industry: 'Logistics', account_region: 'EMEA' },
    { account_name: 'Tidewater Logistics', account_industry: 'Logistics', account_region: 'APAC' },
    { account_name: 'Acme Health', account_industry: 'Healthcare', account_region: 'North America' },
  ],
);

beforeAll(async () => {
  await loadTokenizer();
});

const read = (ask: string, earlierAsks: string[] = []): Interpretation | null =>
  readQuestion({ ask, earlierAsks, today: TODAY }, vocab);
const must = (ask: string, earlierAsks: string[] = []): Interpretation => {
  const r = read(ask, earlierAsks);
  if (!r) throw new Error(`not read: ${ask}`);
  // Every reading is a valid interpretation, the structure a hosted model fills too.
  InterpretationSchema.parse(r);
  return r;
};
const filter = (r: Interpretation, field: string) =>
  r.filters.filter((f) => f.field === field).map((f) => [f.op, f.value]);

describe('composition: deals', () => {
  it('"biggest open deal right now" is open deals by amount, one, and no period', () => {
    const r = must("what's the biggest open deal right now");
    expect(r).toMatchObject({ analysis: 'records', subject: 'deals', limit: 1, period: null });
    expect(r.order).toEqual({ field: 'amount', dir: 'desc' });
    expect(filter(r, 'is_closed')).toEqual([['eq', false]]);
  });

  it.each([
    ["what's our win rate?"],
    ['Of the deals we closed, what share did we actually win?'],
    ['close rate'],
    ['hit rate on closed deals'],
    ['what percent of closed opportunities did we win'],
    ['how often do we win'],
  ])('"%s" is a win rate over closed deals', (ask) => {
    const r = must(ask);
    expect(r.analysis).toBe('win_rate');
    expect(r.measure).toEqual({ fn: 'share', field: 'is_won' });
    expect(filter(r, 'is_closed')).toEqual([['eq', true]]);
  });

  it('"each rep\'s win rate on deals closed in 2026" groups by owner with the period on the close date', () => {
    const r = must("each rep's win rate on deals closed in 2026");
    expect(r).toMatchObject({ analysis: 'win_rate', group_by: 'owner_email' });
    expect(r.period).toMatchObject({ from: '2026-01-01', to: '2027-01-01', field: 'close_date' });
  });

  it('"which AE converts the most" ranks owners by win rate', () => {
    const r = must('which AE converts the most of what they close?');
    expect(r).toMatchObject({
      analysis: 'win_rate',
      group_by: 'owner_email',
      order: { field: 'share_is_won', dir: 'desc' },
    });
  });

  it.each([
    ['weighted pipeline?'],
    ['probability-adjusted pipeline'],
    ['expected value of the pipe'],
    ['risk-adjusted value'],
  ])('"%s" is the weighted open pipeline', (ask) => {
    const r = must(ask);
    expect(r.analysis).toBe('weighted_pipeline');
    expect(r.measure).toEqual({ fn: 'sum', field: 'weighted_amount' });
    expect(filter(r, 'is_closed')).toEqual([['eq', false]]);
  });

  it('amount bounds, stages, owners in lower case and deal kinds from the workspace compose as filters', () => {
    const r = must('open opps over $50k in negotiation owned by zoe');
    expect(filter(r, 'amount')).toEqual([['gt', 50_000]]);
    expect(filter(r, 'stage')).toEqual([['eq', 'negotiation']]);
    expect(filter(r, 'owner_email')).toEqual([['eq', 'zoe.kim@brightwave.io']]);
    expect(must('renewals in flight').filters).toContainEqual(
      expect.objectContaining({ field: 'name', op: 'contains', value: 'renewal' }),
    );
    expect(must('deals over 40 grand').filters).toContainEqual(
      expect.objectContaining({ field: 'amount', value: 40_000 }),
    );
    // The scale after a number is part of the amount, not a word the reader failed to place.
    const live = must("which of zoe's opps are bigger than 30k and still live?");
    expect(live.filters).toContainEqual(expect.objectContaining({ field: 'amount', op: 'gt', value: 30_000 }));
    expect(live.unexplained).toEqual([]);
  });

  it('"closing" and "land" mean still open; "lost" and "won" their states', () => {
    expect(filter(must('deals closing this quarter'), 'is_closed')).toEqual([['eq', false]]);
    expect(filter(must('what should land this quarter in deals'), 'is_closed')).toEqual([['eq', false]]);
    expect(filter(must('deals we lost this year'), 'is_won')).toEqual([['eq', false]]);
    expect(filter(must('How many deals did we win this year?'), 'is_won')).toEqual([['eq', true]]);
  });

  it('two stages or regions set side by side group by that attribute', () => {
    expect(must('open deals in discovery vs evaluation').group_by).toBe('stage');
    expect(must('Compare open pipeline in EMEA and APAC').group_by).toBe('account_region');
  });

  it('"before end of January" is a range from today, on the close date', () => {
    const r = must('open deals closing before end of January');
    expect(r.period).toMatchObject({ from: TODAY, to: '2027-02-01', field: 'close_date' });
  });
});

describe('composition: conversations', () => {
  it('counts by kind, period, account and direction', () => {
    const r = must('how many inbound emails from Acme Logistics last month?');
    expect(r).toMatchObject({ subject: 'interactions', measure: { fn: 'count' } });
    expect(filter(r, 'kind')).toEqual([['eq', 'email']]);
    expect(filter(r, 'direction')).toEqual([['eq', 'inbound']]);
    expect(filter(r, 'account_name')).toEqual([['eq', 'Acme Logistics']]);
    expect(r.period).toMatchObject({ from: '2026-10-01', to: '2026-11-01', field: 'occurred_at' });
    // "Logistics" inside the account's name is not an industry filter.
    expect(filter(r, 'account_industry')).toEqual([]);
  });

  it('several kinds are counted by kind', () => {
    const r = must('how many times did we meet or call Acme Logistics this year?');
    expect(filter(r, 'kind')).toEqual([['in', ['meeting', 'call']]]);
    expect(r.group_by).toBe('kind');
  });
});

describe('follow-ups carry their subject explicitly', () => {
  it('a new period replaces the old one; the analysis and filters are inherited and say so', () => {
    const r = must('and for the second half so far?', ['win rate in the first half of 2026?']);
    expect(r.analysis).toBe('win_rate');
    expect(r.period).toMatchObject({ from: '2026-07-01', to: '2026-11-21', field: 'close_date' });
    expect(r.inherited).toEqual(expect.arrayContaining(['analysis']));
  });

  it('a new kind replaces the old one and keeps the period', () => {
    const r = must('and emails?', ['how many calls did we have last quarter']);
    expect(filter(r, 'kind')).toEqual([['eq', 'email']]);
    expect(r.period).toMatchObject({ from: '2026-07-01', to: '2026-10-01' });
    expect(r.inherited).toContain('period');
  });

  it('"ok and weighted?" turns the total into the weighted pipeline', () => {
    expect(must('ok and weighted?', ['total open pipeline']).analysis).toBe('weighted_pipeline');
  });

  it('"that account" is the account an earlier ask named', () => {
    const r = must('How many calls did we have with that account last quarter?', [
      'What did Acme Logistics say about pricing?',
    ]);
    expect(filter(r, 'account_name')).toEqual([['eq', 'Acme Logistics']]);
    expect(r.inherited).toContain('account');
  });

  it('a follow-up with a topic of its own is another question, not this one narrowed', () => {
    expect(read('and what about security?', ['which deals are closing this quarter?'])).toBeNull();
  });
});

describe('comparisons of periods', () => {
  const periods = (r: Interpretation) => [
    [r.period?.from, r.period?.to],
    [r.compare_to?.from, r.compare_to?.to],
  ];
  it.each([
    ['new deals created in Q3 vs Q2', '2026-07-01', '2026-04-01'],
    ['win rate H1 vs H2 this year', '2026-01-01', '2026-07-01'],
    ['did we win more revenue this year than last year?', '2026-01-01', '2025-01-01'],
    ['meeting volume this quarter compared to the same quarter last year', '2026-10-01', '2025-10-01'],
    ['are we on more or fewer calls than last month?', '2026-11-01', '2026-10-01'],
    ['calls last quarter versus the quarter before', '2026-07-01', '2026-04-01'],
    ['emails year over year', '2026-01-01', '2025-01-01'],
  ])('%s: the first period bounds the records, the second is compared', (ask, from, compared) => {
    const r = must(ask);
    expect(r.period?.from).toBe(from);
    expect(r.compare_to?.from).toBe(compared);
    expect(r.compare_to?.field).toBe(r.period?.field);
    expect(r.unexplained).not.toContain('same');
  });

  it('the half of a named year is that half, not the whole year', () => {
    expect(periods(must('win rate H1 vs H2 this year'))).toEqual([
      ['2026-01-01', '2026-07-01'],
      ['2026-07-01', '2027-01-01'],
    ]);
  });

  it('"vs the quarter before?" compares the earlier ask\'s period with the span before it', () => {
    const r = must('vs the quarter before?', ['how many deals did we win last quarter']);
    expect(periods(r)).toEqual([
      ['2026-07-01', '2026-10-01'],
      ['2026-04-01', '2026-07-01'],
    ]);
    expect(filter(r, 'is_won')).toEqual([['eq', true]]);
  });

  it('two periods without a comparative are a range, not a comparison', () => {
    expect(must('deals closing between October and December').compare_to).toBeNull();
  });

  it('Read as names both periods', () => {
    expect(readAs(must('calls this quarter vs last quarter'))).toContain(
      'compared with last quarter (from 2026-07-01, before 2026-10-01)',
    );
  });
});

describe('honesty by coverage', () => {
  it('lists the words it could not place and lowers its confidence', () => {
    const r = must('open deals with a squishy vibe');
    expect(r.unexplained).toEqual(expect.arrayContaining(['squishy', 'vibe']));
    expect(r.confidence).toBeLessThan(1);
  });

  it.each([
    ["What's our NPS this quarter?", 'NPS'],
    ['ROI of the October webinar campaign', 'marketing campaigns'],
  ])('"%s" names a subject the data does not hold', (ask, subject) => {
    const r = must(ask);
    expect(r.analysis).toBe('not_understood');
    expect(r.absent).toContain(subject);
  });

  it('leaves to the other readers what is not about records, an ambiguous company and an unknown name', () => {
    for (const ask of [
      'what did customers say about pricing?',
      'which deals have gone quiet?',
      'prep me for my call with Tidewater Logistics',
      'Book a meeting with the Acme team for Tuesday',
      'calls with Acme',
      'calls with Zyxcorp',
    ])
      expect(read(ask), ask).toBeNull();
  });
});

describe('the lexicon is data', () => {
  it('every phrase is lower case words, each entry once', () => {
    const phrases = LEXICON.map(([p]) => p);
    for (const p of phrases) expect(p).toBe(p.toLowerCase().trim());
    expect(new Set(phrases).size).toBe(phrases.length);
  });

  it('deal kinds come from the workspace: labels several deals share', () => {
    expect(dealKinds(vocab).sort()).toEqual(['new business', 'renewal']);
  });
});

describe('Read as', () => {
  it('says the analysis, the records, the filters, the period with its dates, the grouping and the order', () => {
    expect(readAs(must("each rep's win rate on deals closed in 2026, best to worst"))).toBe(
      'win rate (won ÷ closed) of closed deals closed in 2026 (from 2026-01-01, before 2027-01-01) by owner best first',
    );
    expect(readAs(must('and emails?', ['how many calls did we have last quarter']))).toMatch(
      /^the number of emails from last quarter \(from 2026-07-01, before 2026-10-01\) \(carried over from earlier in the thread: .*period/,
    );
  });
});
