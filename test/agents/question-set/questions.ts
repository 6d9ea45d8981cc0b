import { facts as f, P } from './facts.js';
import type { Question } from './judge.js';

/**
 * Questions a sales or customer-success user asks the demo workspace, in their words: typos,
 * trailing full stops, questions that start with "Why", "Anything", "Break down", a person's name
 * or "And", periods named every way people name them, follow-ups in the same chat, a topic the data
 * never mentions, and a few the model should honestly say it did not understand.
 */

const PRICING = /pric|cost|discount|budget|expensive|quote|spend|seat|contract|finance|cheaper|afford|invoice/i;
const SECURITY = /secur|SOC ?2|pen(etration)? test|audit|encrypt|SSO|SAML|complian|ISO|vulnerab|breach|access/i;
const ONBOARDING = /onboard|train|implement|rollout|roll out|go-live|go live|kickoff|migrat|setup|set up|launch/i;
const RENEWAL = /renew/i;
const PRIVACY = /privacy|GDPR|DPA|residen|personal data|retention|delete|consent|data processing/i;
const COMPETITORS = /Quotient Labs|Stackwise|Pipewell|Clarion AI|Tallyhawk/;
const period = (p: keyof typeof P, field: 'occurred_at' | 'close_date' = 'occurred_at') => ({
  from: P[p][0],
  to: P[p][1],
  field,
});
const open = 'not d.is_closed';

