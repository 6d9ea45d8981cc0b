import { KEPT, P, TODAY } from './facts.js';
import { column, dateForms, pct, saysAbsent, scalar } from './held-out.js';
import type { Question, Sql } from './judge.js';

/**
 * A sixth fresh held-out set: written from the schema, the demo corpus (its generator files and SQL
 * over the seeded rows) and the spec alone, by someone who has read neither the answering code, the
 * dev set, nor the earlier held-out questions beyond their format and the fifth set's truth helpers.
 * It asks what sales, CS, marketing and RevOps people type into a chat box about their calls, emails
 * and CRM: what customers asked the product for (who, how many accounts, in a period, in a segment or
 * an industry, on email rather than on calls, which person at an account), competitors, renewal risk,
 * champion changes, an account's history and the prep for a meeting, what changed at an account in a
 * period, talk ratio, quiet deals and accounts, lost reasons, pipeline lists and totals, win rates,
 * what buyers said on a topic in their own words, follow-ups that lean on the turn before, subjects
 * the corpus does not hold, and needs outside that list the corpus answers (a rep's emails in a month,
 * who owns an account, how long calls run, the account we talk to most, the economic buyer at an
 * account, how many QBRs we ran, customer emails nobody answered), in their own words: terse, misspelt,
 * long-winded, indirect. It measures (bench/answers.ts) and never gates. Every truth is SQL written
 * here over the corpus, run when the question is judged; today is facts.ts's TODAY, 2026-11-20.
 *
 * How these truths read the corpus: a rep is a deal owner (the two sales engineers, the manager and
 * the executive own no deal; the manager and the executive never speak on a transcript), named by
 * first name, by last name for the two Andres; a talk share is a speaker's seconds over all seconds
 * spoken in the calls and meetings they spoke in, and our side's share of a set of calls is the
 * internal seconds over all seconds of those calls. A feature request is a buyer's turn on a call or
 * meeting, or an inbound email from a buyer, that names the thing, in families named by the words
 * buyers use (a complaint that names a dashboard is not a reporting ask), counted by distinct buyer
 * accounts; a buyer is an account that is a customer, a sales target or untyped, or a contact marked
 * a buyer on another account; prospects are the buyers that are not customers; the people who asked
 * are the turns' speakers and the inbound emails' senders. A competitor comes up in an interaction
 * naming it anywhere (title, summary, email body, a turn), and a deal is up against it when an
 * interaction linked to the deal names it. A renewal is a deal named as one; an open renewal is at
 * risk when the latest assessment of one of its criteria is at risk or its account's champion has
 * left; a customer threatens to cancel when a buyer of theirs says "cancel" or that the tool is on the
 * list to cut. A champion change is a champion contact with a date they left; an account churned after
 * it when a renewal of it was lost after that date. A lost deal's reasons are the notes of its criteria
 * assessed at risk, a note counting in every reason family it names. A quiet deal is open with nothing
 * linked to it since the cutoff; a quiet account is a buyer with no interaction since. What changed at
 * an account in a period is the deals of it created, won or lost in the period and the champions who
 * left it then. A win rate is won over closed deals, dated by close date. Amounts are summed over one
 * currency only (`total` refuses a mix); every EUR deal is an EMEA account's, every USD deal another
 * region's. An email went unanswered when no outbound email of its thread follows it. Some deal names
 * are shared by two deals (open and closed alike), so a list that must leave deals out never leaves
 * out a name that also belongs to one it must name.
 */

type Range = readonly [string, string];
const EVER: Range = ['1900-01-01', '2999-01-01'];
const THIS_YEAR: Range = P.thisYear;
const LAST_YEAR: Range = P.lastYear;
const Q4: Range = P.thisQuarter;
const Q3: Range = P.lastQuarter;
const Q2: Range = ['2026-04-01', '2026-07-01'];
const H1: Range = ['2026-01-01', '2026-07-01'];
const OCTOBER: Range = P.lastMonth;
const NOVEMBER: Range = ['2026-11-01', '2026-11-21'];
const SINCE_OCTOBER: Range = P.sinceLastMonth;
const LAST_30: Range = P.last30;
const LAST_60: Range = P.last60;
/** The months either side of December, for deals closing then. */
const NOVEMBER_END: Range = ['2026-11-01', '2026-12-01'];
const DECEMBER: Range = ['2026-12-01', '2027-01-01'];
const JANUARY: Range = ['2027-01-01', '2027-02-01'];
const SINCE_MARCH: Range = ['2026-03-01', '2026-11-21'];

