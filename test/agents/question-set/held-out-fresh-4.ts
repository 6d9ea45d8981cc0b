import { KEPT, P } from './facts.js';
import { column, dateForms, pct, saysAbsent, scalar } from './held-out.js';
import type { Question, Sql } from './judge.js';

/**
 * A fourth fresh held-out set: written from the schema, the demo corpus (its generator files and SQL
 * over the seeded rows) and the spec alone, by someone who has read neither the answering code, the
 * dev set, nor the earlier held-out questions beyond the third set's format. It asks what sales, CS
 * and marketing people ask of their calls and their CRM (champion changes, an account's history,
 * competitors, feature requests, renewal risk, quiet deals and accounts, lost reasons, talk ratio,
 * pipeline lists and totals, win rates), with follow-ups and subjects the corpus does not hold, in
 * their own words. It measures (bench/answers.ts) and never gates. Every truth is SQL written here
 * over the corpus, run when the question is judged; today is facts.ts's TODAY, 2026-11-20.
 *
 * How these truths read the corpus: a rep is a deal owner (the two sales engineers own no deal); a
 * rep's talk ratio is their seconds over all seconds spoken in the calls and meetings they spoke in;
 * a feature request is a buyer's turn or inbound email asking for something, in families named by
 * the words buyers use, counted by distinct buyer accounts; a renewal is a deal named as one, at risk
 * when the latest assessment of one of its criteria is at risk or its account's champion has left; a
 * lost deal's reasons are the notes of its criteria assessed at risk, a note counting in every reason
 * family it names; a quiet deal is open with nothing linked to it since the cutoff, a quiet account
 * has had no interaction since; a competitor comes up in an interaction naming it anywhere; a win
 * rate is won over closed deals, dated by close date. Amounts are only summed over deals of one
 * currency (`total` refuses a mix), since the corpus holds USD and EUR deals. Two reps are called
 * Andre, so they are named by their last names.
 */

type Range = readonly [string, string];
const EVER: Range = ['1900-01-01', '2999-01-01'];
const THIS_YEAR: Range = P.thisYear;
const LAST_YEAR: Range = P.lastYear;
const Q3: Range = P.lastQuarter;
const Q4: Range = P.thisQuarter;
const H1: Range = ['2026-01-01', '2026-07-01'];

/** Account types whose people are not buyers of the product. */
const NOT_BUYERS = `('competitor', 'vendor', 'investor', 'partner', 'media', 'advisor', 'reseller', 'other')`;
const BUYER = `coalesce(a.type, '') not in ${NOT_BUYERS}`;
const within = (field: string, r: Range) => `${field} >= '${r[0]}' and ${field} < '${r[1]}'`;
const FROM_DEALS = 'from deals d left join accounts a on a.id = d.account_id where d.workspace_id = $1';

/** A rep as an answer names them: first name, last name for the two Andres. */
const repName = (email: string) => {
  const [first = '', last = ''] = (email.split('@')[0] ?? '').split('.');
  const word = first === 'andre' ? last : first;
  return word.charAt(0).toUpperCase() + word.slice(1);
};
/** A sum of amounts written as an answer writes it: 147200, $147,200, €147,200, 147.2k. */
const moneyForms = (n: number) => {
  const grouped = Math.round(n).toLocaleString('en-US');
  return [grouped, String(Math.round(n)), `${(n / 1000).toFixed(1)}k`, `${(n / 1000).toFixed(1)}K`];
};

// ---- deals: totals, lists, win rates -------------------------------------------------------------

/** The sum of the amounts of the deals matched, refused (NaN) when they span more than one currency. */
const total = async (s: Sql, where: string) => {
  const rows = await s<{ currencies: number; v: string | null }>(
    `select count(distinct d.currency)::int as currencies, sum(d.amount) as v ${FROM_DEALS} and ${where}`,
  );
  const row = rows[0];
  return row && row.currencies === 1 && row.v !== null ? Number(row.v) : Number.NaN;
};
const count = (s: Sql, where: string) => scalar(s, `select count(*) as v ${FROM_DEALS} and ${where}`);
const dealNames = (s: Sql, where: string, order = 'd.name') =>
  column(s, `select d.name as v ${FROM_DEALS} and ${where} order by ${order}`);
/** Deal names ordered, refused (empty) when two deals of the cut share the ordering value or a name. */
const topDeals = async (s: Sql, where: string, n: number) => {
  const rows = await s<{ name: string; amount: string }>(
    `select d.name, d.amount::text as amount ${FROM_DEALS} and ${where} and d.amount is not null order by d.amount desc limit ${n + 1}`,
  );
  const cut = rows.slice(0, n);
  const tie = rows.slice(0, n + 1).some((r, i, all) => i > 0 && r.amount === all[i - 1]?.amount);
  return tie || new Set(cut.map((r) => r.name)).size !== cut.length ? [] : cut.map((r) => [r.name]);
};
/** Won over closed deals, as a percentage. */
const winRate = (s: Sql, where = 'true') =>
  scalar(
    s,
    `select 100.0 * count(*) filter (where d.is_won) / nullif(count(*), 0) as v ${FROM_DEALS} and d.is_closed and ${where}`,
  );