export const QUESTIONS: Question[] = [
  // ---- account brief --------------------------------------------------------------------------
  {
    shape: 'account brief',
    ask: 'Prep me for my call with Tidewater Logistics.',
    expect: { mentions: async (s) => ['Tidewater Logistics', ...(await f.openDealsOf(s, 'Tidewater Logistics'))] },
  },
  {
    shape: 'account brief',
    ask: 'brief me on Keystone Helath',
    expect: { mentions: async (s) => ['Keystone Health', ...(await f.openDealsOf(s, 'Keystone Health'))] },
  },
  {
    shape: 'account brief',
    ask: "What's going on with Prism Logistics?",
    expect: { mentions: async (s) => ['Prism Logistics', ...(await f.openDealsOf(s, 'Prism Logistics'))] },
  },
  {
    shape: 'account brief',
    ask: 'Anything new with Willow Logistics?',
    expect: {
      notNamed: ['Anything'],
      mentions: async (s) => ['Willow Logistics', ...(await f.openDealsOf(s, 'Willow Logistics'))],
    },
  },
  {
    shape: 'account brief',
    ask: 'catch me up on acme logistics',
    expect: { mentions: async (s) => ['Acme Logistics', ...(await f.openDealsOf(s, 'Acme Logistics'))] },
  },

  // ---- what customers say about a topic ---------------------------------------------------------
  {
    shape: 'voice',
    ask: 'What do customers say about pricing?',
    expect: { quotes: 'required', topic: PRICING },
  },
  {
    shape: 'voice',
    // It quoted "we have a security questionnaire with about two hundred questions" six times, six openers.
    ask: 'What concerns do buyers raise about security?',
    expect: { quotes: 'required', topic: SECURITY, distinctQuotes: true },
  },
  {
    shape: 'voice',
    ask: 'Why do customers push back on pricing?',
    expect: { notNamed: ['Why'], quotes: 'required', topic: PRICING },
  },
  {
    shape: 'voice',
    ask: 'What are customers saying about security reviews?',
    expect: { quotes: 'required', topic: SECURITY },
  },
  {
    shape: 'voice',
    ask: 'What do customers say about onboarding and training?',
    expect: { quotes: 'required', topic: ONBOARDING },
  },
  {
    shape: 'voice',
    ask: 'What are customers saying about the Salesforce integration?',
    expect: { quotes: 'required', topic: /Salesforce/ },
  },
  {
    shape: 'voice + period',
    ask: 'What did customers say about renewal last quarter?',
    expect: { quotes: 'required', topic: RENEWAL, period: period('lastQuarter') },
  },
  {
    shape: 'voice + period',
    ask: 'What have customers said about data privacy recently?',
    expect: { quotes: 'required', topic: PRIVACY, period: period('recent') },
  },
  {
    shape: 'voice, absent topic',
    ask: 'What do customers say about our mobile app?',
    expect: { quotes: 'none', says: /mobile/i },
  },
  {
    shape: 'voice',
    ask: 'Any complaints about the HubSpot sync?',
    expect: { notNamed: ['Any'], quotes: 'required', topic: /HubSpot/ },
  },
  {
    shape: 'voice + period',
    ask: 'What did customers say about pricing in the last 60 days?',
    expect: { quotes: 'required', topic: PRICING, period: period('last60') },
  },

  // ---- one account, one topic ---------------------------------------------------------------
  {
    shape: 'account topic + period',
    ask: 'What did Tidewater Logistics say about security last quarter?',
    expect: { period: period('lastQuarter'), topic: SECURITY, quoteAccounts: async () => ['Tidewater Logistics'] },
  },
  {
    shape: 'account topic + period',
    ask: 'What did Acme Logistics say about pricing this year?',
    expect: {
      quotes: 'required',
      period: period('thisYear'),
      topic: PRICING,
      quoteAccounts: async () => ['Acme Logistics'],
    },
  },
  {
    shape: 'account topic + period',
    ask: 'What has Keystone Health said about renewal since last month?',
    expect: { period: period('sinceLastMonth'), topic: RENEWAL, quoteAccounts: async () => ['Keystone Health'] },
  },
  {
    shape: 'account topic, competitor',
    ask: 'What did Bramble Logistics say about Pipewell?',
    expect: { topic: /Pipewell/, quoteAccounts: async () => ['Bramble Logistics'] },
  },
  {
    shape: 'account topic, partial name',
    ask: 'what did tidewater say about budget',
    expect: { quotes: 'required', topic: PRICING, quoteAccounts: async () => ['Tidewater Logistics'] },
  },
  {
    // "lately" is a period (the last 90 days), and neither it nor "been saying" is the topic.
    shape: 'account topic + period',
    ask: 'what has acme logistics been saying about security lately',
    expect: {
      topic: SECURITY,
      period: period('recent'),
      quoteAccounts: async () => ['Acme Logistics'],
      unsaid: /saying security|been security/,
    },
  },
  {
    // A typo in the account, the period in words: the window applied to every quote and row, or said not to be.
    shape: 'account topic + period',
    ask: 'what did keystone helth say about renewal in the past two weeks',
    expect: {
      topic: RENEWAL,
      period: period('last14'),
      quoteAccounts: async () => ['Keystone Health'],
      unsaid: /renewal past two weeks/,
    },
  },
  {
    shape: 'voice + period',
    ask: 'what have customers been saying about pricing recently?',
    expect: { quotes: 'required', topic: PRICING, period: period('recent'), unsaid: /about been\b/ },
  },

  // ---- deal lists and totals ----------------------------------------------------------------
  {
    shape: 'deals',
    ask: 'Which deals over $50K are in negotiation?',
    expect: { mentions: (s) => f.dealNames(s, `d.stage = 'negotiation' and d.amount > 50000`) },
  },
  {
    shape: 'deals + period',
    ask: 'How many deals did we win this year?',
    expect: {
      numbers: async (s) => [
        await f.dealCount(s, `d.is_won and d.close_date >= $2 and d.close_date < $3`, [...P.thisYear]),
      ],
      period: period('thisYear', 'close_date'),
    },
  },
  {
    shape: 'deals',
    ask: "What's the total value of our open deals?",
    expect: { numbers: async (s) => [await f.dealSum(s, open)] },
  },
  {
    shape: 'deals + period',
    ask: 'How much did we lose last quarter?',
    expect: {
      numbers: async (s) => [
        await f.dealSum(s, `d.is_closed and not d.is_won and d.close_date >= $2 and d.close_date < $3`, [
          ...P.lastQuarter,
        ]),
      ],
      period: period('lastQuarter', 'close_date'),
    },
  },
  {
    shape: 'deals',
    ask: 'List the deals in the proposal stage.',
    expect: { mentions: (s) => f.dealNames(s, `d.stage = 'proposal'`) },
  },
  {
    shape: 'deals',
    ask: 'Which open deals are over $60,000?',
    expect: { mentions: (s) => f.dealNames(s, `${open} and d.amount > 60000`) },
  },
  {
    shape: 'deals + period',
    ask: 'How many deals did we lose in the last 60 days?',
    expect: {
      numbers: async (s) => [
        await f.dealCount(s, `d.is_closed and not d.is_won and d.close_date >= $2 and d.close_date < $3`, [
          ...P.last60,
        ]),
      ],
      period: period('last60', 'close_date'),
    },
  },
  {
    shape: 'deals by stage',
    ask: 'Break down the open pipeline by stage',
    expect: {
      notNamed: ['Break'],
      numbers: async (s) =>
        (
          await s<{ n: number }>(
            `select count(*)::int as n from deals where workspace_id = $1 and not is_closed group by stage`,
          )
        ).map((r) => r.n),
    },
  },

  // ---- a rep's pipeline ----------------------------------------------------------------------
  {
    shape: 'rep pipeline',
    ask: "What's in Rhea Okafor's pipeline?",
    expect: { mentions: (s) => f.dealNames(s, `${open} and d.owner_email = 'rhea.okafor@brightwave.io'`) },
  },
  {
    shape: 'rep pipeline + period',
    ask: 'Rhea Okafor deals closing this quarter',
    expect: {
      notNamed: ['Rhea Okafor'],
      mentions: (s) =>
        f.dealNames(
          s,
          `${open} and d.owner_email = 'rhea.okafor@brightwave.io' and d.close_date >= $2 and d.close_date < $3`,
          [...P.thisQuarter],
        ),
      period: period('thisQuarter', 'close_date'),
    },
  },
  {
    shape: 'rep pipeline total',
    ask: 'How much open pipeline does Mateo Bauer have?',
    expect: { numbers: async (s) => [await f.dealSum(s, `${open} and d.owner_email = 'mateo.bauer@brightwave.io'`)] },
  },
  {
    shape: 'rep wins + period',
    ask: 'Which deals did Zoe Kim win this year?',
    expect: {
      mentions: (s) =>
        f.dealNames(
          s,
          `d.is_won and d.owner_email = 'zoe.kim@brightwave.io' and d.close_date >= $2 and d.close_date < $3`,
          [...P.thisYear],
        ),
      period: period('thisYear', 'close_date'),
    },
  },

  // ---- gone quiet ------------------------------------------------------------------------------
  {
    shape: 'quiet deals',
    ask: 'Which deals have gone quiet?',
    expect: { mentions: (s) => f.quietDeals(s, P.last30[0]), quotes: 'none' },
  },
  {
    shape: 'quiet accounts',
    ask: "Which accounts haven't we touched in 60 days?",
    expect: { mentions: (s) => f.quietAccounts(s, P.last60[0]), quotes: 'none' },
  },
  {
    // "gone quiet" with a number: that number of days, not the default month.
    shape: 'quiet accounts',
    ask: 'Which accounts have gone quiet for 60 days?',
    expect: {
      mentions: (s) => f.quietAccounts(s, P.last60[0]),
      absent: async (s) => [...(await f.lastTouchedBetween(s, P.last60[0], P.last30[0])), ...(await f.notBuyers(s))],
      unsaid: /in the period you asked about \(in the period/,
      quotes: 'none',
    },
  },
  {
    shape: 'quiet deals',
    ask: 'Any open deals with no touch in 45 days?',
    expect: { notNamed: ['Any'], mentions: (s) => f.quietDeals(s, P.last45[0]), quotes: 'none' },
  },

  // ---- closing soon ------------------------------------------------------------------------------
  {
    shape: 'closing',
    ask: 'Which deals are closing this quarter?',
    expect: {
      mentions: (s) => f.dealNames(s, `${open} and d.close_date >= $2 and d.close_date < $3`, [...P.thisQuarter]),
      period: period('thisQuarter', 'close_date'),
    },
  },
  {
    shape: 'closing',
    ask: "What's closing in the next 30 days?",
    expect: {
      mentions: (s) => f.dealNames(s, `${open} and d.close_date >= $2 and d.close_date < $3`, [...P.next30]),
      period: period('next30', 'close_date'),
    },
  },
  {
    shape: 'closing',
    ask: 'deals closing next quarter',
    expect: {
      mentions: (s) => f.dealNames(s, `${open} and d.close_date >= $2 and d.close_date < $3`, [...P.nextQuarter]),
      period: period('nextQuarter', 'close_date'),
    },
  },

  // ---- what changed ----------------------------------------------------------------------------
  {
    shape: 'what changed',
    ask: 'What changed with Acme Logistics since last month?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(s, `a.name = 'Acme Logistics' and i.occurred_at >= $2 and i.occurred_at < $3`, [
          ...P.sinceLastMonth,
        ]),
      ],
      period: period('sinceLastMonth'),
    },
  },
  {
    shape: 'what changed',
    ask: "What's new with Keystone Health in the last 30 days?",
    expect: {
      numbers: async (s) => [
        await f.interactionCount(s, `a.name = 'Keystone Health' and i.occurred_at >= $2 and i.occurred_at < $3`, [
          ...P.last30,
        ]),
      ],
      mentions: (s) =>
        f.dealNames(s, `a.name = 'Keystone Health' and d.occurred_at >= $2 and d.occurred_at < $3`, [...P.last30]),
      period: period('last30'),
    },
  },
  {
    shape: 'what changed',
    ask: 'What happened with Prism Logistics this quarter?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(s, `a.name = 'Prism Logistics' and i.occurred_at >= $2 and i.occurred_at < $3`, [
          ...P.thisQuarter,
        ]),
      ],
      period: period('thisQuarter'),
    },
  },

  // ---- why deals were lost --------------------------------------------------------------------
  {
    shape: 'loss reasons',
    ask: 'Why did we lose deals last quarter?',
    expect: {
      notNamed: ['Why'],
      mentionsSome: (s) =>
        f.dealNames(s, `d.is_closed and not d.is_won and d.close_date >= $2 and d.close_date < $3`, [...P.lastQuarter]),
      numbers: async (s) => [
        await f.dealCount(s, `d.is_closed and not d.is_won and d.close_date >= $2 and d.close_date < $3`, [
          ...P.lastQuarter,
        ]),
      ],
      quoteAccounts: async (s) =>
        (
          await s<{ name: string }>(
            `select distinct a.name from deals d join accounts a on a.id = d.account_id
             where d.workspace_id = $1 and d.is_closed and not d.is_won and d.close_date >= $2 and d.close_date < $3`,
            [...P.lastQuarter],
          )
        ).map((r) => r.name),
    },
  },
  {
    shape: 'loss reasons',
    ask: 'Why are we losing deals this year?',
    expect: {
      numbers: async (s) => [
        await f.dealCount(s, `d.is_closed and not d.is_won and d.close_date >= $2 and d.close_date < $3`, [
          ...P.thisYear,
        ]),
      ],
    },
  },
  {
    shape: 'loss reasons, one deal',
    ask: 'Why did we lose the Willow Logistics renewal?',
    expect: {
      mentions: async () => ['Willow Logistics - Renewal 2026'],
      quoteAccounts: async () => ['Willow Logistics'],
    },
  },

  // ---- champions and economic buyers ---------------------------------------------------------
  {
    shape: 'qualification',
    ask: 'Who is the champion on the Acme Logistics renewal?',
    expect: {
      mentions: async (s) =>
        (await f.latestQualification(s, 'champion', `d.name = 'Acme Logistics - Renewal 2026'`)).flatMap((r) =>
          r.notes ? [r.notes] : [],
        ),
    },
  },
  {
    shape: 'qualification',
    ask: 'Which open deals have no economic buyer identified?',
    expect: {
      mentions: async (s) =>
        (await f.latestQualification(s, 'economic_buyer', `${open} and q.status = 'unknown'`)).map((r) => r.deal),
    },
  },
  {
    shape: 'qualification',
    ask: 'Which open deals have a champion at risk?',
    expect: {
      mentions: async (s) =>
        (await f.latestQualification(s, 'champion', `${open} and q.status = 'at_risk'`)).map((r) => r.deal),
    },
  },
  {
    // The open Tidewater deal has no economic buyer assessment: said as such, not "the latest say otherwise".
    shape: 'qualification',
    ask: "who's the economic buyer on the Tidewater deal?",
    expect: {
      mentions: async (s) =>
        (await f.latestQualification(s, 'economic_buyer', `${open} and a.name = 'Tidewater Logistics'`)).map(
          (r) => r.deal,
        ),
      unsaid: /say otherwise/,
    },
  },
  {
    shape: 'qualification',
    ask: 'Economic buyer status for Keystone Health',
    expect: {
      mentions: async (s) =>
        (await f.latestQualification(s, 'economic_buyer', `${open} and a.name = 'Keystone Health'`)).flatMap((r) => [
          r.deal,
          ...(r.notes ? [r.notes] : []),
        ]),
    },
  },

  // ---- competitors -------------------------------------------------------------------------------
  {
    shape: 'competitor ranking',
    ask: 'Which competitors come up most often?',
    expect: {
      mentions: async () => ['Pipewell', 'Tallyhawk', 'Quotient Labs', 'Clarion AI', 'Stackwise'],
      numbers: async (s) => [await f.mentionCount(s, 'Pipewell'), await f.mentionCount(s, 'Stackwise')],
      topic: COMPETITORS,
    },
  },
  {
    shape: 'competitor count + period',
    ask: 'How often did Tallyhawk come up this year?',
    expect: {
      numbers: async (s) => [await f.mentionCount(s, 'Tallyhawk', P.thisYear)],
      topic: /Tallyhawk/,
      period: period('thisYear'),
    },
  },
  {
    // Which accounts, not what was said: the accounts behind the mentions, each of them.
    shape: 'competitor accounts + period',
    ask: 'Which accounts mentioned Pipewell last quarter?',
    expect: {
      mentions: async (s) => f.accountsMentioning(s, 'Pipewell', P.lastQuarter),
      unsaid: /accounts mentioned pipewell/i,
      period: period('lastQuarter'),
    },
  },
  {
    // A follow-up about the ranking just given: "the top one" is the most mentioned competitor.
    shape: 'follow-up',
    thread: ['Which competitors came up most last quarter?'],
    ask: 'and which accounts mentioned the top one?',
    expect: {
      mentions: async (s) => {
        const names = ['Pipewell', 'Tallyhawk', 'Quotient Labs', 'Clarion AI', 'Stackwise'];
        const counts = await Promise.all(
          names.map(async (n) => [n, await f.mentionCount(s, n, P.lastQuarter)] as const),
        );
        const top = counts.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
        return [top, ...(await f.accountsMentioning(s, top, P.lastQuarter))];
      },
      quotes: 'none',
    },
  },
  {
    shape: 'competitor voice',
    ask: 'What do customers say about Pipewell?',
    expect: { quotes: 'required', topic: /Pipewell/ },
  },

  // ---- comparisons -------------------------------------------------------------------------------
  {
    shape: 'comparison of periods',
    ask: 'Compare deals won this year vs last year',
    expect: {
      numbers: async (s) => [
        await f.dealCount(s, `d.is_won and d.close_date >= $2 and d.close_date < $3`, [...P.thisYear]),
        await f.dealCount(s, `d.is_won and d.close_date >= $2 and d.close_date < $3`, [...P.lastYear]),
      ],
    },
  },
  {
    shape: 'comparison of segments',
    ask: 'Compare open pipeline in EMEA and North America',
    expect: {
      numbers: async (s) => [
        await f.dealSum(s, `${open} and a.region = 'EMEA'`),
        await f.dealSum(s, `${open} and a.region = 'North America'`),
      ],
    },
  },
  {
    shape: 'comparison of periods',
    ask: 'Compare the number of calls last quarter and this quarter',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(s, `i.kind = 'call' and i.occurred_at >= $2 and i.occurred_at < $3`, [
          ...P.lastQuarter,
        ]),
        await f.interactionCount(s, `i.kind = 'call' and i.occurred_at >= $2 and i.occurred_at < $3`, [
          ...P.thisQuarter,
        ]),
      ],
    },
  },

  // ---- churn risk -------------------------------------------------------------------------------
  {
    shape: 'churn risk',
    ask: 'Which customers are at risk of churning?',
    expect: {
      says: /champion|economic buyer/i,
      mentionsSome: async (s) =>
        (
          await f.latestQualification(s, 'champion', `${open} and q.status = 'at_risk' and a.type = 'customer'`)
        ).flatMap((r) => (r.account ? [r.account] : [])),
    },
  },
  {
    shape: 'churn risk, one account',
    ask: 'Is there any churn risk at Willow Logistics?',
    expect: { mentions: async () => ['Willow Logistics'], says: /champion|economic buyer|renewal/i },
  },

  // ---- activity counts ---------------------------------------------------------------------------
  {
    shape: 'activity count + period',
    ask: 'How many calls did we have last month?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(s, `i.kind = 'call' and i.occurred_at >= $2 and i.occurred_at < $3`, [...P.lastMonth]),
      ],
    },
  },
  {
    shape: 'activity count + period',
    ask: 'How many calls did we have with Acme Logistics last month?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(
          s,
          `i.kind = 'call' and a.name = 'Acme Logistics' and i.occurred_at >= $2 and i.occurred_at < $3`,
          [...P.lastMonth],
        ),
      ],
      // It read "There was **1** calls with Acme Logistics last month."
      unsaid: /There was \*\*\d+\*\* (calls|meetings|emails|posts)\b|There were \*\*1\*\*/,
    },
  },
  {
    shape: 'activity count + period',
    ask: 'How many emails did we exchange with Bramble Logistics this year?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(
          s,
          `i.kind = 'email' and a.name = 'Bramble Logistics' and i.occurred_at >= $2 and i.occurred_at < $3`,
          [...P.thisYear],
        ),
      ],
    },
  },
  {
    shape: 'activity count + period',
    ask: 'How many meetings with Acme Logistics in the last 60 days?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(
          s,
          `i.kind = 'meeting' and a.name = 'Acme Logistics' and i.occurred_at >= $2 and i.occurred_at < $3`,
          [...P.last60],
        ),
      ],
      period: period('last60'),
    },
  },
  {
    shape: 'activity count + period',
    ask: 'Number of calls with Tidewater Logistics since last month.',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(
          s,
          `i.kind = 'call' and a.name = 'Tidewater Logistics' and i.occurred_at >= $2 and i.occurred_at < $3`,
          [...P.sinceLastMonth],
        ),
      ],
      period: period('sinceLastMonth'),
    },
  },
  {
    shape: 'activity count + period',
    ask: 'How many interactions did we have this quarter?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(s, `i.occurred_at >= $2 and i.occurred_at < $3`, [...P.thisQuarter]),
      ],
    },
  },

  // ---- follow-ups in the same chat ---------------------------------------------------------------
  {
    shape: 'follow-up',
    thread: ["What's in Rhea Okafor's pipeline?"],
    ask: 'And which of those close this quarter?',
    expect: {
      notNamed: ['And'],
      mentions: (s) =>
        f.dealNames(
          s,
          `${open} and d.owner_email = 'rhea.okafor@brightwave.io' and d.close_date >= $2 and d.close_date < $3`,
          [...P.thisQuarter],
        ),
      period: period('thisQuarter', 'close_date'),
    },
  },
  {
    shape: 'follow-up',
    thread: ['Brief me on Keystone Health'],
    ask: 'What did they say about pricing?',
    expect: { quotes: 'required', topic: PRICING, quoteAccounts: async () => ['Keystone Health'] },
  },
  {
    shape: 'follow-up',
    thread: ['Which deals are closing this quarter?'],
    ask: 'And what is the total?',
    expect: {
      notNamed: ['And'],
      numbers: async (s) => [
        await f.dealSum(s, `${open} and d.close_date >= $2 and d.close_date < $3`, [...P.thisQuarter]),
      ],
    },
  },
  {
    shape: 'follow-up',
    thread: ['Prep me for Prism Logistics'],
    ask: 'Who is their economic buyer?',
    expect: {
      mentions: async (s) =>
        (await f.latestQualification(s, 'economic_buyer', `${open} and a.name = 'Prism Logistics'`)).flatMap((r) => [
          r.deal,
          ...(r.notes ? [r.notes] : []),
        ]),
    },
  },
  {
    shape: 'follow-up',
    thread: ['What did Acme Logistics say about pricing this year?'],
    ask: 'How many calls did we have with that account last quarter?',
    expect: {
      numbers: async (s) => [
        await f.interactionCount(
          s,
          `i.kind = 'call' and a.name = 'Acme Logistics' and i.occurred_at >= $2 and i.occurred_at < $3`,
          [...P.lastQuarter],
        ),
      ],
    },
  },

  // ---- honestly not understood ----------------------------------------------------------------------
  { shape: 'not understood', ask: 'asdf qwerty zxcv', expect: { refusal: true } },
  { shape: 'not understood', ask: "What's the weather in Paris tomorrow?", expect: { refusal: true } },
  {
    shape: 'not understood',
    ask: 'Book a meeting with the Acme team for Tuesday',
    expect: { refusal: true },
  },
  {
    // A company the workspace does not hold: named absent, with the count of 0 that proves it, never
    // answered with other companies' quotes.
    shape: 'unknown company',
    ask: 'What did Globex say about pricing?',
    expect: { quotes: 'none', says: /no \*\*Globex\*\*|Globex[^.]*not/i, refusal: true },
  },
  {
    shape: 'missing field',
    ask: 'What is our net revenue retention this year?',
    expect: { quotes: 'none', says: /revenue|retention/i, refusal: true },
  },
];
