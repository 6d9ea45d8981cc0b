import { beforeAll, describe, expect, it } from 'vitest';
import { InterpretationSchema, type Interpretation } from '../../functions/agents/understanding/interpretation.js';
import { readQuestion } from '../../functions/agents/understanding/reader.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';
import { vocabularyOf } from '../../functions/agents/understanding/vocabulary.js';

/**
 * The reader names the renewal-risk, champion-changes and account-history analyses from the cues of a
 * question, however it is worded (a VP's, an AE's or a CS manager's, terse, lower case, with typos),
 * with the period, owner, account, region and industry its words give; and leaves alone the questions
 * that only share a word with them ("how many renewals did we win", "deals left in the pipeline").
 */

const TODAY = '2026-11-20';
const vocab = vocabularyOf(
  [
    { name: 'Acme Logistics - Renewal 2026', account_name: 'Acme Logistics', owner_email: 'paula.park@brightwave.io' },
    { name: 'Acme Logistics - New Business', account_name: 'Acme Logistics', owner_email: 'zoe.kim@brightwave.io' },
    { name: 'Beacon Logistics - Renewal 2027', account_name: 'Beacon Logistics', owner_email: 'zoe.kim@brightwave.io' },
    { name: 'Beacon Logistics - Pilot', account_name: 'Beacon Logistics', owner_email: 'zoe.kim@brightwave.io' },
    {
      name: 'Keystone Health - Renewal 2027',
      account_name: 'Keystone Health',
      owner_email: 'oscar.rossi@brightwave.io',
    },
    { name: 'Keystone Health - Pilot', account_name: 'Keystone Health', owner_email: 'oscar.rossi@brightwave.io' },
    { name: 'Acme Health - Pilot', account_name: 'Acme Health', owner_email: 'oscar.rossi@brightwave.io' },
  ],
  [
    { account_name: 'Acme Logistics', account_industry: 'Logistics', account_region: 'North America' },
    { account_name: 'Beacon Logistics', account_industry: 'Logistics', account_region: 'EMEA' },
    { account_name: 'Keystone Health', account_industry: 'Healthcare', account_region: 'EMEA' },
    { account_name: 'Acme Health', account_industry: 'Healthcare', account_region: 'North America' },
  ],
);

beforeAll(async () => {
  await loadTokenizer();
});

const read = (ask: string, earlierAsks: string[] = []): Interpretation | null => {
  const r = readQuestion({ ask, earlierAsks, today: TODAY }, vocab);
  if (r) InterpretationSchema.parse(r);
  return r;
};
const values = (r: Interpretation | null, field: string) =>
  (r?.filters ?? []).filter((f) => f.field === field).flatMap((f) => (Array.isArray(f.value) ? f.value : [f.value]));

describe('renewal risk', () => {
  it.each([
    'which renewals are at risk?',
    'renewal risk',
    'renewals at risk this quarter',
    'any renewals in danger',
    'what renewals look risky',
    'renewals that have gone quiet',
    'which customers could cancel next quarter',
    'will acme logistics renew?',
    'is keystone going to cancel',
    'customers at risk of not renewing',
    'whos likely to not renew in emea',
    'renewals in trouble?',
  ])('"%s" names renewal risk', (ask) => {
    expect(read(ask)?.analysis, ask).toBe('renewal_risk');
  });

  it('reads the period as the close date, and the owner, account, region and industry as filters', () => {
    const q = read('which of zoe’s renewals closing next quarter are at risk?')!;
    expect(q.analysis).toBe('renewal_risk');
    expect(q.period).toMatchObject({ from: '2027-01-01', to: '2027-04-01', field: 'close_date' });
    expect(values(q, 'owner_email')).toEqual(['zoe.kim@brightwave.io']);
    expect(values(read('will acme logistics renew'), 'account_name')).toEqual(['Acme Logistics']);
    expect(values(read('renewals at risk in emea'), 'account_region')).toEqual(['EMEA']);
    expect(values(read('healthcare renewals at risk'), 'account_industry')).toEqual(['Healthcare']);
  });

  it('leaves churn of any deal and who the champion of a renewal is to the readers they belong to', () => {
    for (const ask of [
      'which customers are at risk of churning?',
      'who is the champion on the acme logistics renewal?',
    ])
      expect(read(ask), ask).toBeNull();
  });

  it('leaves questions about renewals that ask no risk to the records reader', () => {
    for (const ask of ['how many renewals did we win this year', 'list open renewals', 'total renewal pipeline'])
      expect(read(ask)?.analysis, ask).toBe('records');
  });
});