/** Each owner's win rate over their closed deals, best first. */
const winRates = async (s: Sql) =>
  (
    await s<{ owner: string; rate: string }>(
      `select d.owner_email as owner, 100.0 * count(*) filter (where d.is_won) / count(*) as rate
       ${FROM_DEALS} and d.is_closed and d.owner_email is not null group by 1 order by 2 desc, 1`,
    )
  ).map((r) => ({ rep: repName(r.owner), rate: Number(r.rate) }));
/** The reps of a ranking, refused (empty) when two of the cut, or the cut and the next, tie. */
const distinctTop = <T>(rows: T[], value: (r: T) => number, name: (r: T) => string, n: number) => {
  const tie = rows.slice(0, n + 1).some((r, i, all) => i > 0 && value(r) === value(all[i - 1] as T));
  return tie ? [] : rows.slice(0, n).map((r) => [name(r)]);
};

// ---- talk ratio ----------------------------------------------------------------------------------

/** Each rep's share of the seconds spoken in the calls and meetings they spoke in, most first. */
const talkShares = async (s: Sql, r: Range = EVER) =>
  (
    await s<{ rep: string; share: string }>(
      `with reps as (select distinct owner_email as email from deals where workspace_id = $1 and owner_email is not null),
            spoken as (select distinct t.interaction_id, t.speaker_email as rep from transcript_turns t
                       join interactions i on i.id = t.interaction_id and i.kind in ('call', 'meeting') and ${KEPT}
                         and ${within('i.occurred_at', r)}
                       where t.workspace_id = $1 and t.speaker_email in (select email from reps))
       select sp.rep,
              100.0 * sum(t.ended_at_seconds - t.started_at_seconds) filter (where t.speaker_email = sp.rep)
                / sum(t.ended_at_seconds - t.started_at_seconds) as share
       from spoken sp join transcript_turns t on t.interaction_id = sp.interaction_id
       group by sp.rep order by share desc`,
    )
  ).map((x) => ({ rep: repName(x.rep), share: Number(x.share) }));
const shareOf = async (s: Sql, rep: string) => (await talkShares(s)).find((r) => r.rep === rep)?.share ?? Number.NaN;
/** Our side's share of every second spoken on calls and meetings. */
const internalShare = (s: Sql) =>
  scalar(
    s,
    `select 100.0 * sum(t.ended_at_seconds - t.started_at_seconds) filter (where t.side = 'internal')
            / sum(t.ended_at_seconds - t.started_at_seconds) as v
     from transcript_turns t join interactions i on i.id = t.interaction_id and i.kind in ('call', 'meeting') and ${KEPT}
     where t.workspace_id = $1`,
  );

// ---- feature requests ----------------------------------------------------------------------------

/** What buyers ask the product for, by the words they use (Postgres regexes), and how an answer names each. */
const FAMILIES = {
  salesforce: { re: 'salesforce', forms: ['Salesforce'] },
  hubspot: { re: 'hubspot', forms: ['HubSpot'] },
  slack: { re: 'slack', forms: ['Slack'] },
  teams: { re: 'microsoft teams|teams integration', forms: ['Teams'] },
  warehouse: {
    re: 'snowflake|bigquery|redshift|incremental export|nightly export|csv dump',
    forms: ['Snowflake', 'warehouse', 'BigQuery', 'Redshift', 'export'],
  },
  reports: {
    re: 'dashboard|custom reports|pipeline report|schedule reports|can a report',
    forms: ['dashboard', 'report'],
  },
  api: { re: '\\mAPI\\M|webhook', forms: ['API', 'webhook'] },
  sso: { re: '\\mSSO\\M|SAML|SCIM|okta|azure ad|single sign-on', forms: ['SSO', 'SAML', 'SCIM', 'single sign'] },
  residency: { re: 'data residency|stay in the EU|EU region', forms: ['residency', 'in the EU', 'EU region'] },
  migration: {
    re: 'historical calls|historical import|call history|be migrated|import that format',
    forms: ['migrat', 'historical', 'import', 'call history'],
  },
  permissions: {
    re: 'role-based access|calls as private|only see calls|see their region',
    forms: ['permission', 'role-based', 'access control', 'private'],
  },
} as const;
type Family = keyof typeof FAMILIES;

