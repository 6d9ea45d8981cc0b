import { beforeAll, describe, expect, it } from 'vitest';
import { InterpretationSchema, type Interpretation } from '../../functions/agents/understanding/interpretation.js';
import { LEXICON } from '../../functions/agents/understanding/lexicon.js';
import { readAs } from '../../functions/agents/understanding/read-as.js';
import { dealKinds, namesNotHeld, readParts, readQuestion } from '../../functions/agents/understanding/reader.js';
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
    { name: 'Acme Health - Pilot', account_name: 'Acme Health', owner_email: 'oscar.rossi@brightwave.io' },
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

describe('words people use for people and participles', () => {
  it('"our best closer this year" is each owner\'s win rate, best first', () => {
    const r = must('our best closer this year?');
    expect(r).toMatchObject({
      analysis: 'win_rate',
      group_by: 'owner_email',
      order: { field: 'share_is_won', dir: 'desc' },
    });
  });

  it('a participle read as an adjective has its verb\'s lemma ("keep getting delayed" is delay)', () => {
    const r = must('Which opportunities keep getting delayed?');
    expect(r.analysis).toBe('slipped');
    expect(r.unexplained).toEqual([]);
  });
});

describe('why deals were lost', () => {
  it.each([
    ['what did we lose last quarter and why', '2026-07-01'],
    ["Mateo hasn't won anything — what's killing his deals?", null],
    ['What reasons did lost EMEA deals have this year?', '2026-01-01'],
  ])('%s is the losses analysis over lost deals', (ask, from) => {
    const r = must(ask);
    expect(r.analysis).toBe('losses');
    expect(filter(r, 'is_won')).toEqual([['eq', false]]);
    expect(r.period?.from ?? null).toBe(from);
  });
  it('"why" alone, about something other than lost deals, is not', () => {
    expect(read('why are calls down this month?')?.analysis).not.toBe('losses');
  });
});

describe('plurals and parts', () => {
  it('a plural the NLP library does not know matches its lexicon word ("which reps lost the most deals")', () => {
    const r = must('which reps lost the most deals this year');
    expect(r.group_by).toBe('owner_email');
    expect(r.unexplained).toEqual([]);
  });
  it('"bookings" are won deals; compared between quarters', () => {
    const r = must('how did Q3 bookings compare with Q2?');
    expect(filter(r, 'is_won')).toEqual([['eq', true]]);
    expect([r.period?.from, r.compare_to?.from]).toEqual(['2026-07-01', '2026-04-01']);
  });
  it('records named without a question word are a part when the next piece asks another analysis of them', () => {
    const parts = must('open pipeline for Rhea, and her win rate this year').parts;
    expect(parts).toEqual(['open pipeline for Rhea', 'her win rate this year']);
    // Two kinds of the same records stay one question.
    expect(must('calls and meetings last month').parts).toEqual([]);
  });

  it('a question of more pieces than an interpretation holds parts is read whole, once', () => {
    const ask = Array.from({ length: 30 }, (_, i) => `how many calls in week ${i + 1}`).join(', ');
    expect(must(ask).parts).toEqual([]);
    expect(must('how many calls last week, how many meetings last month').parts).toHaveLength(2);
  });

  it('a multi-part reading keeps a period only when every part shares it', () => {
    expect(must('which reps lost the most deals this year, and what is our win rate overall?').period).toBeNull();
    expect(must('EMEA snapshot this year: total won, and win rate').period?.from).toBe('2026-01-01');
  });
});

