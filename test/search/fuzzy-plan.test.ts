import { describe, expect, it } from 'vitest';
import { FuzzyPlanSchema, planLocally, type FuzzyPlan } from '../../functions/search/fuzzy-plan.js';

/** The local planner of the fuzzy lane: pure rules, checked against a fixed now (a Friday). */
const NOW = '2026-11-20T12:00:00.000Z';
const plan = (query: string, max = 3, now = NOW): FuzzyPlan =>
  FuzzyPlanSchema.parse(planLocally({ query, max_subqueries: max, now }));
const windowOf = (query: string, now = NOW) => {
  const p = plan(query, 3, now);
  return { since: p.subqueries[0]!.since, until: p.subqueries[0]!.until, phrase: p.date_phrase };
};

describe('date phrases', () => {
  it.each([
    ['calls today', '2026-11-20T00:00:00.000Z', null],
    ['calls yesterday', '2026-11-19T00:00:00.000Z', '2026-11-20T00:00:00.000Z'],
    // Whole days, as the agents and the verifier read the same words (search/asked-period.ts is the one reader).
    ['calls in the last 30 days', '2026-10-21T00:00:00.000Z', null],
    ['calls over the past 2 weeks', '2026-11-06T00:00:00.000Z', null],
    ['calls last week', '2026-11-09T00:00:00.000Z', '2026-11-16T00:00:00.000Z'],
    ['calls this week', '2026-11-16T00:00:00.000Z', null],
    ['calls last month', '2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
    ['calls this month', '2026-11-01T00:00:00.000Z', null],
    ['calls last quarter', '2026-07-01T00:00:00.000Z', '2026-10-01T00:00:00.000Z'],
    ['calls this quarter', '2026-10-01T00:00:00.000Z', null],
    ['calls last year', '2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['calls in Q2 2025', '2025-04-01T00:00:00.000Z', '2025-07-01T00:00:00.000Z'],
    ['calls in Q1', '2026-01-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ['calls in march', '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ['calls in December', '2025-12-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['calls in may 2025', '2025-05-01T00:00:00.000Z', '2025-06-01T00:00:00.000Z'],
    ['calls since March', '2026-03-01T00:00:00.000Z', null],
    ['calls since 2026-02-15', '2026-02-15T00:00:00.000Z', null],
    ['calls in 2025', '2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['calls on 2026-05-04', '2026-05-04T00:00:00.000Z', '2026-05-05T00:00:00.000Z'],
    ['calls since Oct', '2026-10-01T00:00:00.000Z', null],
    ['pricing 2025', '2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['calls from March to May', '2026-03-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'],
    ['deals closing in December', '2026-12-01T00:00:00.000Z', null],
  ])('%s', (query, since, until) => {
    const w = windowOf(query);
    expect(w.since).toBe(since);
    expect(w.until).toBe(until);
    expect(w.phrase).not.toBeNull();
  });

  it('a quarter without a year that has not started yet is last year’s', () => {
    expect(windowOf('pricing in Q4', '2026-08-01T00:00:00.000Z')).toMatchObject({
      since: '2025-10-01T00:00:00.000Z',
      until: '2026-01-01T00:00:00.000Z',
    });
  });

  it('reads "may" as a month only after in/during/from or with a year, and takes the phrase out of the terms', () => {
    expect(windowOf('what may happen at renewal')).toMatchObject({ since: null, until: null, phrase: null });
    expect(plan('what may happen at renewal').subqueries[0]!.terms).toContain('may');
    expect(plan('renewal risk in may').subqueries[0]!.terms).toEqual(['renewal', 'risk']);
  });

  it.each([
    // The periods only the shared parser (search/asked-period.ts) reads: the same window the agents apply.
    ['pricing recently', '2026-08-22T00:00:00.000Z', null, 'recently'],
    ['security lately', '2026-08-22T00:00:00.000Z', null, 'lately'],
    ['renewal in the past two weeks', '2026-11-06T00:00:00.000Z', null, 'in the past two weeks'],
    ['calls over the coming two weeks', '2026-11-20T00:00:00.000Z', null, 'over the coming two weeks'],
  ])('%s (the agents’ period parser)', (query, since, until, phrase) => {
    const p = plan(query);
    expect(p.subqueries[0]!.since).toBe(since);
    expect(p.subqueries[0]!.until).toBe(until);
    expect(p.date_phrase).toBe(phrase);
    expect(p.subqueries[0]!.terms.join(' ')).not.toMatch(/recently|lately|past|coming|two|weeks/);
  });

  it('a "gone quiet" window is not a window of what happened: no window', () => {
    expect(windowOf('accounts gone quiet for 60 days').since).toBeNull();
  });

  it('no date phrase, no window', () => {
    expect(windowOf('pricing objections')).toEqual({ since: null, until: null, phrase: null });
  });

  it('a year that ends a deal name or is an amount is no window', () => {
    expect(windowOf('emails about Acme Logistics - Renewal 2027')).toEqual({ since: null, until: null, phrase: null });
    expect(windowOf('deals over 2000 seats')).toEqual({ since: null, until: null, phrase: null });
  });
});

describe('kinds, accounts, phrases and facets', () => {
  it('reads the kinds of interaction asked for, and none when every kind is', () => {
    expect(plan('calls about pricing').subqueries[0]!.kinds).toEqual(['call']);
    expect(plan('emails and meetings about pricing').subqueries[0]!.kinds).toEqual(['meeting', 'email']);
    expect(plan('calls, meetings or emails about pricing').subqueries[0]!.kinds).toEqual(['call', 'meeting', 'email']);
    expect(plan('calls, meetings, emails or posts about pricing').subqueries[0]!.kinds).toEqual([]);
    expect(plan('pricing').subqueries[0]!.kinds).toEqual([]);
  });

  it('reads posts from post words, and from "social" or "bluesky" only where they name posts', () => {
    const sq = (q: string) => plan(q).subqueries[0]!;
    expect(sq('posts about pricing')).toMatchObject({ kinds: ['post'], terms: ['pricing'], accounts: [] });
    expect(sq('Posts about pricing')).toMatchObject({ kinds: ['post'], terms: ['pricing'], accounts: [] });
    expect(sq('social posts about pricing')).toMatchObject({ kinds: ['post'], terms: ['pricing'] });
    expect(sq('social media threads about onboarding')).toMatchObject({ kinds: ['post'], terms: ['onboarding'] });
    expect(sq('pricing on social-media')).toMatchObject({ kinds: ['post'], terms: ['pricing'] });
    expect(sq('Bluesky replies about pricing')).toMatchObject({ kinds: ['post'], terms: ['pricing'], accounts: [] });
    expect(sq('pricing complaints from bluesky')).toMatchObject({
      kinds: ['post'],
      terms: ['pricing', 'complaints'],
      accounts: [],
    });
    expect(sq('emails and posts about pricing').kinds).toEqual(['email', 'post']);
    // Alone, these words mean something else: a topic, or an email's thread.
    expect(sq('customers asking for social login')).toMatchObject({
      kinds: [],
      terms: ['customers', 'asking', 'social', 'login'],
    });
    expect(sq('email threads about pricing')).toMatchObject({ kinds: ['email'], terms: ['threads', 'pricing'] });
    expect(sq('post-sale onboarding calls')).toMatchObject({ kinds: ['call'], terms: ['post-sale', 'onboarding'] });
  });

  it('names the companies (capitalised words, or the word after with/from/at), not the command or a month, and leaves their words for the lane to drop once resolved', () => {
    expect(plan('Show me calls with Acme Logistics about pricing').subqueries[0]).toMatchObject({
      accounts: ['Acme Logistics'],
      terms: ['acme', 'logistics', 'pricing'],
    });
    expect(plan('Pricing objections from Acme').subqueries[0]).toMatchObject({
      accounts: ['Acme'],
      terms: ['pricing', 'objections', 'acme'],
    });
    expect(plan('calls with acme about pricing').subqueries[0]).toMatchObject({
      accounts: ['acme'],
      terms: ['acme', 'pricing'],
    });
    expect(plan('Acme pricing').subqueries[0]).toMatchObject({ accounts: ['Acme'], terms: ['acme', 'pricing'] });
    expect(plan('calls in March about pricing').subqueries[0]!.accounts).toEqual([]);
    expect(plan('pricing objections from customers').subqueries[0]!.accounts).toEqual([]);
    expect(plan('renewal discussions with Acme Health or Tidewater Logistics').subqueries[0]).toMatchObject({
      accounts: ['Acme Health', 'Tidewater Logistics'],
      terms: ['renewal', 'acme', 'health'],
    });
  });

  it('reads field restrictions and takes their words out of the terms', () => {
    const fieldsOf = (q: string) => plan(q).subqueries[0]!;
    expect(fieldsOf('inbound emails about pricing')).toMatchObject({
      fields: [{ field: 'direction', op: 'eq', value: 'inbound' }],
      kinds: ['email'],
      terms: ['pricing'],
    });
    expect(fieldsOf('outgoing emails').fields).toEqual([{ field: 'direction', op: 'eq', value: 'outbound' }]);
    expect(fieldsOf('calls recorded on google meet').fields).toEqual([
      { field: 'source', op: 'eq', value: 'google_meet' },
    ]);
    expect(fieldsOf('calls longer than 45 minutes about security')).toMatchObject({
      fields: [{ field: 'duration_seconds', op: 'gt', value: 2700 }],
      terms: ['security'],
    });
    expect(fieldsOf('calls under 2 hours').fields).toEqual([{ field: 'duration_seconds', op: 'lt', value: 7200 }]);
    expect(fieldsOf('calls at least 30 min').fields).toEqual([{ field: 'duration_seconds', op: 'gte', value: 1800 }]);
    expect(fieldsOf('pricing for deals in the negotiation stage')).toMatchObject({
      fields: [{ field: 'deal_stage', op: 'eq', value: 'negotiation' }],
      terms: ['pricing'],
    });
    expect(fieldsOf('closed-lost deals and pricing').fields).toEqual([
      { field: 'deal_stage', op: 'eq', value: 'closed_lost' },
    ]);
    expect(fieldsOf('meetings with our investors').fields).toEqual([
      { field: 'account_type', op: 'eq', value: 'investor' },
    ]);
    expect(fieldsOf('calls with prospects about budget')).toMatchObject({
      fields: [{ field: 'account_type', op: 'eq', value: 'sales_target' }],
      accounts: [],
      terms: ['budget'],
    });
    expect(fieldsOf('pricing objections').fields).toEqual([]);
  });

  it('keeps quoted phrases whole', () => {
    expect(plan('"budget freeze" calls').subqueries[0]).toMatchObject({
      phrases: ['budget freeze'],
      terms: [],
      kinds: ['call'],
    });
  });

  it('one subquery per facet, each carrying the shared accounts, kinds and window', () => {
    const p = plan('emails from Keystone about renewal, discount or budget freeze last quarter', 3);
    expect(p.subqueries.map((s) => [s.terms, s.match])).toEqual([
      [['keystone', 'renewal'], 'all'],
      [['discount'], 'all'],
      [['budget', 'freeze'], 'all'],
    ]);
    for (const s of p.subqueries)
      expect(s).toMatchObject({
        accounts: ['Keystone'],
        kinds: ['email'],
        since: '2026-07-01T00:00:00.000Z',
        until: '2026-10-01T00:00:00.000Z',
      });
  });

  it('adds a recall variant (any word) when the budget allows, and never exceeds max_subqueries', () => {
    expect(plan('champion left', 1).subqueries.map((s) => s.match)).toEqual(['all']);
    expect(plan('champion left', 3).subqueries.map((s) => s.match)).toEqual(['all', 'any']);
    const p = plan('pricing, security, integrations, churn, competitors, onboarding', 3);
    expect(p.subqueries).toHaveLength(3);
    // Facets beyond the budget fold into the last subquery, which then matches any of its words.
    expect(p.subqueries[2]).toMatchObject({
      match: 'any',
      terms: ['integrations', 'churn', 'competitors', 'onboarding'],
    });
    for (let max = 1; max <= 12; max++)
      expect(plan('a, b1, c1, d1, e1, f1, g1, h1, i1, j1, k1, l1, m1, n1', max).subqueries.length).toBeLessThanOrEqual(
        max,
      );
  });

  it('an ask that is only a kind, an account or a window still plans one subquery without words', () => {
    expect(plan('meetings in may 2026').subqueries).toEqual([
      {
        terms: [],
        match: 'all',
        phrases: [],
        accounts: [],
        kinds: ['meeting'],
        fields: [],
        since: '2026-05-01T00:00:00.000Z',
        until: '2026-06-01T00:00:00.000Z',
      },
    ]);
  });

  it('is deterministic and stays inside its schema for odd input', () => {
    for (const q of [
      '!!!',
      '""',
      'x'.repeat(2000),
      'Ünïcödé Ärger with Ωmega',
      "'; drop table interactions; --",
      'q5 2026 in 1800',
    ]) {
      expect(plan(q)).toEqual(plan(q));
    }
  });
});