const within = (field: string, r: Range) => `${field} >= '${r[0]}' and ${field} < '${r[1]}'`;
const DAYS_AGO = (n: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
/** Names in `all` that are not in `keep`. */
const minus = (all: string[], keep: string[]) => all.filter((x) => !keep.includes(x));

// ---- buyers and what they said -------------------------------------------------------------------

/** Account types whose people are not buyers of the product. */
const NOT_BUYERS = `('competitor', 'vendor', 'investor', 'partner', 'media', 'advisor', 'reseller', 'other')`;
const BUYER = `coalesce(a.type, '') not in ${NOT_BUYERS}`;
const PROSPECT = `coalesce(a.type, '') <> 'customer'`;
const CUSTOMER = `a.type = 'customer'`;
/** A buyer's turn `t`: of a buyer account, or of a contact marked a buyer on another account. */
const BUYER_TURN = `(${BUYER} or exists (select 1 from contacts c where c.workspace_id = $1 and c.is_buyer
  and lower(c.email) = lower(t.speaker_email)))`;
const BUYER_MAIL = `(${BUYER} or exists (select 1 from participants p join contacts c on c.id = p.contact_id
  where p.interaction_id = i.id and p.side = 'external' and c.is_buyer))`;
/** Interaction `i` (of account `a`) where a buyer said the regex `$2`: in an inbound email, on a call or meeting. */
const SAID_IN_MAIL = `(i.kind = 'email' and i.direction = 'inbound' and i.body ~* $2 and ${BUYER_MAIL})`;
const SAID_ON_CALL = `(i.kind in ('call', 'meeting') and exists (select 1 from transcript_turns t
  where t.interaction_id = i.id
  and t.side = 'external' and t.text ~* $2 and ${BUYER_TURN}))`;
const SAID = { email: SAID_IN_MAIL, spoken: SAID_ON_CALL, any: `(${SAID_IN_MAIL} or ${SAID_ON_CALL})` };
type Channel = keyof typeof SAID;

/** Accounts (of `a`, filtered by `where`) whose buyers said the regex in the period, over the channel. */
const accountsSaying = (s: Sql, re: string, r: Range = EVER, where = 'true', channel: Channel = 'any') =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${where} and ${SAID[channel]}
     order by 1`,
    [re],
  );

// ---- feature requests ----------------------------------------------------------------------------

/**
 * What buyers ask the product for, by the words of their asks (Postgres regexes), and how an answer
 * names each. The reporting family reads the asking lines only ("I cannot get managers to use the
 * dashboards" is a complaint about adoption).
 */
const FAMILIES = {
  salesforce: { re: 'salesforce', forms: ['Salesforce'] },
  hubspot: { re: 'hubspot', forms: ['HubSpot'] },
  slack: { re: 'slack', forms: ['Slack'] },
  teams: { re: 'microsoft teams', forms: ['Microsoft Teams', 'MS Teams', 'Teams integration'] },
  warehouse: {
    re: 'snowflake|bigquery|redshift|\\mexport|csv dump',
    forms: ['Snowflake', 'BigQuery', 'Redshift', 'warehouse'],
  },
  reports: {
    re: 'dashboard they can use|custom reports|pipeline report|dashboards need to filter|can a report|schedule reports',
    forms: ['dashboard', 'custom report', 'reporting'],
  },
  api: { re: '\\mAPI\\M|webhook', forms: ['API', 'webhook'] },
  sso: { re: '\\mSSO\\M|SAML|SCIM', forms: ['SSO', 'SAML', 'SCIM', 'single sign'] },
  residency: {
    re: 'data residency|stay in the EU|EU region|US data centers',
    forms: ['residency', 'in the EU', 'EU region'],
  },
  migration: {
    re: [
      'historical calls|can those be migrated|call history|import that format',
      'migrated calls|historical import|move the recordings over',
    ].join('|'),
    forms: ['migrat', 'historical', 'call history'],
  },
  permissions: {
    re: [
      'only see calls|role-based access|calls as private|see their region',
      'who opened which recording|excluded from recording',
    ].join('|'),
    forms: ['permission', 'role-based', 'access control', 'private'],
  },
  vocabulary: { re: 'own vocabulary', forms: ['vocabulary', 'jargon', 'product codes'] },
  status: { re: 'status page', forms: ['status page'] },
} as const;
type Family = keyof typeof FAMILIES;
const INTEGRATIONS: Family[] = ['salesforce', 'hubspot', 'slack', 'teams', 'warehouse'];

const askers = (s: Sql, family: Family, r: Range = EVER, where = 'true', channel: Channel = 'any') =>
  accountsSaying(s, FAMILIES[family].re, r, where, channel);
/** The families (of `among`) ranked by how many accounts asked, most first. */
const familyCounts = async (s: Sql, r: Range, where: string, among: Family[]) => {
  const ranked = await Promise.all(
    among.map(async (family) => ({ family, n: (await askers(s, family, r, where)).length })),
  );
  return ranked.sort((x, y) => y.n - x.n);
};
const ALL_FAMILIES = Object.keys(FAMILIES) as Family[];
/** The forms of the `n` families most accounts asked for, most first, refused (empty) on a tie at or past the cut. */
const topFamilies = async (s: Sql, n: number, r: Range = EVER, where = 'true', among = ALL_FAMILIES) => {
  const ranked = await familyCounts(s, r, where, among);
  const tie = ranked.slice(0, n + 1).some((x, i, all) => i > 0 && x.n === all[i - 1]?.n);
  return tie ? [] : ranked.slice(0, n).map((x) => [...FAMILIES[x.family].forms]);
};
/** The forms of the family most accounts asked for, refused (empty) unless it leads the next by three accounts. */
const topFamily = async (s: Sql, r: Range, where = 'true', among = ALL_FAMILIES) => {
  const [first, second] = await familyCounts(s, r, where, among);
  return first && first.n - (second?.n ?? 0) >= 3 ? [...FAMILIES[first.family].forms] : [];
};
/** The people at the account who asked for the family: its buyer turns' speakers, its inbound emails' senders. */
const askerPeople = (s: Sql, family: Family, account: string) =>
  column(
    s,
    `select t.speaker_name as v from transcript_turns t join interactions i on i.id = t.interaction_id and ${KEPT}
       join accounts a on a.id = i.account_id
     where t.workspace_id = $1 and a.name = $3 and t.side = 'external' and t.text ~* $2 and ${BUYER_TURN}
     union
     select p.name as v from interactions i join accounts a on a.id = i.account_id
       join participants p on p.interaction_id = i.id and p.side = 'external'
     where i.workspace_id = $1 and ${KEPT} and a.name = $3 and ${SAID.email}
     order by 1`,
    [FAMILIES[family].re, account],
  );

// ---- deals: totals, lists, win rates -------------------------------------------------------------

const FROM_DEALS = 'from deals d left join accounts a on a.id = d.account_id where d.workspace_id = $1';
const OPEN = 'not d.is_closed';
/** A rep as an answer names them: first name, last name for the two Andres. */
const repName = (email: string) => {
  const [first = '', last = ''] = (email.split('@')[0] ?? '').split('.');
  const word = first === 'andre' ? last : first;
  return word.charAt(0).toUpperCase() + word.slice(1);
};
/** A sum of amounts written as an answer writes it: 515,300, 515300, 515.3k. */
const moneyForms = (n: number) => {
  const grouped = Math.round(n).toLocaleString('en-US');
  return [grouped, String(Math.round(n)), `${(n / 1000).toFixed(1)}k`, `${(n / 1000).toFixed(1)}K`];
};
/** A share written to one or two decimals only, for two shares that round to the same whole percent. */
const pctExact = (x: number) => [`${x.toFixed(1)}%`, `${x.toFixed(2)}%`];
/** The sum of the amounts of the deals matched, refused (NaN) when they span more than one currency. */
const total = async (s: Sql, where: string) => {
  const rows = await s<{ currencies: number; v: string | null }>(
    `select count(distinct d.currency)::int as currencies, sum(d.amount) as v ${FROM_DEALS} and ${where}`,
  );
  const row = rows[0];
  return row && row.currencies === 1 && row.v !== null ? Number(row.v) : Number.NaN;
};
/** Amount times probability over the deals matched, of one currency (NaN on a mix). */
const weighted = async (s: Sql, where: string) => {
  const rows = await s<{ currencies: number; v: string | null }>(
    `select count(distinct d.currency)::int as currencies, sum(d.amount * d.probability / 100.0) as v
     ${FROM_DEALS} and ${where} and d.amount is not null`,
  );
  const row = rows[0];
  return row && row.currencies === 1 && row.v !== null ? Number(row.v) : Number.NaN;
};
const count = (s: Sql, where: string) => scalar(s, `select count(*) as v ${FROM_DEALS} and ${where}`);
const dealNames = (s: Sql, where: string) =>
  column(s, `select distinct d.name as v ${FROM_DEALS} and ${where} order by 1`);
/** Names of the deals matched that no deal outside the match shares (safe to require absent). */
const onlyNames = (s: Sql, where: string, outside: string) =>
  column(
    s,
    `select d.name as v ${FROM_DEALS} and ${where} except select d.name as v ${FROM_DEALS} and ${outside} order by 1`,
  );
/** Won over closed deals, as a percentage. */
const winRate = (s: Sql, where = 'true') =>
  scalar(
    s,
    `select 100.0 * count(*) filter (where d.is_won) / nullif(count(*), 0) as v
     ${FROM_DEALS} and d.is_closed and ${where}`,
  );
/** The owner with the worst win rate over at least five closed deals, refused (empty) on a tie at the bottom. */
const worstWinRate = async (s: Sql) => {
  const rows = await s<{ owner: string; rate: string }>(
    `select d.owner_email as owner, 100.0 * count(*) filter (where d.is_won) / count(*) as rate
     ${FROM_DEALS} and d.is_closed and d.owner_email is not null group by 1 having count(*) >= 5 order by 2, 1`,
  );
  return rows.length > 1 && rows[0]?.rate !== rows[1]?.rate ? [repName(rows[0]?.owner ?? '')] : [];
};
/** The biggest lost deal closed in the period: its name and amount, refused (null) on a tie or a currency mix. */
const biggestLost = async (s: Sql, r: Range) => {
  const rows = await s<{ id: string; name: string; amount: string; currency: string }>(
    `select d.id, d.name, d.amount::text as amount, d.currency ${FROM_DEALS} and d.stage = 'closed_lost'
       and ${within('d.close_date', r)} and d.amount is not null order by d.amount desc limit 2`,
  );
  const [first, second] = rows;
  // Ahead of the runner-up: in the same currency at all, in another by more than any exchange rate.
  const margin = second && second.currency !== first?.currency ? 1.2 : 1;
  return first && Number(first.amount) > margin * Number(second?.amount ?? 0) ? first : null;
};

// ---- talk ratio ----------------------------------------------------------------------------------

const REPS = `select distinct owner_email as email from deals where workspace_id = $1 and owner_email is not null`;
/** Each rep's share of the seconds spoken in the calls and meetings they spoke in, most first. */
const talkShares = async (s: Sql, r: Range = EVER) =>
  (
    await s<{ rep: string; share: string }>(
      `with spoken as (select distinct t.interaction_id, t.speaker_email as rep from transcript_turns t
                       join interactions i on i.id = t.interaction_id and i.kind in ('call', 'meeting') and ${KEPT}
                         and ${within('i.occurred_at', r)}
                       where t.workspace_id = $1 and t.speaker_email in (${REPS}))
       select sp.rep,
              100.0 * sum(t.ended_at_seconds - t.started_at_seconds) filter (where t.speaker_email = sp.rep)
                / sum(t.ended_at_seconds - t.started_at_seconds) as share
       from spoken sp join transcript_turns t on t.interaction_id = sp.interaction_id
       group by sp.rep order by share desc`,
    )
  ).map((x) => ({ rep: repName(x.rep), share: Number(x.share) }));
const shareOf = async (s: Sql, rep: string, r: Range = EVER) =>
  (await talkShares(s, r)).find((x) => x.rep === rep)?.share ?? Number.NaN;
/** The rep with the biggest talk share of the period, refused (empty) unless it leads the next by a point. */
const topTalker = async (s: Sql, r: Range) => {
  const [first, second] = await talkShares(s, r);
  return first && first.share - (second?.share ?? 0) >= 1 ? [first.rep] : [];
};
/** Our side's share of every second spoken on the calls and meetings `i` (of `a`) matched. */
const ourShare = (s: Sql, where: string) =>
  scalar(
    s,
    `select 100.0 * sum(t.ended_at_seconds - t.started_at_seconds) filter (where t.side = 'internal')
            / sum(t.ended_at_seconds - t.started_at_seconds) as v
     from transcript_turns t
       join interactions i on i.id = t.interaction_id and i.kind in ('call', 'meeting') and ${KEPT}
       left join accounts a on a.id = i.account_id
     where t.workspace_id = $1 and ${where}`,
  );

// ---- competitors ---------------------------------------------------------------------------------

const COMPETITORS = ['Quotient Labs', 'Stackwise', 'Pipewell', 'Clarion AI', 'Tallyhawk'] as const;
/** An interaction `i` that names `$2` anywhere: title, summary, email body or a turn. */
const NAMES_IT = `(i.title ilike '%' || $2 || '%' or i.summary ilike '%' || $2 || '%' or i.body ilike '%' || $2 || '%'
  or exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.text ilike '%' || $2 || '%'))`;
const mentionsOf = (s: Sql, competitor: string, r: Range = EVER, where = 'true') =>
  scalar(
    s,
    `select count(*) as v from interactions i left join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${where} and ${NAMES_IT}`,
    [competitor],
  );
const accountsNaming = (s: Sql, competitor: string, r: Range = EVER, where = 'true') =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${where} and ${NAMES_IT}
     order by 1`,
    [competitor],
  );