describe('names the workspace does not hold', () => {
  const names = (ask: string) => namesNotHeld(ask, TODAY, vocab);
  it('a capitalised name no account, owner, lexicon entry or period explains, with the words after it', () => {
    expect(names('what did Globex say about pricing?')).toEqual(['Globex']);
    expect(names('When Quotient Labs is in the deal, do we win or lose?')).toEqual(['Quotient Labs']);
  });
  it('not the asker, a linked account, a region or a period', () => {
    expect(names("As a marketer I'm building battlecards")).toEqual([]);
    expect(names('What did Acme Logistics in EMEA say in Q3?')).toEqual([]);
  });
  it('a condition clause ("when X is in the deal, ...") is not a part of its own', () => {
    expect(must('how many deals close this quarter, and when does the biggest deal close?').parts).toHaveLength(2);
    expect(read('When Acme Logistics is in the deal, do we win or lose?')?.parts ?? []).toEqual([]);
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

  it('"same for oscar" replaces the owner; "and in january?" after December is the next January for open deals', () => {
    expect(filter(must('same for oscar', ["list zoe's open deals"]), 'owner_email')).toEqual([
      ['eq', 'oscar.rossi@brightwave.io'],
    ]);
    expect(must('and in january?', ['which deals are closing in December?']).period).toMatchObject({
      from: '2027-01-01',
      to: '2027-02-01',
    });
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
    // The unit left out: the other side's own.
    ['did we win more deals this quarter than last', '2026-10-01', '2026-07-01'],
    ['calls in september vs the one before', '2026-09-01', '2026-08-01'],
    ['meetings this month compared with the previous one', '2026-11-01', '2026-10-01'],
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

  it('"vs the one before?" takes the unit of the earlier ask\'s period', () => {
    expect(periods(must('vs the one before?', ['how many meetings did we have in q3']))).toEqual([
      ['2026-07-01', '2026-10-01'],
      ['2026-04-01', '2026-07-01'],
    ]);
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

describe('questions of several parts', () => {
  const partsOf = (ask: string) => {
    const r = must(ask);
    return readParts({ ask: '', earlierAsks: [], today: TODAY }, r.parts, vocab);
  };

  it('each piece that asks something by itself is a part; words before a colon qualify every part', () => {
    const parts = partsOf('EMEA snapshot: total open pipeline, weighted pipeline and win rate');
    expect(parts.map((p) => p.reading?.analysis)).toEqual(['records', 'weighted_pipeline', 'win_rate']);
    for (const p of parts) expect(filter(p.reading!, 'account_region')).toEqual([['in', ['EMEA']]]);
  });

  it('a piece that asks nothing by itself stays with its part ("who owns each", "calls and meetings")', () => {
    expect(must('how many calls and meetings did we have last month').parts).toEqual([]);
    const parts = partsOf('Which deals close this month, who owns each, and what are they worth weighted?');
    expect(parts).toHaveLength(2);
    expect(parts[0]!.reading!.show).toContain('owner_email');
  });

  it('"they" in a later part is the set an earlier part selected, with its period', () => {
    const [, weighted] = partsOf('Which deals close this month, and what are they worth weighted?');
    expect(weighted!.reading).toMatchObject({ analysis: 'weighted_pipeline', period: { from: '2026-11-01' } });
  });

  it('a part about another kind of answer is kept as a part, unread here, not merged or dropped', () => {
    const parts = partsOf('which deals close this quarter, and what did customers say about pricing?');
    expect(parts.map((p) => p.reading?.analysis ?? null)).toEqual(['records', null]);
  });

  it('words before a colon that name nothing carry nothing ("two things:")', () => {
    const parts = partsOf('two things: biggest open deal in EMEA, and how many inbound emails landed last month');
    expect(parts.map((p) => p.reading?.unexplained)).toEqual([[], []]);
    expect(filter(parts[1]!.reading!, 'account_region')).toEqual([]);
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
    ['commission payouts owed to the AEs this quarter?', 'commissions or payouts'],
    ['how much website traffic did we get from germany last month', 'website traffic'],
    ['how much have we spent on advertising this year', 'ad spend'],
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

describe('questions an analysis operation answers', () => {
  it.each([
    ['talk ratio per rep', 'desc-less'],
    ['talk-to-listen numbers for the team', 'desc-less'],
    ['talk share on calls last month', 'desc-less'],
    ['who hogs the airtime?', 'desc-less'],
    ['reps ranked by talk time', 'desc'],
    ['speaking time of each AE on meetings', 'desc-less'],
    ['how much time talking do our people log on calls', 'desc-less'],
    ['any monologue problems on the team', 'desc-less'],
    ['who talks the most on calls', 'desc'],
    ['who talks on calls the most', 'desc'],
    ['which AE speaks less than the others', 'any'],
    ['our worst listener', 'desc'],
    ['best listeners on the team', 'asc'],
    ['biggest talker on the team', 'desc'],
  ])('%s is the talk ratio', (ask, order) => {
    const r = must(ask);
    expect(r.analysis).toBe('talk_ratio');
    expect(r.subject).toBe('interactions');
    if (order === 'desc-less') expect(r.order?.dir ?? 'desc').toBe('desc');
    if (order === 'desc' || order === 'asc') expect(r.order).toEqual({ field: 'talk_share_pct', dir: order });
  });

  it('keeps the period, kinds and people the words give, and talking about something is what was said', () => {
    const r = must("Rhea Okafor's talk ratio on calls in Q3");
    expect(r.filters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'owner_email', value: 'rhea.okafor@brightwave.io' }),
        expect.objectContaining({ field: 'kind', value: 'call' }),
      ]),
    );
    expect(r.period).toMatchObject({ from: '2026-07-01', to: '2026-10-01', field: 'occurred_at' });
    expect(must("what's jonah's airtime").names.people).toEqual(['jonah']);
    expect(must('Mateo vs Priya: who talks more?').names.people).toContain('Priya');
    expect(read('what did customers talk about the most this quarter?')?.analysis).not.toBe('talk_ratio');
    expect(read('which accounts did we talk to the most this quarter?')?.analysis).not.toBe('talk_ratio');
    expect(read('who did we speak with most often last month')?.analysis).not.toBe('talk_ratio');
  });
});

describe('composition: the feature-requests and competitors analyses', () => {
  it.each([
    'what features are customers asking for',
    'top feature requests this quarter',
    'wishlist from healthcare customers',
    'most requested features in EMEA last quarter',
    'any enhancement asks from Acme Logistics?',
    'what product gaps come up in deals',
    'what capabilities do buyers want us to build',
    'roadmap asks from the field',
  ])('"%s" names feature_requests', (q) => {
    const r = must(q);
    expect(r.analysis).toBe('feature_requests');
    expect(r.subject).toBe('interactions');
  });

  it('reads the topic, the audience, the region and the period of a feature-request question', () => {
    const slack = must('how many accounts asked for slack alerts?');
    expect(slack).toMatchObject({ analysis: 'feature_requests', topic: 'slack alerts', unexplained: [] });
    const prospects = must('what integrations do prospects request');
    expect(prospects.topic).toBe('integrations');
    expect(filter(prospects, 'audience')).toEqual([['eq', 'prospects']]);
    expect(filter(must('top asks for features from existing customers'), 'audience')).toEqual([['eq', 'customers']]);
    const emea = must('most requested features in EMEA last quarter');
    expect(filter(emea, 'account_region')).toEqual([['in', ['EMEA']]]);
    expect(emea.period).toMatchObject({ from: '2026-07-01', to: '2026-10-01' });
    expect(must('feature requests from Acme Logistics').filters).toContainEqual(
      expect.objectContaining({ field: 'account_name', value: 'Acme Logistics' }),
    );
  });

  it.each([
    'which competitors come up most',
    'competitors mentioned last quarter',
    'who is the competition in EMEA',
    'competitive win rate',
    'top rivals by deals',
    'which deals are we up against Quotient Labs',
    'where are we in a bake-off',
    'who is the incumbent we replace most',
  ])('"%s" names competitors', (q) => {
    expect(must(q).analysis).toBe('competitors');
  });

  it('reads a competitor written as a name, and a period', () => {
    const r = must('which deals are we up against Quotient Labs this year');
    expect(r.names.competitors).toEqual(['Quotient Labs']);
    expect(r.unexplained).toEqual([]);
    expect(r.period).toMatchObject({ from: '2026-01-01', to: '2027-01-01' });
  });

  it('what customers say about a topic is still not a feature request', () => {
    expect(read('what do customers say about pricing')).toBeNull();
  });
});

describe('people, rankings and sizes, however they are written', () => {
  it('groups an aggregate asked of people by owner: who, whose, plural reps, a leaderboard', () => {
    for (const ask of [
      'whos had the best win rate this year',
      'Leaderboard of AEs by win %, please',
      'rank the reps by open pipeline',
      'who has the most open pipeline',
      'whose book is biggest',
    ])
      expect(must(ask).group_by, ask).toBe('owner_email');
    expect(must('who owns the biggest deal').group_by).toBeNull();
  });

  it('ranks the values of an attribute asked with which, and the most records by count', () => {
    expect(must('which accounts had the most calls last quarter')).toMatchObject({
      group_by: 'account_name',
      order: { field: 'count', dir: 'desc' },
    });
    expect(must('which stage has the most open deals')).toMatchObject({ group_by: 'stage', order: { field: 'count' } });
    expect(must('which region has the biggest pipeline').group_by).toBe('account_region');
    expect(must('which reps lost the most deals this year').order).toEqual({ field: 'count', dir: 'desc' });
  });

  it('reads a possessive without its apostrophe as the name, and percent signs, fractions and proportions as a rate', () => {
    expect(must('whats oscars weighted number').filters).toContainEqual(
      expect.objectContaining({ field: 'owner_email', value: 'oscar.rossi@brightwave.io' }),
    );
    expect(must('which of rheas opps are still alive?').filters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'owner_email', value: 'rhea.okafor@brightwave.io' }),
        expect.objectContaining({ field: 'is_closed', value: false }),
      ]),
    );
    for (const ask of [
      'win % in Q3',
      'what fraction of closed opps were wins?',
      'proportion of deals we won this year',
    ])
      expect(must(ask).analysis, ask).toBe('win_rate');
  });

  it('reads a product of amount and probability as weighted, and win probability as the probability', () => {
    for (const ask of [
      'Sum of amount × win probability across everything still open?',
      'total of amount times likelihood for open deals',
    ])
      expect(must(ask), ask).toMatchObject({ analysis: 'weighted_pipeline', measure: { field: 'weighted_amount' } });
  });

  it('reads graded size words and a count of rows written before them', () => {
    expect(must('gimme the 3 fattest deals still open')).toMatchObject({
      limit: 3,
      order: { field: 'amount', dir: 'desc' },
    });
    expect(must('5 juiciest opps in negotiation').limit).toBe(5);
    expect(must('list the small stuff: open deals under $20k')).toMatchObject({
      limit: null,
      order: { field: 'amount', dir: 'asc' },
    });
    expect(must('the tiniest open deal').limit).toBe(1);
  });
});

describe('words said back as the question wrote them', () => {
  it('names a person it could not apply to conversations by the words asked', () => {
    expect(must('how many calls was mateo on in October').unexplained).toEqual(['mateo']);
  });
});

describe('a part with a measure of its own', () => {
  it('does not take the earlier part’s analysis', () => {
    const parts = readParts(
      { ask: '', earlierAsks: [], today: TODAY },
      ['win rate this year', 'total won revenue this year', 'how many deals we lost this year'],
      vocab,
    );
    expect(parts.map((p) => [p.reading?.analysis, p.reading?.measure.fn])).toEqual([
      ['win_rate', 'share'],
      ['records', 'sum'],
      ['records', 'count'],
    ]);
  });
});

describe('read as a busy lead writes', () => {
  it('sets wins beside losses as the closed deals by outcome, not two periods', () => {
    const r = must('how did paula do last quarter - wins vs losses?'.replace('paula', 'oscar'));
    expect(r.compare_to).toBeNull();
    expect(r.period).toMatchObject({ from: '2026-07-01', to: '2026-10-01', field: 'close_date' });
    expect(r.filters).toContainEqual(expect.objectContaining({ field: 'is_closed', value: true }));
    expect(r.group_by).toBe('stage');
    expect(r.unexplained).toEqual([]);
    // A comparative before the period still compares it with now.
    expect(must('are we on more or fewer calls than last month?').compare_to).not.toBeNull();
  });

  it('reads "before end of Q1" as today up to the end of Q1', () => {
    expect(read('renewals closing before end of Q1')?.period).toMatchObject({ from: '2026-11-20', to: '2027-04-01' });
  });

  it('reads risk and making words that name the analyses', () => {
    expect(must('any renewals closing before end of Q1 that look wobbly?').analysis).toBe('renewal_risk');
    expect(must('what are healthcare accounts asking us to build?').analysis).toBe('feature_requests');
  });
});