/** Buyer accounts that asked for the regex on a call, a meeting or an inbound email, in the period. */
const askersOf = (s: Sql, re: string, r: Range = EVER, where = 'true') =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${BUYER} and ${within('i.occurred_at', r)} and ${where}
       and ((i.kind = 'email' and i.direction = 'inbound' and i.body ~* $2)
         or (i.kind in ('call', 'meeting') and exists (
               select 1 from transcript_turns t where t.interaction_id = i.id and t.side = 'external' and t.text ~* $2)))
     order by 1`,
    [re],
  );
const askers = (s: Sql, family: Family, r: Range = EVER, where = 'true') => askersOf(s, FAMILIES[family].re, r, where);
/** The forms of the `n` families most accounts asked for, refused (empty) on a tie at or just past the cut. */
const topFamilies = async (s: Sql, n: number, r: Range = EVER, where = 'true') => {
  const ranked = await Promise.all(
    (Object.keys(FAMILIES) as Family[]).map(async (family) => ({
      family,
      n: (await askers(s, family, r, where)).length,
    })),
  );
  ranked.sort((x, y) => y.n - x.n);
  const tie = ranked.slice(0, n + 1).some((x, i, all) => i > 0 && x.n === all[i - 1]?.n);
  return tie ? [] : ranked.slice(0, n).map((x) => [...FAMILIES[x.family].forms]);
};

// ---- renewals and champions ----------------------------------------------------------------------

const OPEN_RENEWAL = `not d.is_closed and d.name ilike '%renewal%'`;
const CHAMPION_GONE = `exists (select 1 from contacts c where c.account_id = d.account_id and c.is_champion and c.left_at is not null)`;
const RISKY = `${OPEN_RENEWAL} and (${CHAMPION_GONE}
  or exists (select 1 from (select distinct on (q.criterion) q.status from deal_qualification q where q.deal_id = d.id
                            order by q.criterion, q.occurred_at desc, q.id) latest where latest.status = 'at_risk'))`;
const accountsOfDeals = (s: Sql, where: string) =>
  column(s, `select distinct a.name as v ${FROM_DEALS} and ${where} order by 1`);
/** Champions who left, in the period, earliest first. */
const departed = (s: Sql, r: Range = EVER) =>
  s<{ person: string; account: string; left: string }>(
    `select c.name as person, a.name as account, c.left_at::date::text as left from contacts c join accounts a on a.id = c.account_id
     where c.workspace_id = $1 and c.is_champion and ${within('c.left_at', r)} order by c.left_at`,
  );
/** Deals won after their account's champion had left. */
const wonAfterDeparture = (s: Sql) =>
  column(
    s,
    `select distinct d.name as v from deals d join contacts c on c.account_id = d.account_id and c.is_champion and c.left_at is not null
     where d.workspace_id = $1 and d.is_won and d.close_date > c.left_at::date order by 1`,
  );
/** What buyers say when a renewal is on the table. */
const RENEWAL_WORDS = /renew|contract|seat|cancel|price|budget|value|usage|adoption|cut/i;

// ---- accounts ------------------------------------------------------------------------------------

const touchOf = async (s: Sql, account: string, which: 'min' | 'max', where = 'true') =>
  dateForms(
    (
      await column(
        s,
        `select ${which}(i.occurred_at)::date::text as v from interactions i join accounts a on a.id = i.account_id
         where i.workspace_id = $1 and ${KEPT} and a.name = $2 and ${where}`,
        [account],
      )
    )[0] ?? '',
  );
const interactionCount = (s: Sql, account: string, where: string) =>
  scalar(
    s,
    `select count(*) as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and a.name = $2 and ${where}`,
    [account],
  );
const dealsAt = (s: Sql, account: string, where = 'true') => dealNames(s, `a.name = '${account}' and ${where}`);
/** The account's people who spoke on its calls or meetings. */
const speakersAt = (s: Sql, account: string) =>
  column(
    s,
    `select distinct t.speaker_name as v from transcript_turns t join interactions i on i.id = t.interaction_id and ${KEPT}
     join accounts a on a.id = i.account_id
     where t.workspace_id = $1 and a.name = $2 and t.side = 'external' and t.speaker_name is not null order by 1`,
    [account],
  );

// ---- competitors ---------------------------------------------------------------------------------

const COMPETITORS = ['Quotient Labs', 'Stackwise', 'Pipewell', 'Clarion AI', 'Tallyhawk'] as const;
/** An interaction `i` that names `$2` anywhere: title, summary, email body or a turn. */
const NAMES_IT = `(i.title ilike '%' || $2 || '%' or i.summary ilike '%' || $2 || '%' or i.body ilike '%' || $2 || '%'
  or exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.text ilike '%' || $2 || '%'))`;
const mentionsOf = (s: Sql, competitor: string, r: Range = EVER) =>
  scalar(
    s,
    `select count(*) as v from interactions i where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${NAMES_IT}`,
    [competitor],
  );
const accountsNaming = (s: Sql, competitor: string, r: Range = EVER, where = 'true') =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${BUYER} and ${within('i.occurred_at', r)} and ${where} and ${NAMES_IT}
     order by 1`,
    [competitor],
  );
/** The `n` competitors named in the most interactions of the period, most first (refused on a tie). */
const competitorRanking = async (s: Sql, r: Range = EVER, n: number = COMPETITORS.length) => {
  const counted = await Promise.all(COMPETITORS.map(async (c) => ({ c, n: await mentionsOf(s, c, r) })));
  counted.sort((x, y) => y.n - x.n);
  return distinctTop(
    counted,
    (x) => x.n,
    (x) => x.c,
    n,
  );
};
/** Closed deals linked to an interaction naming the competitor, won or lost. */
const closedAgainst = (s: Sql, competitor: string, won: boolean) =>
  column(
    s,
    `select distinct d.name as v from deals d join interactions i on i.deal_id = d.id and ${KEPT}
     where d.workspace_id = $1 and d.is_closed and d.is_won = $3 and ${NAMES_IT}`,
    [competitor, won],
  );

// ---- quiet ---------------------------------------------------------------------------------------

