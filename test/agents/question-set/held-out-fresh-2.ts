import { facts as f, KEPT, P } from './facts.js';
import { column, FROM_DEALS, h, pct, saysAbsent, scalar } from './held-out.js';
import type { Question, Sql } from './judge.js';

/**
 * A second fresh held-out set: written from the schema, the demo corpus (explored with SQL) and the
 * guides alone, by someone who has read neither the answering code, the dev set, nor the earlier
 * held-out questions beyond a few examples. It weights the analyses developed on since the first
 * fresh set (period comparisons, multi-part questions, follow-ups, a segment's voice on a topic,
 * pipeline lists, win rates, weighted pipeline, pushed deals) in wordings of its own. It measures
 * (bench/answers.ts) and never gates. Every truth is SQL over the corpus; today is facts.ts's TODAY,
 * 2026-11-20, so "this quarter" is Q4 2026 up to today and "last month" is October 2026.
 *
 * Corpus facts the questions lean on: two open deals share the name "Granite Logistics - Enterprise"
 * and two "Harbor Health - Second Attempt", so no list asks for one of those alone; every open deal
 * in negotiation closes this quarter; the pushed deals are the ones whose buyer wrote that the
 * project is on hold; NPS, CSAT, campaigns and Globex appear nowhere in the corpus.
 */

type Range = readonly [string, string];

const Q2_2026: Range = ['2026-04-01', '2026-07-01'];
const Q4_2025: Range = ['2025-10-01', '2026-01-01'];
const SEPTEMBER: Range = ['2026-09-01', '2026-10-01'];
const OCTOBER_2025: Range = ['2025-10-01', '2025-11-01'];
const NOVEMBER: Range = ['2026-11-01', '2026-12-01'];
const DECEMBER: Range = ['2026-12-01', '2027-01-01'];
const SUMMER: Range = ['2026-06-01', '2026-09-01'];
const LAST_SIX_MONTHS: Range = ['2026-05-20', '2026-11-21'];
const SINCE_SEPTEMBER: Range = ['2026-09-01', '2026-11-21'];

const within = (field: string, r: Range) => `${field} >= '${r[0]}' and ${field} < '${r[1]}'`;
/** Revenue of the deals won with a close date in the period. */
const wonIn = (s: Sql, r: Range, where = 'true') =>
  f.dealSum(s, `d.is_won and ${within('d.close_date', r)} and ${where}`);
const wonCountIn = (s: Sql, r: Range) => f.dealCount(s, `d.is_won and ${within('d.close_date', r)}`);
const lostCountIn = (s: Sql, r: Range) =>
  f.dealCount(s, `d.is_closed and not d.is_won and ${within('d.close_date', r)}`);
/** Win rate of the deals closed in the period. */
const rateIn = (s: Sql, r: Range, where = 'true') => h.winRate(s, `${within('d.close_date', r)} and ${where}`);
/** Deals created in the CRM in the period (a deal's occurred_at is its creation). */
const createdIn = (s: Sql, r: Range) => f.dealCount(s, within('d.occurred_at', r));
const openSum = (s: Sql, where: string) =>
  scalar(s, `select coalesce(sum(d.amount), 0) as v ${FROM_DEALS} and not d.is_closed and ${where}`);
const openCount = (s: Sql, where: string) =>
  scalar(s, `select count(*) as v ${FROM_DEALS} and not d.is_closed and ${where}`);
/** An aggregate of the open deals per stage, stages in a fixed order. */
const perStage = (s: Sql, aggregate: string) =>
  column(s, `select ${aggregate} as v ${FROM_DEALS} and not d.is_closed group by d.stage order by d.stage`).then((v) =>
    v.map(Number),
  );
/** Pushed deals (the buyer wrote the project is on hold) in the period, of an owner (email prefix) or anyone's. */
const pushedOf = (s: Sql, owner: string) =>
  column(
    s,
    `select distinct d.name as v from deals d join interactions i on i.deal_id = d.id and ${KEPT}
     where d.workspace_id = $1 and i.title ilike '%on hold%' and d.owner_email like $2`,
    [`${owner}.%`],
  );

const MONEY = /pric|per-seat|per seat|discount|budget|cost|expensive|spend|cheaper|fee/i;
const SECURITY = /security|SOC ?2|pen test|encrypt|infosec|questionnaire|compliance|GDPR/i;
const INTEGRATION = /salesforce|hubspot|crm|sync|integration/i;
const SSO = /SSO|SAML|single sign|okta|identity provider/i;
const COMPETITOR = /Quotient|Stackwise|Pipewell|Clarion|Tallyhawk|competitor/i;
const SLACK = /slack/i;
const TRAINING = /train|adoption|onboard|enablement|coaching|walkthrough|workshop/i;