/** The competitors named in the most interactions (of accounts matched), most first. */
const competitorCounts = async (s: Sql, r: Range, where: string) => {
  const counted = await Promise.all(COMPETITORS.map(async (c) => ({ c, n: await mentionsOf(s, c, r, where) })));
  return counted.sort((x, y) => y.n - x.n);
};
/** The `n` competitors named most, refused (empty) on a tie at or just past the cut. */
const competitorRanking = async (s: Sql, n: number, r: Range = EVER, where = 'true') => {
  const counted = await competitorCounts(s, r, where);
  const tie = counted.slice(0, n + 1).some((x, i, all) => i > 0 && x.n === all[i - 1]?.n);
  return tie ? [] : counted.slice(0, n).map((x) => [x.c]);
};
/** The competitor named most, refused (empty) unless it is named in half as many interactions again as the next. */
const topCompetitor = async (s: Sql, r: Range, where: string) => {
  const [first, second] = await competitorCounts(s, r, where);
  return first && first.n >= 1.5 * (second?.n ?? 0) ? [first.c] : [];
};
/** Deals linked to an interaction naming the competitor, filtered over `d`. */
const dealsAgainst = (s: Sql, competitor: string, where: string) =>
  column(
    s,
    `select distinct d.name as v from deals d join interactions i on i.deal_id = d.id and ${KEPT}
     where d.workspace_id = $1 and ${where} and ${NAMES_IT} order by 1`,
    [competitor],
  );
/** Won over closed deals linked to an interaction naming the competitor, as a percentage. */
const winRateAgainst = (s: Sql, competitor: string) =>
  scalar(
    s,
    `select 100.0 * count(*) filter (where d.is_won) / nullif(count(*), 0) as v from deals d
     where d.workspace_id = $1 and d.is_closed and exists (
       select 1 from interactions i where i.deal_id = d.id and ${KEPT} and ${NAMES_IT})`,
    [competitor],
  );

// ---- renewals and champions ----------------------------------------------------------------------

const OPEN_RENEWAL = `not d.is_closed and d.name ilike '%renewal%'`;
const CHAMPION_GONE = `exists (select 1 from contacts c where c.account_id = d.account_id and c.is_champion
  and c.left_at is not null)`;
/** The latest assessment of some criterion of deal `d` is at risk. */
const LATEST_AT_RISK = `exists (select 1 from (
    select distinct on (q.criterion) q.criterion, q.status from deal_qualification q
    where q.deal_id = d.id order by q.criterion, q.occurred_at desc, q.id) latest where latest.status = 'at_risk')`;
const RISKY = `${OPEN_RENEWAL} and (${CHAMPION_GONE} or ${LATEST_AT_RISK})`;
const SAFE = `${OPEN_RENEWAL} and not (${CHAMPION_GONE} or ${LATEST_AT_RISK})`;
/** The notes of the latest assessments at risk of the open deals matched. */
const latestRiskNotes = (s: Sql, where: string) =>
  column(
    s,
    `select latest.notes as v from deals d left join accounts a on a.id = d.account_id
     join lateral (select distinct on (q.criterion) q.status, q.notes from deal_qualification q where q.deal_id = d.id
                   order by q.criterion, q.occurred_at desc, q.id) latest on latest.status = 'at_risk'
     where d.workspace_id = $1 and ${where}`,
  );
/** A buyer of a customer says they may cancel, or that the tool is on the list to cut. */
const CANCEL_TALK = 'cancel|tools we could cut';
/** Champions who left, in the period, earliest first, filtered over `a` (their account). */
const departed = (s: Sql, r: Range = EVER, where = 'true') =>
  s<{ person: string; account: string; left: string }>(
    `select c.name as person, a.name as account, c.left_at::date::text as left
     from contacts c join accounts a on a.id = c.account_id
     where c.workspace_id = $1 and c.is_champion and ${within('c.left_at', r)} and ${where} order by c.left_at`,
  );