/** Open deals with nothing linked to them since the cutoff, filtered over `d` and `a`. */
const QUIET_SINCE = (cutoff: string) =>
  `not d.is_closed and coalesce((select max(i.occurred_at) from interactions i where i.deal_id = d.id and ${KEPT}), '1900-01-01') < '${cutoff}'::date`;
/** Accounts of `a` whose latest interaction is before the cutoff, or since it (active). */
const accountsLastTouched = (s: Sql, where: string, quiet: boolean, cutoff: string) =>
  column(
    s,
    `select a.name as v from accounts a join interactions i on i.account_id = a.id and ${KEPT}
     where a.workspace_id = $1 and ${where} group by a.name having max(i.occurred_at) ${quiet ? '<' : '>='} $2::date order by 1`,
    [cutoff],
  );

// ---- lost reasons --------------------------------------------------------------------------------

/** Reason families of the at-risk notes on lost deals (a note counts in each it names), with how an answer names each. */
const REASONS: { label: string; re: RegExp; forms: string[] }[] = [
  { label: 'competitor', re: /competitor/i, forms: ['competitor', 'competition', 'competitive'] },
  { label: 'price', re: /price|discount/i, forms: ['price', 'pricing', 'discount'] },
  { label: 'champion', re: /champion/i, forms: ['champion'] },
  { label: 'approver', re: /economic buyer|approver|CFO/i, forms: ['economic buyer', 'approver', 'CFO'] },
  { label: 'business case', re: /metric|business case|target|pilot/i, forms: ['business case', 'metric', 'pilot'] },
  { label: 'no priority', re: /good enough|no longer a priority/i, forms: ['good enough', 'priority', 'status quo'] },
  { label: 'process', re: /procurement|legal|DPA|committee/i, forms: ['procurement', 'legal', 'DPA', 'committee'] },
];
const lostWithNotes = (s: Sql, r: Range, where = 'true') =>
  s<{ deal: string; notes: string[] }>(
    `select d.name as deal, array_agg(q.notes) as notes from deals d left join accounts a on a.id = d.account_id
     join deal_qualification q on q.deal_id = d.id and q.status = 'at_risk' and q.notes is not null
     where d.workspace_id = $1 and d.is_closed and not d.is_won and ${within('d.close_date', r)} and ${where}
     group by d.id, d.name`,
  );
/** How many of the lost deals name each reason family, most first. */
const reasonCounts = async (s: Sql, r: Range, where = 'true') => {
  const lost = await lostWithNotes(s, r, where);
  return REASONS.map((x) => ({ ...x, n: lost.filter((d) => d.notes.some((note) => x.re.test(note))).length })).sort(
    (a, b) => b.n - a.n,
  );
};
/** The forms of the most frequent reason family, all of the tied ones on a tie. */
const topReason = async (s: Sql, r: Range, where = 'true') => {
  const counted = await reasonCounts(s, r, where);
  const most = counted[0]?.n ?? 0;
  return most === 0 ? [] : counted.filter((x) => x.n === most).flatMap((x) => x.forms);
};
const lostDeals = async (s: Sql, r: Range, where = 'true') => (await lostWithNotes(s, r, where)).map((x) => x.deal);
const lostOver = (s: Sql, reason: string, r: Range) =>
  reasonCounts(s, r).then((all) => all.find((x) => x.label === reason)?.n ?? 0);

/**
 * Subjects the corpus does not hold, each ask with the words (a regex) an answer names it by; the
 * test checks no interaction, turn or account of the corpus says any of them.
 */
export const ABSENT_SUBJECTS: Record<string, string> = {
  'nps scores by account for this quarter': 'NPS|net promoter',
  'how much did we spend on linkedin ads last month': 'LinkedIn|ad spend',
  'which marketing campaign sourced the most closed-won revenue': 'campaign|attribution',
  'does chorus.ai ever come up against us on calls': 'Chorus',
};