describe('champion changes', () => {
  it.each([
    'did any champions leave?',
    'which champions left this year',
    'champion changes',
    'where did our champion change',
    'champs who quit',
    'has the champion at acme logistics moved on',
    'champion turnover by account',
    'which deals had the champion replaced',
    'our champion is gone on which deals',
  ])('"%s" names champion changes', (ask) => {
    expect(read(ask)?.analysis, ask).toBe('champion_changes');
  });

  it('reads the period as when the change happened, and the account and owner', () => {
    const q = read('which champions left this year on oscar’s deals')!;
    expect(q.period).toMatchObject({ from: '2026-01-01', to: '2027-01-01', field: 'occurred_at' });
    expect(values(q, 'owner_email')).toEqual(['oscar.rossi@brightwave.io']);
    expect(values(read('did the champion at beacon logistics leave'), 'account_name')).toEqual(['Beacon Logistics']);
  });

  it.each([
    'which accounts lost their champion last quarter',
    'did beacon logistics lose its champion?',
    'where have we lost the champ this year',
    'any deals where the champion walked out',
    'did we lose deals after a champion walked?',
  ])('"%s": losing a champion, or one walking out, is a champion leaving', (ask) => {
    expect(read(ask)?.analysis, ask).toBe('champion_changes');
  });

  it('reads "lost their champion" as no deal filtered as lost, and a lost deal after one left as a lost deal', () => {
    expect(values(read('which accounts lost their champion last quarter'), 'is_won')).toEqual([]);
    expect(values(read('did we lose deals after a champion walked?'), 'is_won')).toEqual([false]);
  });

  it('reads a condition opening the question as part of it, not a part of its own', () => {
    for (const ask of [
      'When a champion leaves, do we still win the renewal?',
      'if the champion quits, do we lose the deal?',
      'once a champion moves on, what happens to the renewal',
    ]) {
      const q = read(ask);
      expect(q?.analysis, ask).toBe('champion_changes');
      expect(q?.parts, ask).toEqual([]);
    }
  });

  it('reads a month gone by in the sentence that names it, though the next one asks about a close', () => {
    const q = read('Beacon Logistics lost their champion in May. Did the renewal still close?')!;
    expect(q.analysis).toBe('champion_changes');
    expect(q.period).toMatchObject({ from: '2026-05-01', to: '2026-06-01' });
  });

  it('leaves "left" and "gone" that say nothing of a champion to the readers they belong to', () => {
    expect(read('what deals are left in the pipeline')?.analysis).toBe('records');
    expect(read('champion at risk on open deals')).toBeNull();
  });
});

describe('account history', () => {
  it.each([
    'walk me through the history with acme logistics',
    'acme logistics timeline',
    'whole story on beacon logistics',
    'give me the full story with keystone health since day one',
    'history of acme health',
    'recap our relationship with beacon logistics',
    'keystone health backstory pls',
    'when was our first touch with acme logistics',
  ])('"%s" names account history', (ask) => {
    const q = read(ask);
    expect(q?.analysis, ask).toBe('account_history');
    expect(values(q, 'account_name')).toHaveLength(1);
  });

  it.each([
    'when did we first talk to keystone health?',
    'last touch with beacon logistics',
    'first contact with acme health and the last one',
    'when was the last time we spoke to keystone health',
    'first and last touch w beacon logistics',
  ])('"%s": the first or last time we were in touch is a date of the history', (ask) => {
    const q = read(ask);
    expect(q?.analysis, ask).toBe('account_history');
    expect(values(q, 'account_name'), ask).toHaveLength(1);
  });

  it('reads the parts that ask facts of the account the history holds as the history, whole', () => {
    for (const ask of [
      'when did we first talk to beacon logistics and how many deals have we opened with them',
      'last time we spoke with keystone health, and what is still open there',
      'When did we first talk to Acme Health, and when was the last touch?',
    ]) {
      const q = read(ask);
      expect(q?.analysis, ask).toBe('account_history');
      expect(q?.parts, ask).toEqual([]);
    }
    // A part asking another kind of answer keeps the parts apart.
    expect(read('history of beacon logistics, and the win rate this year')?.parts).toHaveLength(2);
  });

  it('carries a period, and needs exactly one account', () => {
    const q = read('acme logistics history this year')!;
    expect(q.period).toMatchObject({ from: '2026-01-01', to: '2027-01-01' });
    // "acme" names two accounts: the intent reader asks which.
    expect(read('history with acme')).toBeNull();
    expect(read('walk me through the history')).toBeNull();
  });
});