const people = async (rows: Promise<{ person: string; account: string }[]>) => (await rows).map((x) => x.person);
/** Accounts with a renewal closed after their champion had left, lost (churned) or won (renewed). */
const renewalAfterDeparture = (s: Sql, won: boolean) =>
  column(
    s,
    `select distinct a.name as v from deals d join accounts a on a.id = d.account_id
     join contacts c on c.account_id = d.account_id and c.is_champion and c.left_at is not null
     where d.workspace_id = $1 and d.name ilike '%renewal%' and d.is_closed and d.is_won = $2
       and d.close_date > c.left_at::date order by 1`,
    [won],
  );

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
/** Our people on the account's calls and meetings. */
const ourPeopleOn = (s: Sql, account: string) =>
  column(
    s,
    `select distinct p.name as v from participants p
     join interactions i on i.id = p.interaction_id and ${KEPT} and i.kind in ('call', 'meeting')
     join accounts a on a.id = i.account_id
     where p.workspace_id = $1 and a.name = $2 and p.side = 'internal' order by 1`,
    [account],
  );
/** The account's person in the most of its interactions, refused (empty) on a tie. */
const mostInTouch = async (s: Sql, account: string) => {
  const rows = await s<{ name: string; n: number }>(
    `select p.name, count(distinct p.interaction_id)::int as n from participants p
     join interactions i on i.id = p.interaction_id and ${KEPT} join accounts a on a.id = i.account_id
     where p.workspace_id = $1 and a.name = $2 and p.side = 'external' group by 1 order by 2 desc limit 2`,
    [account],
  );
  return rows.length === 2 && rows[0]?.n !== rows[1]?.n ? [rows[0]?.name ?? ''] : [];
};
/** The account's deals created, won or lost in the period. */
const dealsChanged = (s: Sql, account: string, r: Range) =>
  column(
    s,
    `select distinct d.name as v ${FROM_DEALS} and a.name = $2
       and (${within('d.occurred_at', r)} or (d.is_closed and ${within('d.close_date', r)})) order by 1`,
    [account],
  );

// ---- quiet ---------------------------------------------------------------------------------------

/** Open deals with nothing linked to them since the cutoff. */
const QUIET_SINCE = (cutoff: string) =>
  `not d.is_closed and coalesce((select max(i.occurred_at) from interactions i where i.deal_id = d.id and ${KEPT}),
    '1900-01-01') < '${cutoff}'::date`;
/** Open deals of `where` that are quiet since the cutoff, and (safe to require absent) those touched since it. */
const quietDeals = (s: Sql, where: string, cutoff: string) => dealNames(s, `${where} and ${QUIET_SINCE(cutoff)}`);
const touchedDeals = (s: Sql, where: string, cutoff: string, limit = 8) =>
  onlyNames(s, `${where} and ${OPEN} and not (${QUIET_SINCE(cutoff)})`, QUIET_SINCE(cutoff)).then((n) =>
    n.slice(0, limit),
  );
/** Buyer accounts of `a` whose latest interaction is before the cutoff (quiet) or since it (active). */
const accountsLastTouched = (s: Sql, where: string, quiet: boolean, cutoff: string) =>
  column(
    s,
    `select a.name as v from accounts a join interactions i on i.account_id = a.id and ${KEPT}
     where a.workspace_id = $1 and ${BUYER} and ${where}
     group by a.name having max(i.occurred_at) ${quiet ? '<' : '>='} $2::date order by 1`,
    [cutoff],
  );

// ---- lost reasons --------------------------------------------------------------------------------

/** Reason families of the at-risk notes on lost deals (a note counts in each it names), and how answers name each. */
const REASONS: { label: string; re: RegExp; forms: string[] }[] = [
  { label: 'competitor', re: /competitor/i, forms: ['competitor', 'competition', 'competitive'] },
  { label: 'price', re: /price|discount/i, forms: ['price', 'pricing', 'discount'] },
  { label: 'champion', re: /champion/i, forms: ['champion'] },
  {
    label: 'approver',
    re: /economic buyer|approver|CFO/i,
    forms: ['economic buyer', 'approver', 'CFO', 'budget holder'],
  },
  { label: 'business case', re: /metric|business case|target|pilot/i, forms: ['business case', 'metric', 'pilot'] },
  { label: 'no priority', re: /good enough|no longer a priority/i, forms: ['good enough', 'priority', 'status quo'] },
  { label: 'process', re: /procurement|legal|DPA|committee/i, forms: ['procurement', 'legal', 'DPA', 'committee'] },
];
/** The forms of every reason family the notes name, one list per family. */
const reasonForms = (notes: string[]) =>
  REASONS.filter((x) => notes.some((note) => x.re.test(note))).map((x) => x.forms);
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
/** The forms of the most frequent reason family, refused (empty) unless it leads the next by two deals or more. */
const topReason = async (s: Sql, r: Range, where = 'true') => {
  const [first, second] = await reasonCounts(s, r, where);
  return first && first.n - (second?.n ?? 0) >= 2 ? first.forms : [];
};
/** The at-risk notes of one deal, by its id. */
const notesOf = (s: Sql, dealId: string) =>
  column(
    s,
    `select q.notes as v from deal_qualification q
     where q.workspace_id = $1 and q.deal_id = $2 and q.status = 'at_risk'`,
    [dealId],
  );

// ---- other needs ---------------------------------------------------------------------------------