/** Every question of the fourth fresh set as written; the ones the developer has seen count as dev (DEVELOPED_ON_FRESH_4). */
export const WRITTEN_FRESH_4: Question[] = [
  // ---- champion changes ----------------------------------------------------------------------------
  {
    shape: 'champion_change',
    ask: 'every acct where our champion has moved on + roughly when',
    expect: { mentions: async (s) => (await departed(s)).map((r) => r.account) },
  },
  {
    shape: 'champion_change',
    ask: 'who was the champ at alder logistics and when did they leave?',
    expect: {
      mentions: async (s) => (await departed(s)).filter((r) => r.account === 'Alder Logistics').map((r) => r.person),
      mentionsEach: async (s) => [
        dateForms((await departed(s)).find((r) => r.account === 'Alder Logistics')?.left ?? ''),
      ],
    },
  },
  {
    shape: 'champion_change',
    ask: 'any champions leave back in 2025?',
    expect: {
      mentions: async (s) => (await departed(s, LAST_YEAR)).map((r) => r.person),
      absent: async (s) => (await departed(s, THIS_YEAR)).map((r) => r.person),
    },
  },
  {
    shape: 'champion_change',
    ask: 'how many of our champions quit in the first half of this year',
    expect: { numbers: async (s) => [(await departed(s, H1)).length] },
  },
  {
    shape: 'champion_change',
    ask: 'did we still close-win anything after the champion had already gone?',
    expect: { mentionsSome: (s) => wonAfterDeparture(s) },
  },
  {
    shape: 'champion_change',
    ask: 'how much open pipeline sits at accounts that lost their champion',
    expect: { mentionsEach: async (s) => [moneyForms(await total(s, `not d.is_closed and ${CHAMPION_GONE}`))] },
  },
  {
    shape: 'champion_change',
    ask: 'most recent champion departure - who and where',
    expect: {
      mentions: async (s) => {
        const last = (await departed(s)).at(-1);
        return last ? [last.person, last.account] : [];
      },
    },
  },

  // ---- account history -----------------------------------------------------------------------------
  {
    shape: 'account_history',
    ask: 'gimme the rundown on beacon logistics - when we started talking and every deal since',
    expect: {
      mentionsEach: async (s) => [await touchOf(s, 'Beacon Logistics', 'min')],
      mentions: (s) => dealsAt(s, 'Beacon Logistics'),
    },
  },
  {
    shape: 'account_history',
    ask: 'how many emails back and forth with keystone health so far',
    expect: { numbers: async (s) => [await interactionCount(s, 'Keystone Health', `i.kind = 'email'`)] },
  },
  {
    shape: 'account_history',
    ask: 'when was the last touchpoint with quartz logistics and what deals did we win there',
    expect: {
      mentionsEach: async (s) => [await touchOf(s, 'Quartz Logistics', 'max')],
      mentions: (s) => dealsAt(s, 'Quartz Logistics', 'd.is_won'),
    },
  },
  {
    shape: 'account_history',
    ask: 'number of meetings we had with ironwood health in 2026',
    expect: {
      numbers: async (s) => [
        await interactionCount(s, 'Ironwood Health', `i.kind = 'meeting' and ${within('i.occurred_at', THIS_YEAR)}`),
      ],
    },
  },
  {
    shape: 'account_history',
    ask: 'prism logistics: what have we lost with them over time, and is anything still live?',
    expect: {
      mentions: (s) => dealsAt(s, 'Prism Logistics', 'not d.is_won'),
    },
  },
  {
    shape: 'account_history',
    ask: 'who have we actually been speaking with over at lakeshore logistics?',
    expect: { mentionsSome: (s) => speakersAt(s, 'Lakeshore Logistics') },
  },
  {
    shape: 'account_history',
    ask: 'jasper logistics backstory pls: first contact, deals and how they ended',
    expect: {
      mentionsEach: async (s) => [await touchOf(s, 'Jasper Logistics', 'min')],
      mentions: (s) => dealsAt(s, 'Jasper Logistics', 'd.is_closed'),
    },
  },

  // ---- competitors ---------------------------------------------------------------------------------
  {
    shape: 'competitors',
    ask: 'which competitor do we run into the least?',
    expect: { mentions: async (s) => (await competitorRanking(s)).at(-1) ?? [] },
  },
  {
    shape: 'competitors',
    ask: 'record vs tallyhawk - deals won and lost where they showed up',
    expect: {
      numbers: async (s) => [
        (await closedAgainst(s, 'Tallyhawk', true)).length,
        (await closedAgainst(s, 'Tallyhawk', false)).length,
      ],
    },
  },
  {
    shape: 'competitors',
    ask: 'which accounts brought up stackwise in 2026',
    expect: { mentionsSome: (s) => accountsNaming(s, 'Stackwise', THIS_YEAR) },
  },
  {
    shape: 'competitors',
    ask: 'rank the competitors by how often they came up last year',
    expect: { ordered: (s) => competitorRanking(s, LAST_YEAR) },
  },
  {
    shape: 'competitors',
    ask: 'how many times has clarion ai come up over the past 90 days',
    expect: { numbers: async (s) => [await mentionsOf(s, 'Clarion AI', P.recent)] },
  },
  {
    shape: 'competitors',
    ask: 'existing customers (not prospects) who mentioned quotient labs',
    expect: {
      mentionsSome: (s) => accountsNaming(s, 'Quotient Labs', EVER, `a.type = 'customer'`),
      absent: (s) => accountsNaming(s, 'Quotient Labs', EVER, `a.type = 'sales_target'`),
    },
  },
  {
    shape: 'competitors',
    ask: 'quotient labs or pipewell, who comes up more often? numbers pls',
    expect: {
      mentions: async () => ['Quotient Labs', 'Pipewell'],
      numbers: async (s) => [await mentionsOf(s, 'Quotient Labs'), await mentionsOf(s, 'Pipewell')],
    },
  },

  // ---- feature requests ----------------------------------------------------------------------------
  {
    shape: 'feature_requests',
    ask: 'what do prospects (not current customers) ask for the most, feature-wise',
    expect: { mentionsEach: async (s) => (await topFamilies(s, 1, EVER, `a.type = 'sales_target'`)).slice(0, 1) },
  },
  {
    shape: 'feature_requests',
    ask: 'how many accts want bigquery or redshift support',
    expect: { numbers: async (s) => [(await askersOf(s, 'bigquery|redshift')).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'has anybody asked for a microsoft teams integration? who',
    expect: { mentionsSome: (s) => askers(s, 'teams') },
  },
  {
    shape: 'feature_requests',
    ask: 'top 3 product asks by # of accounts',
    expect: { ordered: (s) => topFamilies(s, 3) },
  },
  {
    shape: 'feature_requests',
    ask: 'which customers want API access or webhooks',
    expect: { mentionsSome: (s) => askers(s, 'api', EVER, `a.type = 'customer'`) },
  },
  {
    shape: 'feature_requests',
    ask: 'count of accounts that brought up SCIM provisioning',
    expect: { numbers: async (s) => [(await askersOf(s, 'scim')).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'emea feature requests - whats the most common one',
    expect: { mentionsEach: async (s) => (await topFamilies(s, 1, EVER, `a.region = 'EMEA'`)).slice(0, 1) },
  },
  {
    shape: 'feature_requests',
    ask: 'last quarter, how many accounts asked about hubspot vs about dashboards/reporting',
    expect: {
      numbers: async (s) => [(await askers(s, 'hubspot', Q3)).length, (await askers(s, 'reports', Q3)).length],
    },
  },

  // ---- renewal risk --------------------------------------------------------------------------------
  {
    shape: 'renewal_risk',
    ask: 'which renewals look shaky right now',
    expect: { mentions: (s) => accountsOfDeals(s, RISKY) },
  },
  {
    shape: 'renewal_risk',
    ask: 'how many renewal opps are still open',
    expect: { numbers: async (s) => [await count(s, OPEN_RENEWAL)] },
  },
  {
    shape: 'renewal_risk',
    ask: 'renewals coming up where our champion is no longer there',
    expect: { mentions: (s) => accountsOfDeals(s, `${OPEN_RENEWAL} and ${CHAMPION_GONE}`) },
  },
  {
    shape: 'renewal_risk',
    ask: 'renewals due before end of year, are any of them at risk?',
    expect: {
      mentions: (s) => accountsOfDeals(s, `${OPEN_RENEWAL} and d.close_date < '2027-01-01'`),
      absent: (s) => accountsOfDeals(s, `${OPEN_RENEWAL} and d.close_date >= '2027-02-01'`),
    },
  },
  {
    shape: 'renewal_risk',
    ask: "what's keystone health been saying on calls about renewing / pricing",
    expect: { quotes: 'required', topic: RENEWAL_WORDS, quoteAccounts: async () => ['Keystone Health'] },
  },
  {
    shape: 'renewal_risk',
    ask: "which of zoe's renewals are in danger",
    expect: {
      mentions: (s) => accountsOfDeals(s, `${RISKY} and d.owner_email like 'zoe.%'`),
      absent: (s) => accountsOfDeals(s, `${OPEN_RENEWAL} and d.owner_email not like 'zoe.%'`),
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'at-risk renewals: list them w/ close date + owner',
    expect: {
      mentions: (s) => accountsOfDeals(s, RISKY),
      mentionsEach: async (s) =>
        (
          await s<{ owner: string }>(`select distinct d.owner_email as owner ${FROM_DEALS} and ${RISKY} order by 1`)
        ).map((r) => [repName(r.owner)]),
    },
  },

  // ---- quiet deals and accounts --------------------------------------------------------------------
  {
    shape: 'quiet',
    ask: 'open deals that have been silent for 2+ weeks',
    expect: {
      mentionsSome: (s) => dealNames(s, QUIET_SINCE(P.last14[0])),
      // Deals with something linked in the last week cannot be two weeks quiet (unless a quiet one shares the name).
      absent: async (s) => {
        const quiet = await dealNames(s, QUIET_SINCE(P.last14[0]));
        return (await dealNames(s, `not d.is_closed and not (${QUIET_SINCE('2026-11-13')})`)).filter(
          (name) => !quiet.includes(name),
        );
      },
    },
  },
  {
    shape: 'quiet',
    ask: "customers we haven't heard from in 60 days",
    expect: {
      mentionsSome: (s) => accountsLastTouched(s, `a.type = 'customer'`, true, P.last60[0]),
      absent: (s) => accountsLastTouched(s, `a.type = 'customer'`, false, P.last14[0]),
    },
  },
  {
    shape: 'quiet',
    ask: "zoe's open deals with no activity since the start of september",
    expect: {
      mentionsSome: (s) => dealNames(s, `${QUIET_SINCE('2026-09-01')} and d.owner_email like 'zoe.%'`),
      absent: (s) => dealNames(s, `not d.is_closed and d.owner_email not like 'zoe.%'`),
    },
  },
  {
    shape: 'quiet',
    ask: 'how many open opps have gone cold - nothing in 45 days',
    expect: { numbers: async (s) => [await count(s, QUIET_SINCE(P.last45[0]))] },
  },
  {
    shape: 'quiet',
    ask: 'late-stage deals (proposal/negotiation) that stalled, nothing logged in a month',
    expect: {
      mentionsSome: (s) => dealNames(s, `${QUIET_SINCE(P.last30[0])} and d.stage in ('proposal', 'negotiation')`),
    },
  },
  {
    shape: 'quiet',
    ask: 'emea accounts that went dark more than a month ago',
    expect: {
      mentionsSome: (s) => accountsLastTouched(s, `a.region = 'EMEA' and ${BUYER}`, true, P.last30[0]),
      absent: (s) => accountsLastTouched(s, `a.region = 'EMEA' and ${BUYER}`, false, P.last14[0]),
    },
  },
  {
    shape: 'quiet',
    ask: 'prospects with zero activity in the last 3 months',
    expect: { mentionsSome: (s) => accountsLastTouched(s, `a.type = 'sales_target'`, true, P.recent[0]) },
  },

  // ---- lost reasons --------------------------------------------------------------------------------
  {
    shape: 'lost_reasons',
    ask: 'why do we keep losing retail deals',
    expect: {
      mentionsSome: (s) => lostDeals(s, EVER, `a.industry = 'Retail'`),
      mentionsEach: async (s) => [await topReason(s, EVER, `a.industry = 'Retail'`)],
    },
  },
  {
    shape: 'lost_reasons',
    ask: "what's behind rhea's closed-lost deals",
    expect: {
      mentionsSome: (s) => lostDeals(s, EVER, `d.owner_email like 'rhea.%'`),
      mentionsEach: async (s) => [await topReason(s, EVER, `d.owner_email like 'rhea.%'`)],
    },
  },
  {
    shape: 'lost_reasons',
    ask: 'how many deals did we lose in 2026 where the champion was part of the problem',
    expect: { numbers: async (s) => [await lostOver(s, 'champion', THIS_YEAR)] },
  },
  {
    shape: 'lost_reasons',
    ask: 'most common reason deals died last year',
    expect: { mentionsEach: async (s) => [await topReason(s, LAST_YEAR)] },
  },
  {
    shape: 'lost_reasons',
    ask: 'north america losses this year - what went wrong?',
    expect: {
      mentionsSome: (s) => lostDeals(s, THIS_YEAR, `a.region = 'North America'`),
      mentionsEach: async (s) => [await topReason(s, THIS_YEAR, `a.region = 'North America'`)],
    },
  },
  {
    shape: 'lost_reasons',
    ask: 'lost deals over 60 grand and the reasons',
    expect: { mentions: (s) => lostDeals(s, EVER, 'd.amount > 60000') },
  },
  {
    shape: 'lost_reasons',
    ask: 'did price or a competitor cost us more deals this year? counts',
    expect: {
      numbers: async (s) => [await lostOver(s, 'price', THIS_YEAR), await lostOver(s, 'competitor', THIS_YEAR)],
    },
  },

  // ---- talk ratio ----------------------------------------------------------------------------------
  {
    shape: 'talk_ratio',
    ask: 'which AE talks the least on calls (leave the SEs out)',
    expect: { mentions: async (s) => [(await talkShares(s)).at(-1)?.rep ?? ''] },
  },
  {
    shape: 'talk_ratio',
    ask: "zoe's talk ratio?",
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Zoe'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'talk ratios for jonah and rhea pls',
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Jonah')), pct(await shareOf(s, 'Rhea'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'reps ordered by talk share, lowest to highest',
    expect: { ordered: async (s) => (await talkShares(s)).reverse().map((r) => [r.rep]) },
  },
  {
    shape: 'talk_ratio',
    ask: 'are we out-talking our customers? what % of call time is our side',
    expect: { mentionsEach: async (s) => [pct(await internalShare(s))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'how much does mateo talk vs listen on his calls, as a %',
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Mateo'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'who hogged the airtime most on calls last quarter',
    expect: { mentions: async (s) => [(await talkShares(s, Q3))[0]?.rep ?? ''] },
  },

  // ---- pipeline ------------------------------------------------------------------------------------
  {
    shape: 'pipeline',
    ask: 'top 4 biggest open deals, largest first',
    expect: { ordered: (s) => topDeals(s, 'not d.is_closed', 4) },
  },
  {
    shape: 'pipeline',
    ask: 'how many open deals in each stage?',
    expect: {
      numbers: async (s) =>
        (
          await s<{ n: string }>(
            `select count(*) as n ${FROM_DEALS} and not d.is_closed and d.stage in ('discovery', 'evaluation', 'prospecting') group by d.stage`,
          )
        ).map((r) => Number(r.n)),
    },
  },
  {
    shape: 'pipeline',
    ask: 'total value of the open USD deals',
    expect: { mentionsEach: async (s) => [moneyForms(await total(s, `not d.is_closed and d.currency = 'USD'`))] },
  },
  {
    shape: 'pipeline',
    ask: 'open deals closing this quarter - list em',
    expect: {
      mentions: (s) => dealNames(s, `not d.is_closed and ${within('d.close_date', Q4)}`),
      absent: (s) => dealNames(s, `not d.is_closed and d.close_date >= '2027-04-01'`),
    },
  },
  {
    shape: 'pipeline',
    ask: 'how many discovery-stage deals are over 40 grand',
    expect: {
      numbers: async (s) => [await count(s, `not d.is_closed and d.stage = 'discovery' and d.amount > 40000`)],
    },
  },
  {
    shape: 'pipeline',
    ask: "what's in andre dubois's open pipeline",
    expect: {
      mentions: (s) => dealNames(s, `not d.is_closed and d.owner_email like 'andre.dubois%'`),
      absent: (s) => dealNames(s, `not d.is_closed and d.owner_email like 'andre.nakamura%'`),
    },
  },
  {
    shape: 'pipeline',
    ask: 'open deals in negotiation, sorted by amount',
    expect: { ordered: (s) => topDeals(s, `not d.is_closed and d.stage = 'negotiation'`, 5) },
  },
  {
    shape: 'pipeline',
    ask: 'how many open opps does each rep have? most first',
    expect: {
      ordered: async (s) => {
        const rows = await s<{ owner: string; n: string }>(
          `select d.owner_email as owner, count(*) as n ${FROM_DEALS} and not d.is_closed group by 1 order by 2 desc`,
        );
        return distinctTop(
          rows,
          (r) => Number(r.n),
          (r) => repName(r.owner),
          2,
        );
      },
    },
  },

  // ---- win rate ------------------------------------------------------------------------------------
  {
    shape: 'win_rate',
    ask: "what's our overall win rate",
    expect: { mentionsEach: async (s) => [pct(await winRate(s))] },
  },
  {
    shape: 'win_rate',
    ask: 'win rate 2026 vs 2025?',
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, within('d.close_date', THIS_YEAR))),
        pct(await winRate(s, within('d.close_date', LAST_YEAR))),
      ],
    },
  },
  {
    shape: 'win_rate',
    ask: 'who closes at the best rate on the team?',
    expect: {
      mentions: async (s) =>
        (
          await distinctTop(
            await winRates(s),
            (r) => r.rate,
            (r) => r.rep,
            1,
          )
        )[0] ?? [],
    },
  },
  {
    shape: 'win_rate',
    ask: 'whats the win rate over in emea',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, `a.region = 'EMEA'`))] },
  },
  {
    shape: 'win_rate',
    ask: 'what % of deals above 50k do we actually win',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, 'd.amount > 50000'))] },
  },
  {
    shape: 'win_rate',
    ask: 'top 3 reps by win rate, in order',
    expect: {
      ordered: async (s) =>
        distinctTop(
          await winRates(s),
          (r) => r.rate,
          (r) => r.rep,
          3,
        ),
    },
  },
  {
    shape: 'win_rate',
    ask: 'last quarter how many did we win, how many did we lose',
    expect: {
      numbers: async (s) => [
        await count(s, `d.is_closed and d.is_won and ${within('d.close_date', Q3)}`),
        await count(s, `d.is_closed and not d.is_won and ${within('d.close_date', Q3)}`),
      ],
    },
  },
  {
    shape: 'win_rate',
    ask: 'win rate on renewals vs new business',
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, `d.name ilike '%renewal%'`)),
        // "New business" reads as the deals named so or as every deal that is not a renewal: either figure.
        [
          ...pct(await winRate(s, `d.name ilike '%new business%'`)),
          ...pct(await winRate(s, `d.name not ilike '%renewal%'`)),
        ],
      ],
    },
  },

  // ---- follow-ups ----------------------------------------------------------------------------------
  {
    shape: 'follow_up',
    thread: ['what is the win rate for rhea'],
    ask: 'ok and for oscar?',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, `d.owner_email like 'oscar.%'`))] },
  },
  {
    shape: 'follow_up',
    thread: ['which accounts have mentioned tallyhawk'],
    ask: 'only the ones that are customers',
    expect: {
      mentionsSome: (s) => accountsNaming(s, 'Tallyhawk', EVER, `a.type = 'customer'`),
      absent: (s) => accountsNaming(s, 'Tallyhawk', EVER, `a.type = 'sales_target'`),
    },
  },
  {
    shape: 'follow_up',
    thread: ['list the champions that left'],
    ask: 'which of those accounts still have open deals?',
    expect: {
      mentions: (s) => accountsOfDeals(s, `not d.is_closed and ${CHAMPION_GONE}`),
    },
  },
  {
    shape: 'follow_up',
    thread: ['show me the open deals in proposal stage'],
    ask: 'whats the total on those in EUR',
    expect: {
      mentionsEach: async (s) => [
        moneyForms(await total(s, `not d.is_closed and d.stage = 'proposal' and d.currency = 'EUR'`)),
      ],
    },
  },

  // ---- what the data does not hold -----------------------------------------------------------------
  ...Object.entries(ABSENT_SUBJECTS).map(
    ([ask, subject]): Question => ({
      shape: 'absent_subject',
      ask,
      expect: { says: saysAbsent(subject), quotes: 'none' },
    }),
  ),
];

/**
 * Asks of this set the developer has read (their failures were looked at while fixing the mechanism): they
 * count as dev questions now (DEVELOPED_ON_FRESH_4, in the report's dev column); the rest stay held out.
 */
export const SEEN_FRESH_4_ASKS: ReadonlySet<string> = new Set([
  'reps ordered by talk share, lowest to highest',
  'whats the total on those in EUR',
  'how much did we spend on linkedin ads last month',
]);
export const DEVELOPED_ON_FRESH_4: Question[] = WRITTEN_FRESH_4.filter((q) => SEEN_FRESH_4_ASKS.has(q.ask));
export const HELD_OUT_FRESH_4: Question[] = WRITTEN_FRESH_4.filter((q) => !SEEN_FRESH_4_ASKS.has(q.ask));