const inRegion = (region: string) => (s: Sql) => h.accountsWhere(s, 'a.region = $2', [region]);
const inIndustry = (industry: string) => (s: Sql) => h.accountsWhere(s, 'a.industry = $2', [industry]);
const inStage = (stage: string) => (s: Sql) => h.accountsInStage(s, stage);

export const WRITTEN_FRESH_2: Question[] = [
  // ---- two periods side by side ------------------------------------------------------------------
  {
    shape: 'period_compare',
    ask: 'meetings in october compared with september, up or down?',
    expect: {
      numbers: async (s) => [await h.count(s, 'meeting', P.lastMonth), await h.count(s, 'meeting', SEPTEMBER)],
    },
  },
  {
    shape: 'period_compare',
    ask: 'emails this qtr vs the same quarter last year',
    expect: {
      numbers: async (s) => [await h.count(s, 'email', P.thisQuarter), await h.count(s, 'email', Q4_2025)],
    },
  },
  {
    shape: 'period_compare',
    ask: 'How does closed-won revenue this quarter stack up against last quarter?',
    expect: { numbers: async (s) => [await wonIn(s, P.thisQuarter), await wonIn(s, P.lastQuarter)] },
  },
  {
    shape: 'period_compare',
    ask: 'is our win rate higher this year than it was last year?',
    expect: { mentionsEach: async (s) => [pct(await rateIn(s, P.thisYear)), pct(await rateIn(s, P.lastYear))] },
  },
  {
    shape: 'period_compare',
    ask: 'new deals created in Q3 compared to Q2?',
    expect: { numbers: async (s) => [await createdIn(s, P.lastQuarter), await createdIn(s, Q2_2026)] },
  },
  {
    shape: 'period_compare',
    ask: 'call volume month over month - november so far vs october',
    expect: { numbers: async (s) => [await h.count(s, 'call', NOVEMBER), await h.count(s, 'call', P.lastMonth)] },
  },
  {
    shape: 'period_compare',
    thread: ['how many meetings did we have in q3'],
    ask: 'vs the one before?',
    expect: {
      numbers: async (s) => [await h.count(s, 'meeting', P.lastQuarter), await h.count(s, 'meeting', Q2_2026)],
    },
  },
  {
    shape: 'period_compare',
    ask: 'did we win more deals this quarter than last',
    expect: { numbers: async (s) => [await wonCountIn(s, P.thisQuarter), await wonCountIn(s, P.lastQuarter)] },
  },
  {
    shape: 'period_compare',
    ask: 'emails in oct vs oct last year?',
    expect: { numbers: async (s) => [await h.count(s, 'email', P.lastMonth), await h.count(s, 'email', OCTOBER_2025)] },
  },

  // ---- several parts, every one answered ---------------------------------------------------------
  {
    shape: 'multi_part',
    ask: 'whats the total open pipeline in EMEA, and how many of those deals are still in discovery?',
    expect: {
      numbers: async (s) => [
        await openSum(s, `a.region = 'EMEA'`),
        await openCount(s, `a.region = 'EMEA' and d.stage = 'discovery'`),
      ],
    },
  },
  {
    shape: 'multi_part',
    ask: 'For the QBR deck: win rate this year, total won revenue this year, and how many deals we lost this year',
    expect: {
      mentionsEach: async (s) => [pct(await rateIn(s, P.thisYear))],
      numbers: async (s) => [await wonIn(s, P.thisYear), await lostCountIn(s, P.thisYear)],
    },
  },
  {
    shape: 'multi_part',
    ask: 'How many open deals does Mateo have and what are they worth altogether?',
    expect: {
      numbers: async (s) => [
        await openCount(s, `d.owner_email like 'mateo.%'`),
        await openSum(s, `d.owner_email like 'mateo.%'`),
      ],
    },
  },
  {
    shape: 'multi_part',
    ask: 'biggest deal sitting in negotiation, plus the weighted value of the whole negotiation stage',
    expect: {
      mentions: async (s) => (await h.openByAmount(s, `d.stage = 'negotiation'`)).slice(0, 1),
      numbers: async (s) => [await h.weighted(s, `d.stage = 'negotiation'`)],
    },
  },
  {
    shape: 'multi_part',
    ask: 'north america: open pipeline, win rate, and how many meetings we had with them last quarter',
    expect: {
      mentionsEach: async (s) => [pct(await h.winRate(s, `a.region = 'North America'`))],
      numbers: async (s) => [
        await openSum(s, `a.region = 'North America'`),
        await h.count(s, 'meeting', P.lastQuarter, `a.region = 'North America'`),
      ],
    },
  },
  {
    shape: 'multi_part',
    ask: 'APAC pipeline + APAC win rate pls',
    expect: {
      mentionsEach: async (s) => [pct(await h.winRate(s, `a.region = 'APAC'`))],
      numbers: async (s) => [await openSum(s, `a.region = 'APAC'`)],
    },
  },
  {
    shape: 'multi_part',
    ask: 'how many inbound emails came in this month, and which open deal is due to close next?',
    expect: {
      numbers: async (s) => [await h.count(s, 'email', NOVEMBER, `i.direction = 'inbound'`)],
      mentions: (s) =>
        column(
          s,
          `select d.name as v ${FROM_DEALS} and not d.is_closed and d.close_date >= '2026-11-20' order by d.close_date limit 1`,
        ),
    },
  },

  // ---- follow-ups that change one thing ----------------------------------------------------------
  {
    shape: 'follow_up',
    thread: ['open pipeline for rhea'],
    ask: 'and for oscar?',
    expect: { numbers: async (s) => [await openSum(s, `d.owner_email like 'oscar.%'`)] },
  },
  {
    shape: 'follow_up',
    thread: ['whats our win rate in emea'],
    ask: 'what about north america',
    expect: { mentionsEach: async (s) => [pct(await h.winRate(s, `a.region = 'North America'`))] },
  },
  {
    shape: 'follow_up',
    thread: ['how many calls did we log last month?'],
    ask: 'and meetings?',
    expect: { numbers: async (s) => [await h.count(s, 'meeting', P.lastMonth)] },
  },
  {
    shape: 'follow_up',
    thread: ['which deals are in the proposal stage'],
    ask: 'ok, now the negotiation ones',
    expect: {
      mentions: (s) => h.openByAmount(s, `d.stage = 'negotiation'`),
      absent: (s) => h.openByAmount(s, `d.stage = 'proposal' and d.name not like 'Harbor Health%'`),
    },
  },
  {
    shape: 'follow_up',
    thread: ['weighted pipeline for deals closing next quarter'],
    ask: 'same thing but for this quarter',
    expect: { numbers: async (s) => [await h.weighted(s, within('d.close_date', P.thisQuarter))] },
  },
  {
    shape: 'follow_up',
    thread: ['how much did we win in Q3?'],
    ask: 'and Q2',
    expect: { numbers: async (s) => [await wonIn(s, Q2_2026)] },
  },
  {
    shape: 'follow_up',
    thread: ["list andre dubois's open deals"],
    ask: 'only the EMEA ones',
    expect: {
      mentions: (s) => h.openByAmount(s, `d.owner_email like 'andre.dubois@%' and a.region = 'EMEA'`),
      absent: (s) => h.openByAmount(s, `d.owner_email like 'andre.dubois@%' and a.region <> 'EMEA'`),
    },
  },
  {
    shape: 'follow_up',
    thread: ['how many calls with APAC accounts this year?'],
    ask: 'and north america?',
    expect: { numbers: async (s) => [await h.count(s, 'call', P.thisYear, `a.region = 'North America'`)] },
  },

  // ---- what a segment's customers said on a topic ------------------------------------------------
  {
    shape: 'voice_topic',
    ask: 'what are APAC accounts saying about price',
    expect: { quotes: 'required', topic: MONEY, quoteAccounts: inRegion('APAC') },
  },
  {
    shape: 'voice_topic',
    ask: 'financial services customers - any security worries? need quotes',
    expect: { quotes: 'required', topic: SECURITY, quoteAccounts: inIndustry('Financial Services') },
  },
  {
    shape: 'voice_topic',
    ask: 'quotes from media companies on the salesforce / hubspot integration',
    expect: { quotes: 'required', topic: INTEGRATION, quoteAccounts: inIndustry('Media') },
  },
  {
    shape: 'voice_topic',
    ask: 'What did the accounts at proposal stage say about SSO?',
    expect: { quotes: 'required', topic: SSO, quoteAccounts: inStage('proposal') },
  },
  {
    shape: 'voice_topic',
    ask: 'evaluation-stage deals: what are those buyers saying about competitors',
    expect: { quotes: 'required', topic: COMPETITOR, quoteAccounts: inStage('evaluation') },
  },
  {
    shape: 'voice_topic',
    ask: 'emea folks on slack, what did they say',
    expect: { quotes: 'required', topic: SLACK, quoteAccounts: inRegion('EMEA') },
  },
  {
    shape: 'voice_topic',
    ask: 'insurance accounts - anything about onboarding or training the reps?',
    expect: { quotes: 'required', topic: TRAINING, quoteAccounts: inIndustry('Insurance') },
  },
  {
    shape: 'voice_topic',
    ask: 'accounts in negotiaton talking about discounts or budget — show me what they said',
    expect: { quotes: 'required', topic: MONEY, quoteAccounts: inStage('negotiation') },
  },

  // ---- pipeline lists --------------------------------------------------------------------------
  {
    shape: 'pipeline',
    ask: 'top 3 open deals in EMEA by size',
    expect: {
      mentions: async (s) => (await h.openByAmount(s, `a.region = 'EMEA'`)).slice(0, 3),
      absent: async (s) =>
        (await h.openByAmount(s, `a.region <> 'EMEA'`)).filter((n) => !n.startsWith('Granite')).slice(0, 3),
    },
  },
  {
    shape: 'pipeline',
    ask: 'open pipeline split out by deal stage?',
    expect: { numbers: (s) => perStage(s, 'coalesce(sum(d.amount), 0)') },
  },
  {
    shape: 'pipeline',
    ask: "who's carrying the most open pipeline? rank the reps",
    expect: {
      mentions: async (s) => [
        (
          await column(
            s,
            `select split_part(d.owner_email, '.', 1) as v ${FROM_DEALS} and not d.is_closed group by d.owner_email order by sum(d.amount) desc nulls last limit 1`,
          )
        ).map((n) => n.charAt(0).toUpperCase() + n.slice(1))[0] ?? '',
      ],
      numbers: async (s) =>
        (
          await column(
            s,
            `select sum(d.amount) as v ${FROM_DEALS} and not d.is_closed group by d.owner_email order by 1 desc nulls last limit 2`,
          )
        ).map(Number),
    },
  },
  {
    shape: 'pipeline',
    ask: 'open opps over 50k in north america',
    expect: {
      mentions: (s) => h.openByAmount(s, `a.region = 'North America' and d.amount > 50000`),
      absent: async () => [
        'Nimbus Logistics - EMEA Rollout',
        'Keystone Health - Renewal 2027',
        'Glacier Logistics - New Business',
      ],
    },
  },
  {
    shape: 'pipeline',
    ask: 'list every renewal that is still open, with amounts',
    expect: {
      mentions: (s) => h.openByAmount(s, `d.name ilike '%renewal%'`),
      absent: async () => ['Prism Logistics - Second Attempt', 'Jasper Logistics - Pilot'],
    },
  },
  {
    shape: 'pipeline',
    ask: 'which prospecting stage deals does rhea own',
    expect: {
      mentions: (s) => h.openByAmount(s, `d.stage = 'prospecting' and d.owner_email like 'rhea.%'`),
      absent: (s) => h.openByAmount(s, `d.stage = 'prospecting' and d.owner_email not like 'rhea.%'`),
    },
  },
  {
    shape: 'pipeline',
    ask: 'Show me pipeline in the Retail industry, biggest first',
    expect: {
      mentions: (s) => h.openByAmount(s, `a.industry = 'Retail'`),
      absent: async () => ['Prism Logistics - New Business', 'Acme Logistics - Renewal 2026'],
    },
  },
  {
    shape: 'closing_window',
    ask: "what's slated to close in december?",
    expect: {
      mentions: (s) => h.openByAmount(s, within('d.close_date', DECEMBER)),
      absent: async () => [
        'Acme Logistics - Renewal 2026',
        'Indigo Logistics - Renewal 2026',
        'Prism Logistics - Second Attempt',
      ],
    },
  },

  // ---- win rate ----------------------------------------------------------------------------------
  {
    shape: 'win_rate',
    ask: 'win rate on small deals, under 20k',
    expect: { mentionsSome: async (s) => pct(await h.winRate(s, 'd.amount < 20000')) },
  },
  {
    shape: 'win_rate',
    ask: 'who has the worst win rate on the team?',
    expect: {
      mentions: async (s) => (await h.winRateByRep(s)).slice(-1).map((r) => r.rep),
    },
  },
  {
    shape: 'win_rate',
    ask: 'how often do we actually win retail deals',
    expect: { mentionsSome: async (s) => pct(await h.winRate(s, `a.industry = 'Retail'`)) },
  },
  {
    shape: 'win_rate',
    ask: 'healthcare win %',
    expect: { mentionsSome: async (s) => pct(await h.winRate(s, `a.industry = 'Healthcare'`)) },
  },
  {
    shape: 'win_rate',
    ask: 'close rate on everything that closed since sept 1',
    expect: { mentionsSome: async (s) => pct(await rateIn(s, SINCE_SEPTEMBER)) },
  },
  {
    shape: 'win_rate',
    ask: "what was zoe's win rate last year",
    expect: { mentionsSome: async (s) => pct(await rateIn(s, P.lastYear, `d.owner_email like 'zoe.%'`)) },
  },
  {
    shape: 'win_rate',
    ask: 'Win rate split by region, please.',
    expect: {
      mentionsEach: async (s) =>
        Promise.all(['EMEA', 'APAC', 'North America'].map(async (r) => pct(await h.winRate(s, 'a.region = $2', [r])))),
    },
  },

  // ---- weighted pipeline -------------------------------------------------------------------------
  {
    shape: 'weighted_pipeline',
    ask: "weighted forecast for andre nakamura's deals",
    expect: { numbers: async (s) => [await h.weighted(s, `d.owner_email like 'andre.nakamura@%'`)] },
  },
  {
    shape: 'weighted_pipeline',
    ask: 'expected value of everything closing in Q1 next year',
    expect: { numbers: async (s) => [await h.weighted(s, within('d.close_date', P.nextQuarter))] },
  },
  {
    shape: 'weighted_pipeline',
    ask: 'weighted pipeline by stage please',
    expect: { numbers: (s) => perStage(s, 'coalesce(sum(d.amount * d.probability / 100.0), 0)') },
  },
  {
    shape: 'weighted_pipeline',
    ask: "what's the risk-adjusted pipeline for discovery",
    expect: { numbers: async (s) => [await h.weighted(s, `d.stage = 'discovery'`)] },
  },
  {
    shape: 'weighted_pipeline',
    ask: 'probability weighted value of deals at logistics-industry accounts',
    expect: { numbers: async (s) => [await h.weighted(s, `a.industry = 'Logistics'`)] },
  },
  {
    shape: 'weighted_pipeline',
    ask: 'sum of amount x probability for open deals at healthcare companies',
    expect: { numbers: async (s) => [await h.weighted(s, `a.industry = 'Healthcare'`)] },
  },
  {
    shape: 'weighted_pipeline',
    ask: 'whats paulas weighted number',
    expect: { numbers: async (s) => [await h.weighted(s, `d.owner_email like 'paula.%'`)] },
  },

  // ---- pushed out / slipped ----------------------------------------------------------------------
  {
    shape: 'slipped',
    ask: 'which open opps did the customer put on ice?',
    expect: { mentions: (s) => h.pushedDeals(s, true) },
  },
  {
    shape: 'slipped',
    ask: "any of mateo's deals get pushed out?",
    expect: { mentionsSome: (s) => pushedOf(s, 'mateo') },
  },
  {
    shape: 'slipped',
    ask: 'deals the buyer delayed over the summer',
    expect: { mentionsSome: (s) => h.pushedDeals(s, false, SUMMER) },
  },
  {
    shape: 'slipped',
    ask: 'what got postponed in the last 6 months',
    expect: { mentionsSome: (s) => h.pushedDeals(s, false, LAST_SIX_MONTHS) },
  },

  // ---- subjects the data does not hold -----------------------------------------------------------
  {
    shape: 'absent_subject',
    ask: 'whats our NPS this quarter',
    expect: { says: saysAbsent('NPS|net promoter'), quotes: 'none' },
  },
  {
    shape: 'absent_subject',
    ask: 'how did the october email campaign do? open rates?',
    expect: { says: saysAbsent('campaign|open rate'), quotes: 'none' },
  },
  {
    shape: 'absent_subject',
    ask: 'CSAT scores for our top customers?',
    expect: { says: saysAbsent('CSAT|satisfaction'), quotes: 'none' },
  },
  {
    shape: 'absent_subject',
    ask: 'what did Globex tell us on the last call',
    expect: { says: saysAbsent('Globex'), quotes: 'none' },
  },
];

/**
 * Shapes of this set whose failures were read while fixing their mechanism (people's pipelines and win
 * rates, weighted pipeline, several parts in one ask): those questions count as dev now; later fresh sets
 * measure these analyses instead.
 */
export const DEVELOPED_FRESH_2_SHAPES: ReadonlySet<string> = new Set([
  'pipeline',
  'win_rate',
  'weighted_pipeline',
  'multi_part',
]);
export const DEVELOPED_ON_FRESH_2: Question[] = WRITTEN_FRESH_2.filter((q) => DEVELOPED_FRESH_2_SHAPES.has(q.shape));
export const HELD_OUT_FRESH_2: Question[] = WRITTEN_FRESH_2.filter((q) => !DEVELOPED_FRESH_2_SHAPES.has(q.shape));