/** Buyer accounts of `where` with an inbound email in the period that no outbound email of its thread follows. */
const unansweredFrom = (s: Sql, r: Range, where: string) =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${BUYER} and ${where} and i.kind = 'email' and i.direction = 'inbound'
       and ${within('i.occurred_at', r)}
       and not exists (select 1 from interactions o where o.workspace_id = $1 and o.thread_id = i.thread_id
                      and o.direction = 'outbound' and o.occurred_at > i.occurred_at)
     order by 1`,
  );
/** The account in the most interactions of the period, refused (empty) on a tie. */
const busiestAccount = async (s: Sql, r: Range) => {
  const rows = await s<{ name: string; n: number }>(
    `select a.name, count(*)::int as n from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} group by 1 order by 2 desc limit 2`,
  );
  return rows.length === 2 && rows[0]?.n !== rows[1]?.n ? [rows[0]?.name ?? ''] : [];
};
/** Minutes a call or meeting of the period lasts on average, written to one decimal or to the whole minute. */
const averageMinutes = async (s: Sql, r: Range) => {
  const minutes = await scalar(
    s,
    `select avg(i.duration_seconds) / 60.0 as v from interactions i where i.workspace_id = $1 and ${KEPT}
     and i.kind in ('call', 'meeting') and ${within('i.occurred_at', r)}`,
  );
  return [`${minutes.toFixed(1)} min`, `${Math.round(minutes)} min`];
};

const SECURITY_REVIEW = 'SOC 2|security questionnaire|pen test|encrypt';
const PRICE_TALK = 'pric|discount|per-seat|per seat|expensive|cost per|budget|numbers work|platform fee';
const SUPPORT_TALK =
  'support tickets|support contact|support agent|support plan|took two weeks to resolve|open tickets';
const COMPETITION_TALK = /quotient|stackwise|pipewell|clarion|tallyhawk|bake-off|switch|incumbent/i;

/**
 * Subjects the corpus does not hold, each ask with the words (a regex) an answer names it by; the
 * test checks no interaction, turn or account of the corpus says any of them.
 */
export const ABSENT_SUBJECTS_6: Record<string, string> = {
  'has any customer asked us for a zendesk integration?': 'Zendesk',
  'which of our healthcare accounts need HIPAA compliance or a BAA signed': 'HIPAA|BAA',
  'whats our CSAT looking like this quarter': 'CSAT|customer satisfaction',
  'did anyone bring up the gartner magic quadrant on a call': 'Gartner|magic quadrant',
  'how many free trial signups turned into paying customers last month?': 'free trial|trial',
  'any prospects asking for a mobile app (ios/android)?': 'mobile app|iOS|Android',
};

/** Every question of the sixth fresh set as written; none has been seen by the developer yet. */
export const WRITTEN_FRESH_6: Question[] = [
  // ---- feature requests ----------------------------------------------------------------------------
  {
    shape: 'feature_requests',
    ask: 'whos asked for a snowflake or bigquery export this qtr?',
    expect: {
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /snowflake|bigquery|redshift|export|warehouse|csv/i,
      mentions: (s) => askers(s, 'warehouse', Q4),
      absent: async (s) => minus(await askers(s, 'warehouse', Q3), await askers(s, 'warehouse', Q4)),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'how many accounts have requested SAML / SCIM / SSO so far in 2026',
    expect: { numbers: async (s) => [(await askers(s, 'sso', THIS_YEAR)).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'which insurance companies want role based permissions or private calls',
    expect: {
      topic: /role|private|see|visible|access|recording|permission/i,
      mentions: (s) => askers(s, 'permissions', EVER, `a.industry = 'Insurance'`),
      absent: async (s) => (await askers(s, 'permissions', EVER, `a.industry <> 'Insurance'`)).slice(0, 8),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'what do prospects want us to integrate with more than anything else?',
    expect: { mentionsSome: (s) => topFamily(s, EVER, PROSPECT, INTEGRATIONS) },
  },
  {
    shape: 'feature_requests',
    ask: 'any requests for a microsoft teams integration (not slack, teams)? which accts',
    expect: {
      topic: /teams/i,
      mentions: (s) => askers(s, 'teams'),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'in the last 60 days which customers have asked about locking down who gets to see which calls',
    expect: {
      period: { from: LAST_60[0], to: LAST_60[1], field: 'occurred_at' },
      topic: /role|private|see|visible|access|recording|permission/i,
      mentions: (s) => askers(s, 'permissions', LAST_60, CUSTOMER),
      absent: async (s) =>
        minus(await askers(s, 'permissions', EVER, CUSTOMER), await askers(s, 'permissions', LAST_60, CUSTOMER)),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'hubspot integration asks that came in by email rather than on a call — which accounts sent them?',
    expect: {
      mentions: (s) => askers(s, 'hubspot', EVER, 'true', 'email'),
      absent: async (s) =>
        minus(await askers(s, 'hubspot', EVER, 'true', 'spoken'), await askers(s, 'hubspot', EVER, 'true', 'email')),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'number of distinct accounts that requested custom dashboards or reports in Q3?',
    expect: { numbers: async (s) => [(await askers(s, 'reports', Q3)).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'top two product asks this quarter, biggest first',
    expect: { ordered: (s) => topFamilies(s, 2, Q4) },
  },
  {
    shape: 'feature_requests',
    ask: 'has anybody been asking for a status page in the past month',
    expect: {
      period: { from: LAST_30[0], to: LAST_30[1], field: 'occurred_at' },
      topic: /status page|status/i,
      mentions: (s) => askers(s, 'status', LAST_30),
      absent: async (s) => minus(await askers(s, 'status', EVER), await askers(s, 'status', LAST_30)),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'who over at Indigo Logistics has been pushing for role-based access? names pls',
    expect: {
      quoteAccounts: async () => ['Indigo Logistics'],
      mentions: (s) => askerPeople(s, 'permissions', 'Indigo Logistics'),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'API / webhook requests - how many came from customer accounts and how many from prospects?',
    expect: {
      numbers: async (s) => [
        (await askers(s, 'api', EVER, CUSTOMER)).length,
        (await askers(s, 'api', EVER, PROSPECT)).length,
      ],
    },
  },

  // ---- competitors ---------------------------------------------------------------------------------
  {
    shape: 'competitors',
    ask: 'which competitor do our EMEA accounts bring up the most',
    expect: { mentions: (s) => topCompetitor(s, EVER, `a.region = 'EMEA'`) },
  },
  {
    shape: 'competitors',
    ask: "in APAC who's the main competitor we run into, and who's number 2?",
    expect: { ordered: (s) => competitorRanking(s, 2, EVER, `a.region = 'APAC'`) },
  },
  {
    shape: 'competitors',
    ask: 'who has mentioned clarion ai in the last 60 days',
    expect: {
      period: { from: LAST_60[0], to: LAST_60[1], field: 'occurred_at' },
      topic: /clarion/i,
      mentions: (s) => accountsNaming(s, 'Clarion AI', LAST_60),
      absent: async (s) => minus(await accountsNaming(s, 'Clarion AI'), await accountsNaming(s, 'Clarion AI', LAST_60)),
    },
  },
  {
    shape: 'competitors',
    ask: 'open deals where tallyhawk is in the mix?',
    expect: { topic: /tallyhawk/i, mentions: (s) => dealsAgainst(s, 'Tallyhawk', OPEN) },
  },
  {
    shape: 'competitors',
    ask: 'whats our win rate when pipewell is in the deal',
    expect: { mentionsEach: async (s) => [pct(await winRateAgainst(s, 'Pipewell'))] },
  },
  {
    shape: 'competitors',
    ask: 'stackwise mentions: 2025 vs 2026 so far',
    expect: {
      topic: /stackwise/i,
      numbers: async (s) => [await mentionsOf(s, 'Stackwise', LAST_YEAR), await mentionsOf(s, 'Stackwise', THIS_YEAR)],
    },
  },

  // ---- renewal risk --------------------------------------------------------------------------------
  {
    shape: 'renewal_risk',
    ask: 'emea renewals at risk?',
    expect: {
      mentions: (s) => dealNames(s, `${RISKY} and a.region = 'EMEA'`),
      absent: (s) => dealNames(s, `${SAFE} and a.region = 'EMEA'`),
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'which upcoming renewals no longer have a champion on the customer side',
    expect: {
      mentions: (s) => dealNames(s, `${OPEN_RENEWAL} and ${CHAMPION_GONE}`),
      absent: (s) => dealNames(s, `${OPEN_RENEWAL} and not ${CHAMPION_GONE}`),
    },
  },
  {
    shape: 'renewal_risk',
    ask: "which customers threatened to cancel, or told us we're on their list of tools to cut, this quarter?",
    expect: {
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /cancel|cut/i,
      mentions: (s) => accountsSaying(s, CANCEL_TALK, Q4, CUSTOMER),
      absent: async (s) =>
        minus(await accountsSaying(s, CANCEL_TALK, Q3, CUSTOMER), await accountsSaying(s, CANCEL_TALK, Q4, CUSTOMER)),
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'how much renewal revenue is at risk right now? usd and eur separately',
    expect: {
      numbers: async (s) => [
        await total(s, `${RISKY} and d.currency = 'USD'`),
        await total(s, `${RISKY} and d.currency = 'EUR'`),
      ],
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'the indigo logistics renewal closes end of month - anything that could sink it?',
    expect: {
      quoteAccounts: async () => ['Indigo Logistics'],
      mentionsEach: async (s) =>
        reasonForms(await latestRiskNotes(s, `${OPEN_RENEWAL} and a.name = 'Indigo Logistics'`)),
    },
  },

  // ---- champion changes ----------------------------------------------------------------------------
  {
    shape: 'champion_change',
    ask: 'any champion departures at our EMEA customers?',
    expect: {
      mentions: (s) => people(departed(s, EVER, `a.region = 'EMEA'`)),
      absent: (s) => people(departed(s, EVER, `a.region <> 'EMEA'`)),
    },
  },
  {
    shape: 'champion_change',
    ask: 'which champions have left their companies since march 1st?',
    expect: {
      mentions: (s) => people(departed(s, SINCE_MARCH)),
      absent: async (s) => minus(await people(departed(s)), await people(departed(s, SINCE_MARCH))),
    },
  },
  {
    shape: 'champion_change',
    ask: "beacon logistics' champion - who was it and when did they leave?",
    expect: {
      quoteAccounts: async () => ['Beacon Logistics'],
      mentionsEach: async (s) => {
        const [gone] = await departed(s, EVER, `a.name = 'Beacon Logistics'`);
        return gone ? [[gone.person], dateForms(gone.left)] : [];
      },
    },
  },
  {
    shape: 'champion_change',
    ask: "how many of paula's accounts have lost their champion",
    expect: { numbers: async (s) => [(await departed(s, EVER, `a.owner_email like 'paula.%'`)).length] },
  },
  {
    shape: 'champion_change',
    ask: 'did any account actually churn after its champion walked? (lost the renewal after they left)',
    expect: {
      mentions: (s) => renewalAfterDeparture(s, false),
      absent: (s) => renewalAfterDeparture(s, true),
    },
  },

  // ---- account history and prep --------------------------------------------------------------------
  {
    shape: 'account_history',
    ask: "prep me for my mosaic logistics call tmrw: what deals are live, who's who, anything open I should know about",
    expect: {
      quoteAccounts: async () => ['Mosaic Logistics'],
      mentions: (s) => dealNames(s, `${OPEN} and a.name = 'Mosaic Logistics'`),
    },
  },
  {
    shape: 'account_history',
    ask: 'first ever touchpoint with tidewater logistics - what date was it?',
    expect: {
      quoteAccounts: async () => ['Tidewater Logistics'],
      mentionsSome: (s) => touchOf(s, 'Tidewater Logistics', 'min'),
    },
  },
  {
    shape: 'account_history',
    ask: 'how many emails have gone back and forth with lumen logistics this year',
    expect: {
      quoteAccounts: async () => ['Lumen Logistics'],
      numbers: async (s) => [
        await interactionCount(s, 'Lumen Logistics', `i.kind = 'email' and ${within('i.occurred_at', THIS_YEAR)}`),
      ],
    },
  },
  {
    shape: 'account_history',
    ask: 'who from our team has actually been on calls with keystone health?',
    expect: { quoteAccounts: async () => ['Keystone Health'], mentions: (s) => ourPeopleOn(s, 'Keystone Health') },
  },
  {
    shape: 'account_history',
    ask: 'last real call or meeting (not email) with pinnacle logistics, when was it',
    expect: {
      quoteAccounts: async () => ['Pinnacle Logistics'],
      mentionsSome: (s) => touchOf(s, 'Pinnacle Logistics', 'max', `i.kind in ('call', 'meeting')`),
    },
  },
  {
    shape: 'account_history',
    ask: 'full deal history with kestrel logistics pls - won, lost, everything',
    expect: {
      quoteAccounts: async () => ['Kestrel Logistics'],
      mentions: (s) => dealNames(s, `a.name = 'Kestrel Logistics'`),
    },
  },
  {
    shape: 'account_history',
    ask: "who's our go-to person at onyx logistics?",
    expect: { quoteAccounts: async () => ['Onyx Logistics'], mentions: (s) => mostInTouch(s, 'Onyx Logistics') },
  },

  // ---- what changed at an account in a period ------------------------------------------------------
  {
    shape: 'what_changed',
    ask: "what's changed at bluefin health since oct 1?",
    expect: {
      quoteAccounts: async () => ['Bluefin Health'],
      mentions: (s) => dealsChanged(s, 'Bluefin Health', SINCE_OCTOBER),
    },
  },
  {
    shape: 'what_changed',
    ask: 'anything new with alder logistics over the summer (jul-sep)?',
    expect: {
      quoteAccounts: async () => ['Alder Logistics'],
      // The champion left in August; the 2026 renewal was won at the end of it.
      mentionsEach: async (s) => [
        ...(await departed(s, Q3, `a.name = 'Alder Logistics'`)).map((x) => [x.person]),
        ...(await dealsChanged(s, 'Alder Logistics', Q3)).map((name) => [name, name.replace(/^.* - /, '')]),
      ],
    },
  },
  {
    shape: 'what_changed',
    ask: 'what happened w/ willow logistics this month',
    expect: {
      quoteAccounts: async () => ['Willow Logistics'],
      mentionsEach: async (s) => [
        ...(await dealsChanged(s, 'Willow Logistics', NOVEMBER)).map((name) => [name, name.replace(/^.* - /, '')]),
        ['lost', 'closed_lost', 'churn'],
      ],
    },
  },
  {
    shape: 'what_changed',
    ask: "keystone health: what's moved in the last 30 days?",
    expect: {
      quoteAccounts: async () => ['Keystone Health'],
      period: { from: LAST_30[0], to: LAST_30[1], field: 'occurred_at' },
      mentionsEach: async (s) =>
        (await dealsChanged(s, 'Keystone Health', LAST_30)).map((name) => [name, name.replace(/^.* - /, '')]),
    },
  },

  // ---- talk ratio ----------------------------------------------------------------------------------
  {
    shape: 'talk_ratio',
    ask: 'who talked the most on their own calls this year',
    expect: { mentions: (s) => topTalker(s, THIS_YEAR) },
  },
  {
    shape: 'talk_ratio',
    ask: 'bens talk ratio q3 vs q4?',
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Ben', Q3)), pct(await shareOf(s, 'Ben', Q4))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'andre dubois or andre nakamura, which one is the bigger talker on calls?',
    expect: {
      mentionsEach: async (s) => [pctExact(await shareOf(s, 'Dubois')), pctExact(await shareOf(s, 'Nakamura'))],
    },
  },
  {
    shape: 'talk_ratio',
    ask: 'on discovery calls how much are we talking vs the prospect?',
    expect: {
      mentionsSome: async (s) => {
        const ours = await ourShare(s, `i.title like '%Discovery call%'`);
        return [...pct(ours), ...pct(100 - ours)];
      },
    },
  },
  {
    shape: 'talk_ratio',
    ask: "mateo's talk share over the last 30 days - is he hogging the calls or not",
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Mateo', LAST_30))] },
  },

  // ---- quiet deals and accounts --------------------------------------------------------------------
  {
    shape: 'quiet',
    ask: 'which open deals have had zero activity for 45 days or more',
    expect: {
      mentions: (s) => quietDeals(s, 'true', DAYS_AGO(45)),
      absent: (s) => touchedDeals(s, 'true', DAYS_AGO(35)),
    },
  },
  {
    shape: 'quiet',
    ask: "customers we haven't spoken to since sept 1",
    expect: {
      mentions: (s) => accountsLastTouched(s, CUSTOMER, true, '2026-09-01'),
      absent: (s) => accountsLastTouched(s, CUSTOMER, false, '2026-09-01'),
    },
  },
  {
    shape: 'quiet',
    ask: 'prospects that nobody has touched in 3 months',
    expect: {
      mentions: (s) => accountsLastTouched(s, PROSPECT, true, DAYS_AGO(90)),
      absent: (s) => accountsLastTouched(s, PROSPECT, false, DAYS_AGO(90)),
    },
  },
  {
    shape: 'quiet',
    ask: "oscar's deals that have gone cold (nothing logged in 30 days)",
    expect: {
      mentions: (s) => quietDeals(s, `d.owner_email like 'oscar.%'`, DAYS_AGO(30)),
      absent: (s) => touchedDeals(s, `d.owner_email like 'oscar.%'`, DAYS_AGO(30)),
    },
  },
  {
    shape: 'quiet',
    ask: 'euro deals gone dark 60+ days',
    expect: {
      mentions: (s) => quietDeals(s, `d.currency = 'EUR'`, DAYS_AGO(60)),
      absent: (s) => touchedDeals(s, `d.currency = 'EUR'`, DAYS_AGO(60)),
    },
  },
  {
    shape: 'quiet',
    ask: 'deals sitting in evaluation where nothing has happened for a month',
    expect: {
      mentions: (s) => quietDeals(s, `d.stage = 'evaluation'`, DAYS_AGO(30)),
      absent: (s) => touchedDeals(s, `d.stage = 'evaluation'`, DAYS_AGO(30)),
    },
  },

  // ---- lost reasons --------------------------------------------------------------------------------
  {
    shape: 'lost_reasons',
    ask: 'why did we lose the willow renewal',
    expect: {
      mentionsEach: async (s) => {
        const [deal] = await column(
          s,
          `select d.id as v ${FROM_DEALS} and a.name = 'Willow Logistics' and d.name ilike '%renewal%'
             and d.stage = 'closed_lost'
           order by d.close_date desc limit 1`,
        );
        return deal ? reasonForms(await notesOf(s, deal)) : [];
      },
    },
  },
  {
    shape: 'lost_reasons',
    ask: 'first half of this year, jan thru june: what was the main reason deals got lost',
    expect: { mentionsSome: (s) => topReason(s, H1) },
  },
  {
    shape: 'lost_reasons',
    ask: 'when we lose a brand new logo (not an existing customer), whats usually the reason?',
    expect: { mentionsSome: (s) => topReason(s, EVER, PROSPECT) },
  },
  {
    shape: 'lost_reasons',
    ask: 'how many deals did we lose this year because the champion went quiet or left',
    expect: {
      numbers: async (s) => [(await reasonCounts(s, THIS_YEAR)).find((x) => x.label === 'champion')?.n ?? 0],
    },
  },
  {
    shape: 'lost_reasons',
    ask: 'biggest deal we lost this year, and why did it go sideways',
    expect: {
      mentionsEach: async (s) => {
        const lost = await biggestLost(s, THIS_YEAR);
        return lost ? [[lost.name], moneyForms(Number(lost.amount)), ...reasonForms(await notesOf(s, lost.id))] : [];
      },
    },
  },

  // ---- pipeline lists and totals -------------------------------------------------------------------
  {
    shape: 'pipeline',
    ask: 'total open pipe in USD?',
    expect: { mentionsSome: async (s) => moneyForms(await total(s, `${OPEN} and d.currency = 'USD'`)) },
  },
  {
    shape: 'pipeline',
    ask: 'weighted pipeline (amount x probability), dollars only',
    expect: { mentionsSome: async (s) => moneyForms(await weighted(s, `${OPEN} and d.currency = 'USD'`)) },
  },
  {
    shape: 'pipeline',
    ask: "zoe's open deals?",
    expect: {
      mentions: (s) => dealNames(s, `${OPEN} and d.owner_email like 'zoe.%'`),
      absent: (s) => onlyNames(s, `d.is_closed and d.owner_email like 'zoe.%'`, OPEN).then((n) => n.slice(0, 8)),
    },
  },
  {
    shape: 'pipeline',
    ask: 'whats slated to close in december',
    expect: {
      period: { from: DECEMBER[0], to: DECEMBER[1], field: 'close_date' },
      mentions: (s) => dealNames(s, `${OPEN} and ${within('d.close_date', DECEMBER)}`),
      absent: (s) =>
        onlyNames(
          s,
          `${OPEN} and (${within('d.close_date', NOVEMBER_END)} or ${within('d.close_date', JANUARY)})`,
          within('d.close_date', DECEMBER),
        ),
    },
  },
  {
    shape: 'pipeline',
    ask: 'APAC pipeline — what is open there and how much is it worth',
    expect: {
      mentions: (s) => dealNames(s, `${OPEN} and a.region = 'APAC'`),
      numbers: async (s) => [await total(s, `${OPEN} and a.region = 'APAC'`)],
    },
  },
  {
    shape: 'pipeline',
    ask: 'how many deals are at proposal stage and what are they worth combined (per currency)',
    expect: {
      numbers: async (s) => [
        await count(s, `${OPEN} and d.stage = 'proposal'`),
        await total(s, `${OPEN} and d.stage = 'proposal' and d.currency = 'USD'`),
        await total(s, `${OPEN} and d.stage = 'proposal' and d.currency = 'EUR'`),
      ],
    },
  },

  // ---- win rates -----------------------------------------------------------------------------------
  {
    shape: 'win_rate',
    ask: 'q2 vs q3 win rate',
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, within('d.close_date', Q2))),
        pct(await winRate(s, within('d.close_date', Q3))),
      ],
    },
  },
  {
    shape: 'win_rate',
    ask: "oscar's close rate for 2026",
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, `d.owner_email like 'oscar.%' and ${within('d.close_date', THIS_YEAR)}`)),
      ],
    },
  },
  {
    shape: 'win_rate',
    ask: 'how often do we win expansion and add-on seat deals?',
    expect: {
      mentionsEach: async (s) => [pct(await winRate(s, `(d.name ilike '%expansion%' or d.name ilike '%add-on%')`))],
    },
  },
  {
    shape: 'win_rate',
    ask: "who's got the worst win rate on the team",
    expect: { mentions: (s) => worstWinRate(s) },
  },
  {
    shape: 'win_rate',
    ask: 'win rate on deals over 50k vs under 50k',
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, 'd.amount >= 50000')),
        pct(await winRate(s, 'd.amount < 50000')),
      ],
    },
  },

  // ---- what buyers said, in their own words --------------------------------------------------------
  {
    shape: 'quotes',
    ask: 'what are buyers saying about our SOC 2 report and their security questionnaires this quarter? exact words',
    expect: {
      quotes: 'required',
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /SOC 2|security|questionnaire|pen test|encrypt/i,
      quoteAccounts: (s) => accountsSaying(s, SECURITY_REVIEW, Q4),
      distinctQuotes: true,
    },
  },
  {
    shape: 'quotes',
    ask: 'give me verbatims from emea prospects on pricing, this year only',
    expect: {
      quotes: 'required',
      period: { from: THIS_YEAR[0], to: THIS_YEAR[1], field: 'occurred_at' },
      topic: new RegExp(PRICE_TALK, 'i'),
      quoteAccounts: (s) => accountsSaying(s, PRICE_TALK, THIS_YEAR, `a.region = 'EMEA' and ${PROSPECT}`),
      distinctQuotes: true,
    },
  },
  {
    shape: 'quotes',
    ask: 'how do customers describe our support response times? in their own words',
    expect: {
      quotes: 'required',
      topic: /support|ticket|escalat|resolve|response/i,
      quoteAccounts: (s) => accountsSaying(s, SUPPORT_TALK, EVER, CUSTOMER),
    },
  },
  {
    shape: 'quotes',
    ask: 'what has glacier logistics said about the competition? quote them',
    expect: { quotes: 'required', topic: COMPETITION_TALK, quoteAccounts: async () => ['Glacier Logistics'] },
  },
  {
    shape: 'quotes',
    ask: 'the exact words buyers used when asking for slack alerts',
    expect: {
      quotes: 'required',
      topic: /slack/i,
      quoteAccounts: (s) => askers(s, 'slack'),
      distinctQuotes: true,
    },
  },

  // ---- follow-ups ----------------------------------------------------------------------------------
  {
    shape: 'follow_up',
    thread: ['which accounts asked for a salesforce integration this quarter?'],
    ask: 'and last quarter?',
    expect: {
      period: { from: Q3[0], to: Q3[1], field: 'occurred_at' },
      mentions: (s) => askers(s, 'salesforce', Q3),
      absent: async (s) => minus(await askers(s, 'salesforce', Q4), await askers(s, 'salesforce', Q3)),
    },
  },
  {
    shape: 'follow_up',
    thread: ["what's in rhea's pipeline right now"],
    ask: 'which of those have gone quiet, no activity in the last 30 days',
    expect: {
      mentions: (s) => quietDeals(s, `d.owner_email like 'rhea.%'`, DAYS_AGO(30)),
      absent: (s) => touchedDeals(s, `d.owner_email like 'rhea.%'`, DAYS_AGO(30)),
    },
  },
  {
    shape: 'follow_up',
    thread: ['win rate for EMEA this year?'],
    ask: 'and north america, same period',
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, `a.region = 'North America' and ${within('d.close_date', THIS_YEAR)}`)),
      ],
    },
  },
  {
    shape: 'follow_up',
    thread: ['who mentioned pipewell in the last 60 days'],
    ask: 'any of them already customers?',
    expect: {
      mentions: (s) => accountsNaming(s, 'Pipewell', LAST_60, CUSTOMER),
      absent: (s) => accountsNaming(s, 'Pipewell', LAST_60, `coalesce(a.type, '') <> 'customer'`),
    },
  },
  {
    shape: 'follow_up',
    thread: ['list the deals we lost last quarter'],
    ask: "what's the total $ on those",
    expect: {
      numbers: async (s) => [
        await total(s, `d.stage = 'closed_lost' and ${within('d.close_date', Q3)} and d.currency = 'USD'`),
        await total(s, `d.stage = 'closed_lost' and ${within('d.close_date', Q3)} and d.currency = 'EUR'`),
      ],
    },
  },
  {
    shape: 'follow_up',
    thread: ["list the champions who've moved on from their accounts in 2026"],
    ask: 'ok and which of those accounts have a renewal coming up with us',
    expect: {
      mentions: async (s) => {
        const accounts = [...new Set((await departed(s, THIS_YEAR)).map((x) => x.account))];
        return column(s, `select distinct d.name as v ${FROM_DEALS} and ${OPEN_RENEWAL} and a.name = any($2::text[])`, [
          accounts,
        ]);
      },
      absent: async (s) => {
        const accounts = [...new Set((await departed(s, THIS_YEAR)).map((x) => x.account))];
        return column(
          s,
          `select distinct d.name as v ${FROM_DEALS} and ${OPEN_RENEWAL} and not (a.name = any($2::text[]))`,
          [accounts],
        );
      },
    },
  },

  // ---- needs outside the list above, answerable from the corpus ------------------------------------
  {
    shape: 'activity_count',
    ask: 'how many emails did mateo send out in october',
    expect: {
      numbers: async (s) => [
        await scalar(
          s,
          `select count(distinct i.id) as v from interactions i join participants p on p.interaction_id = i.id
           where i.workspace_id = $1 and ${KEPT} and i.kind = 'email' and i.direction = 'outbound'
             and p.side = 'internal' and p.email like 'mateo.%' and ${within('i.occurred_at', OCTOBER)}`,
        ),
      ],
    },
  },
  {
    shape: 'account_owner',
    ask: 'who owns cobalt health on our side',
    expect: {
      mentions: async (s) =>
        (
          await column(
            s,
            `select a.owner_email as v from accounts a where a.workspace_id = $1 and a.name = 'Cobalt Health'`,
          )
        ).map(repName),
    },
  },
  {
    shape: 'call_length',
    ask: 'avg length of our calls and meetings this quarter, in minutes',
    expect: { mentionsSome: (s) => averageMinutes(s, Q4) },
  },
  {
    shape: 'busiest_account',
    ask: 'which account have we had the most conversations with in 2026',
    expect: { mentions: (s) => busiestAccount(s, THIS_YEAR) },
  },
  {
    shape: 'buyer_roles',
    ask: "who's the economic buyer over at lumen logistics?",
    expect: {
      mentions: (s) =>
        column(
          s,
          `select distinct p.name as v from participants p join interactions i on i.id = p.interaction_id and ${KEPT}
           join accounts a on a.id = i.account_id
           where p.workspace_id = $1 and a.name = 'Lumen Logistics' and p.side = 'external'
             and p.role = 'economic_buyer'`,
        ),
    },
  },
  {
    shape: 'meeting_count',
    ask: 'how many QBRs did we run this year',
    expect: {
      numbers: async (s) => [
        await scalar(
          s,
          `select count(*) as v from interactions i
           where i.workspace_id = $1 and ${KEPT} and i.kind in ('call', 'meeting')
           and i.title like '%Quarterly business review%' and ${within('i.occurred_at', THIS_YEAR)}`,
        ),
      ],
    },
  },
  {
    shape: 'unanswered_email',
    ask: 'customer emails from this month that are still waiting on a reply from us',
    expect: {
      period: { from: NOVEMBER[0], to: NOVEMBER[1], field: 'occurred_at' },
      mentions: (s) => unansweredFrom(s, NOVEMBER, CUSTOMER),
      absent: async (s) =>
        minus(await unansweredFrom(s, OCTOBER, CUSTOMER), await unansweredFrom(s, NOVEMBER, CUSTOMER)),
    },
  },

  // ---- subjects the corpus does not hold -----------------------------------------------------------
  ...Object.entries(ABSENT_SUBJECTS_6).map(
    ([ask, subject]): Question => ({
      shape: 'absent_subject',
      ask,
      expect: { says: saysAbsent(subject), quotes: 'none' },
    }),
  ),
];

/** The sixth set's questions that are held out: all of them, until the developer has seen one. */
export const HELD_OUT_FRESH_6: Question[] = WRITTEN_FRESH_6;
