import { KEPT, P, TODAY } from './facts.js';
import { column, dateForms, pct, saysAbsent, scalar } from './held-out.js';
import type { Question, Sql } from './judge.js';

/**
 * A fifth fresh held-out set: written from the schema, the demo corpus (its generator files and SQL
 * over the seeded rows) and the spec alone, by someone who has read neither the answering code, the
 * dev set, nor the earlier held-out questions beyond their format and the fourth set's truth helpers.
 * It asks what sales, CS, marketing and RevOps people type into a chat box about their calls, emails
 * and CRM (talk ratio, feature requests, renewal risk, champion changes, an account's history and the
 * prep for it, competitors, quiet deals and accounts, lost reasons, pipeline lists and totals, win
 * rates), with follow-ups that lean on the turn before, subjects the corpus does not hold, and needs
 * outside that list the corpus answers (how many conversations in a month, what closes this quarter,
 * emails nobody answered, a buyer's price pushback in their words, who raised security reviews, the
 * person at an account we talk to most, the biggest deal, deals per stage, the busiest rep), in their
 * own words: terse, misspelt, long-winded, indirect. It measures (bench/answers.ts) and never gates.
 * Every truth is SQL written here over the corpus, run when the question is judged; today is facts.ts's
 * TODAY, 2026-11-20.
 *
 * How these truths read the corpus: a rep is a deal owner (the two sales engineers, the manager and
 * the executive own no deal); a talk share is a speaker's seconds over all seconds spoken in the calls
 * and meetings they spoke in, and our side's share is the internal seconds over all seconds; a feature
 * request is a buyer's turn on a call or meeting, or an inbound email, asking for something, in
 * families named by the words buyers use, counted by distinct buyer accounts; a renewal is a deal named
 * as one, at risk when the latest assessment of one of its criteria is at risk or its account's
 * champion has left; a champion change is a champion contact with a date they left; a lost deal's
 * reasons are the notes of its criteria assessed at risk, a note counting in every reason family it
 * names; a quiet deal is open with nothing linked to it since the cutoff, a quiet account is a buyer
 * (customer, sales target or untyped) with no interaction since; a competitor comes up in an interaction
 * naming it anywhere, and a deal is up against it when an interaction linked to the deal names it; a
 * win rate is won over closed deals, dated by close date; an email went unanswered when no outbound
 * email of its thread follows it. Amounts are summed over one currency only (`total` refuses a mix);
 * every EUR deal is an EMEA account's, every USD deal another region's. Two reps are called Andre, so
 * they are named by their last names; two deals are named twice among the open ones, so a list that
 * must leave one out never leaves out a name that also belongs to one it must name.
 */

type Range = readonly [string, string];
const EVER: Range = ['1900-01-01', '2999-01-01'];
const THIS_YEAR: Range = P.thisYear;
const LAST_YEAR: Range = P.lastYear;
const Q3: Range = P.lastQuarter;
const Q4: Range = P.thisQuarter;
const Q2: Range = ['2026-04-01', '2026-07-01'];
const OCTOBER: Range = P.lastMonth;
const LAST_TWO_WEEKS: Range = P.last14;

/** Account types whose people are not buyers of the product. */
const NOT_BUYERS = `('competitor', 'vendor', 'investor', 'partner', 'media', 'advisor', 'reseller', 'other')`;
const BUYER = `coalesce(a.type, '') not in ${NOT_BUYERS}`;
/**
 * A buyer's words: a turn (`t`) or an inbound email (`i`) of a buyer account, or of a contact marked a
 * buyer on another account (the partner or reseller evaluating the product for its own team).
 */
const BUYER_TURN = `(${BUYER} or exists (select 1 from contacts c where c.workspace_id = $1 and c.is_buyer
  and lower(c.email) = lower(t.speaker_email)))`;
const BUYER_MAIL = `(${BUYER} or exists (select 1 from participants p join contacts c on c.id = p.contact_id
  where p.interaction_id = i.id and p.side = 'external' and c.is_buyer))`;
/** Buyer accounts, or accounts with a buyer among their contacts, that said the regex `$2` in the period `i` is in. */
const SAID_BY_BUYER = `((i.kind = 'email' and i.direction = 'inbound' and i.body ~* $2 and ${BUYER_MAIL})
  or (i.kind in ('call', 'meeting') and exists (
        select 1 from transcript_turns t where t.interaction_id = i.id and t.side = 'external' and t.text ~* $2 and ${BUYER_TURN})))`;
const within = (field: string, r: Range) => `${field} >= '${r[0]}' and ${field} < '${r[1]}'`;
const FROM_DEALS = 'from deals d left join accounts a on a.id = d.account_id where d.workspace_id = $1';
const OPEN = 'not d.is_closed';

/** A rep as an answer names them: first name, last name for the two Andres. */
const repName = (email: string) => {
  const [first = '', last = ''] = (email.split('@')[0] ?? '').split('.');
  const word = first === 'andre' ? last : first;
  return word.charAt(0).toUpperCase() + word.slice(1);
};
/** A sum of amounts written as an answer writes it: 515300, 515,300, 515.3k. */
const moneyForms = (n: number) => {
  const grouped = Math.round(n).toLocaleString('en-US');
  return [grouped, String(Math.round(n)), `${(n / 1000).toFixed(1)}k`, `${(n / 1000).toFixed(1)}K`];
};
/** A share written to one or two decimals only, for two shares that round to the same whole percent. */
const pctExact = (x: number) => [`${x.toFixed(1)}%`, `${x.toFixed(2)}%`];
/** Names in `all` that are not in `keep`. */
const minus = (all: string[], keep: string[]) => all.filter((x) => !keep.includes(x));

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
/** Names of the deals matched that no deal outside the match shares (safe to require absent). */
const onlyNames = (s: Sql, where: string, outside: string) =>
  column(
    s,
    `select d.name as v ${FROM_DEALS} and ${where} except select d.name as v ${FROM_DEALS} and ${outside} order by 1`,
  );
/** The `n` biggest deals of one currency, refused (empty) when two of the cut share an amount or a name. */
const topDeals = async (s: Sql, where: string, n: number) => {
  const rows = await s<{ name: string; amount: string }>(
    `select d.name, d.amount::text as amount ${FROM_DEALS} and ${where} and d.amount is not null
     order by d.amount desc limit ${n + 1}`,
  );
  const cut = rows.slice(0, n);
  const tie = rows.some((r, i, all) => i > 0 && r.amount === all[i - 1]?.amount);
  const mixed = (await scalar(s, `select count(distinct d.currency) as v ${FROM_DEALS} and ${where}`)) !== 1;
  return tie || mixed || new Set(cut.map((r) => r.name)).size !== cut.length ? [] : cut.map((r) => [r.name]);
};
/** Won over closed deals, as a percentage. */
const winRate = (s: Sql, where = 'true') =>
  scalar(
    s,
    `select 100.0 * count(*) filter (where d.is_won) / nullif(count(*), 0) as v ${FROM_DEALS} and d.is_closed and ${where}`,
  );
/** The owner with the best win rate, refused (empty) on a tie at the top. */
const bestWinRate = async (s: Sql, where = 'true') => {
  const rows = await s<{ owner: string; rate: string }>(
    `select d.owner_email as owner, 100.0 * count(*) filter (where d.is_won) / count(*) as rate
     ${FROM_DEALS} and d.is_closed and d.owner_email is not null and ${where} group by 1 order by 2 desc, 1`,
  );
  return rows.length > 1 && rows[0]?.rate !== rows[1]?.rate ? [repName(rows[0]?.owner ?? '')] : [];
};

// ---- talk ratio ----------------------------------------------------------------------------------

/** Who a talk share is asked of: the reps (deal owners) or the sales engineers (role `se` on a call). */
const SPEAKERS = {
  reps: `select distinct owner_email as email from deals where workspace_id = $1 and owner_email is not null`,
  engineers: `select distinct email from participants where workspace_id = $1 and side = 'internal' and role = 'se'`,
} as const;
/** Each speaker's share of the seconds spoken in the calls and meetings they spoke in, most first. */
const talkShares = async (s: Sql, r: Range = EVER, who: keyof typeof SPEAKERS = 'reps') =>
  (
    await s<{ rep: string; share: string }>(
      `with speakers as (${SPEAKERS[who]}),
            spoken as (select distinct t.interaction_id, t.speaker_email as rep from transcript_turns t
                       join interactions i on i.id = t.interaction_id and i.kind in ('call', 'meeting') and ${KEPT}
                         and ${within('i.occurred_at', r)}
                       where t.workspace_id = $1 and t.speaker_email in (select email from speakers))
       select sp.rep,
              100.0 * sum(t.ended_at_seconds - t.started_at_seconds) filter (where t.speaker_email = sp.rep)
                / sum(t.ended_at_seconds - t.started_at_seconds) as share
       from spoken sp join transcript_turns t on t.interaction_id = sp.interaction_id
       group by sp.rep order by share desc`,
    )
  ).map((x) => ({ rep: repName(x.rep), share: Number(x.share) }));
const shareOf = async (s: Sql, rep: string, r: Range = EVER, who: keyof typeof SPEAKERS = 'reps') =>
  (await talkShares(s, r, who)).find((x) => x.rep === rep)?.share ?? Number.NaN;
/** The first `n` of a ranking of talk shares (reversed: the quietest first), refused (empty) on a tie. */
const talkRanking = async (s: Sql, n: number, r: Range = EVER, quietestFirst = false) => {
  const ranked = await talkShares(s, r);
  if (quietestFirst) ranked.reverse();
  const tie = ranked.slice(0, n + 1).some((x, i, all) => i > 0 && x.share === all[i - 1]?.share);
  return tie ? [] : ranked.slice(0, n);
};
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

/**
 * What buyers ask the product for, by the words of their asks (Postgres regexes), and how an answer
 * names each. A complaint that names a feature ("I cannot get managers to use the dashboards") is
 * no ask, so the reporting family reads the asking lines only.
 */
const FAMILIES = {
  salesforce: { re: 'salesforce', forms: ['Salesforce'] },
  hubspot: { re: 'hubspot', forms: ['HubSpot'] },
  slack: { re: 'slack', forms: ['Slack'] },
  teams: { re: 'microsoft teams', forms: ['Microsoft Teams', 'Teams integration'] },
  warehouse: {
    re: 'snowflake|bigquery|redshift|incremental export|nightly export|csv dump',
    forms: ['Snowflake', 'warehouse', 'BigQuery', 'Redshift'],
  },
  reports: {
    re: 'dashboard they can use|custom reports|dashboards need to filter|pipeline report|schedule reports|can a report',
    forms: ['dashboard', 'custom report', 'reporting'],
  },
  api: { re: '\\mAPI\\M|webhook', forms: ['API', 'webhook'] },
  sso: { re: '\\mSSO\\M|SAML|SCIM|single sign-on', forms: ['SSO', 'SAML', 'SCIM', 'single sign'] },
  residency: { re: 'data residency|stay in the EU|EU region', forms: ['residency', 'in the EU', 'EU region'] },
  migration: {
    re: 'historical calls|historical import|call history|be migrated|import that format|migrated calls|move the recordings over',
    forms: ['migrat', 'historical', 'call history', 'import'],
  },
  permissions: {
    re: 'role-based access|calls as private|only see calls|see their region|who opened which recording',
    forms: ['permission', 'role-based', 'access control', 'private'],
  },
  vocabulary: { re: 'own vocabulary|product codes', forms: ['vocabulary', 'jargon'] },
} as const;
type Family = keyof typeof FAMILIES;
const INTEGRATIONS: Family[] = ['salesforce', 'hubspot', 'slack', 'teams', 'warehouse'];

/** Accounts whose buyers asked for the family on a call, a meeting or an inbound email, in the period. */
const askers = (s: Sql, family: Family, r: Range = EVER, where = 'true') =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${where} and ${SAID_BY_BUYER}
     order by 1`,
    [FAMILIES[family].re],
  );
/** The forms of the `n` families most accounts asked for, most first, refused (empty) on a tie at or just past the cut. */
const topFamilies = async (s: Sql, n: number, r: Range = EVER, where = 'true', among: Family[] = []) => {
  const families = among.length > 0 ? among : (Object.keys(FAMILIES) as Family[]);
  const ranked = await Promise.all(
    families.map(async (family) => ({ family, n: (await askers(s, family, r, where)).length })),
  );
  ranked.sort((x, y) => y.n - x.n);
  const tie = ranked.slice(0, n + 1).some((x, i, all) => i > 0 && x.n === all[i - 1]?.n);
  return tie ? [] : ranked.slice(0, n).map((x) => [...FAMILIES[x.family].forms]);
};

/** The forms of the family most accounts asked for, refused (empty) unless it leads the next by three accounts or more. */
const topFamily = async (s: Sql, r: Range, where = 'true') => {
  const ranked = await Promise.all(
    (Object.keys(FAMILIES) as Family[]).map(async (family) => ({
      family,
      n: (await askers(s, family, r, where)).length,
    })),
  );
  ranked.sort((x, y) => y.n - x.n);
  const [first, second] = ranked;
  return first && first.n - (second?.n ?? 0) >= 3 ? [...FAMILIES[first.family].forms] : [];
};
const PROSPECT = `coalesce(a.type, '') <> 'customer'`;

// ---- renewals and champions ----------------------------------------------------------------------

const OPEN_RENEWAL = `not d.is_closed and d.name ilike '%renewal%'`;
const CHAMPION_GONE = `exists (select 1 from contacts c where c.account_id = d.account_id and c.is_champion and c.left_at is not null)`;
/** The latest assessment of the criterion (any, when null) of deal `d` is at risk. */
const LATEST_AT_RISK = (criterion: string | null) =>
  `exists (select 1 from (select distinct on (q.criterion) q.criterion, q.status from deal_qualification q where q.deal_id = d.id
                          order by q.criterion, q.occurred_at desc, q.id) latest
           where latest.status = 'at_risk' and ${criterion ? `latest.criterion = '${criterion}'` : 'true'})`;
const RISKY = `${OPEN_RENEWAL} and (${CHAMPION_GONE} or ${LATEST_AT_RISK(null)})`;
const SAFE = `${OPEN_RENEWAL} and not (${CHAMPION_GONE} or ${LATEST_AT_RISK(null)})`;
/** What buyers say when a renewal is on the table. */
const RENEWAL_WORDS = /renew|contract|seat|cancel|price|budget|value|usage|adoption|cut|logging in/i;
/** Champions who left, in the period, earliest first, filtered over `a` (their account). */
const departed = (s: Sql, r: Range = EVER, where = 'true') =>
  s<{ person: string; account: string; left: string }>(
    `select c.name as person, a.name as account, c.left_at::date::text as left from contacts c join accounts a on a.id = c.account_id
     where c.workspace_id = $1 and c.is_champion and ${within('c.left_at', r)} and ${where} order by c.left_at`,
  );
/** Deals closed after their account's champion had left, won or lost. */
const closedAfterDeparture = (s: Sql, won: boolean, where = 'true') =>
  column(
    s,
    `select distinct d.name as v from deals d join contacts c on c.account_id = d.account_id and c.is_champion and c.left_at is not null
     where d.workspace_id = $1 and d.is_closed and d.is_won = $2 and d.close_date > c.left_at::date and ${where} order by 1`,
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
/** The account's CRM contacts who took part in its calls, meetings or emails. */
const contactsWhoJoined = (s: Sql, account: string) =>
  column(
    s,
    `select distinct c.name as v from participants p join contacts c on c.id = p.contact_id
     join interactions i on i.id = p.interaction_id and ${KEPT} join accounts a on a.id = i.account_id
     where p.workspace_id = $1 and a.name = $2 and p.side = 'external' order by 1`,
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
     where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${where} and ${NAMES_IT}
     order by 1`,
    [competitor],
  );
/** The `n` competitors named in the most interactions of the period, most first (refused on a tie). */
const competitorRanking = async (s: Sql, r: Range, n: number) => {
  const counted = await Promise.all(COMPETITORS.map(async (c) => ({ c, n: await mentionsOf(s, c, r) })));
  counted.sort((x, y) => y.n - x.n);
  const tie = counted.slice(0, n + 1).some((x, i, all) => i > 0 && x.n === all[i - 1]?.n);
  return tie ? [] : counted.slice(0, n).map((x) => [x.c]);
};
/** Deals linked to an interaction naming the competitor, filtered over `d`. */
const dealsAgainst = (s: Sql, competitor: string, where: string) =>
  column(
    s,
    `select distinct d.name as v from deals d join interactions i on i.deal_id = d.id and ${KEPT}
     where d.workspace_id = $1 and ${where} and ${NAMES_IT} order by 1`,
    [competitor],
  );
/** The competitor named on the most lost deals closed in the period (refused, empty, on a tie). */
const mostLostTo = async (s: Sql, r: Range) => {
  const counted = await Promise.all(
    COMPETITORS.map(async (c) => ({
      c,
      n: (await dealsAgainst(s, c, `d.is_closed and not d.is_won and ${within('d.close_date', r)}`)).length,
    })),
  );
  counted.sort((x, y) => y.n - x.n);
  return counted[0] && counted[0].n !== counted[1]?.n ? [counted[0].c] : [];
};

// ---- quiet ---------------------------------------------------------------------------------------

/** Open deals with nothing linked to them since the cutoff. */
const QUIET_SINCE = (cutoff: string) =>
  `not d.is_closed and coalesce((select max(i.occurred_at) from interactions i where i.deal_id = d.id and ${KEPT}), '1900-01-01') < '${cutoff}'::date`;
const NEVER_TOUCHED = `not d.is_closed and not exists (select 1 from interactions i where i.deal_id = d.id and ${KEPT})`;
/** Buyer accounts of `a` whose latest interaction is before the cutoff (quiet) or since it (active). */
const accountsLastTouched = (s: Sql, where: string, quiet: boolean, cutoff: string) =>
  column(
    s,
    `select a.name as v from accounts a join interactions i on i.account_id = a.id and ${KEPT}
     where a.workspace_id = $1 and ${BUYER} and ${where}
     group by a.name having max(i.occurred_at) ${quiet ? '<' : '>='} $2::date order by 1`,
    [cutoff],
  );
const DAYS_AGO = (n: number) =>
  new Date(Date.parse('2026-11-20T00:00:00Z') - n * 86_400_000).toISOString().slice(0, 10);

// ---- lost reasons --------------------------------------------------------------------------------

/** Reason families of the at-risk notes on lost deals (a note counts in each it names), with how an answer names each. */
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
const lostOver = (s: Sql, reason: string, r: Range) =>
  reasonCounts(s, r).then((all) => all.find((x) => x.label === reason)?.n ?? 0);

// ---- other needs ---------------------------------------------------------------------------------

/** Buyer accounts with an inbound email in the period that no outbound email of its thread follows. */
const unansweredFrom = (s: Sql, r: Range) =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${BUYER} and i.kind = 'email' and i.direction = 'inbound'
       and ${within('i.occurred_at', r)}
       and not exists (select 1 from interactions o where o.workspace_id = $1 and o.thread_id = i.thread_id
                      and o.direction = 'outbound' and o.occurred_at > i.occurred_at)
     order by 1`,
  );
/** Accounts whose buyers raised the regex on a call, a meeting or an inbound email in the period. */
const accountsRaising = (s: Sql, re: string, r: Range) =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${SAID_BY_BUYER}
     order by 1`,
    [re],
  );
const SECURITY_REVIEW = 'SOC 2|security questionnaire|pen test|encrypt';
/** The AE (role `ae` on calls) in the most calls and meetings of the period, refused (empty) on a tie. */
const busiestAe = async (s: Sql, r: Range) => {
  const rows = await s<{ email: string; n: number }>(
    `select p.email, count(distinct i.id)::int as n from participants p
     join interactions i on i.id = p.interaction_id and ${KEPT} and i.kind in ('call', 'meeting') and ${within('i.occurred_at', r)}
     where p.workspace_id = $1 and p.side = 'internal' and p.role = 'ae' group by 1 order by 2 desc limit 2`,
  );
  return rows.length === 2 && rows[0]?.n !== rows[1]?.n ? [repName(rows[0]?.email ?? '')] : [];
};
const PRICE_TALK = /pric|discount|per-seat|per seat|expensive|cost|budget|numbers work/i;

/**
 * Subjects the corpus does not hold, each ask with the words (a regex) an answer names it by; the
 * test checks no interaction, turn or account of the corpus says any of them.
 */
export const ABSENT_SUBJECTS_5: Record<string, string> = {
  'what was our NPS last quarter?': 'NPS|net promoter',
  'how many ppl registered for the october webinar': 'webinar',
  'open + click rates on the last nurture campaign email?': 'open rate|click rate|nurture|campaign',
  'how many leads did we scan at the trade show booth this fall': 'trade show|booth',
  'whats our star rating on G2 at the moment': 'G2',
};

/** Every question of the fifth fresh set as written; none has been seen by the developer yet. */
export const WRITTEN_FRESH_5: Question[] = [
  // ---- talk ratio ----------------------------------------------------------------------------------
  {
    shape: 'talk_ratio',
    ask: 'which of our reps does the least talking on their calls, and whats their share',
    expect: {
      mentionsEach: async (s) => {
        const [quietest] = await talkRanking(s, 1, EVER, true);
        return quietest ? [[quietest.rep], pct(quietest.share)] : [];
      },
    },
  },
  {
    shape: 'talk_ratio',
    ask: 'zoes talk to listen ratio?',
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Zoe'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'does mateo talk more than oscar on calls or is it the other way round',
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Mateo')), pct(await shareOf(s, 'Oscar'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'this quarter which 3 reps hog the airtime on their calls the most, in order',
    expect: { ordered: async (s) => (await talkRanking(s, 3, Q4)).map((x) => [x.rep]) },
  },
  {
    shape: 'talk_ratio',
    ask: "Ben Dimitrov's talk share for last quarter pls",
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Ben', Q3))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'overall, how much of the talking on our calls and meetings is us vs the customer?',
    expect: {
      mentionsSome: async (s) => {
        const ours = await internalShare(s);
        return [...pct(ours), ...pct(100 - ours)];
      },
    },
  },
  {
    shape: 'talk_ratio',
    ask: 'our SEs (Leon, Tara Edwards), how much do they actually talk on the calls they join?',
    expect: {
      mentionsEach: async (s) => [
        pctExact(await shareOf(s, 'Leon', EVER, 'engineers')),
        pctExact(await shareOf(s, 'Tara', EVER, 'engineers')),
      ],
    },
  },

  // ---- feature requests ----------------------------------------------------------------------------
  {
    shape: 'feature_requests',
    ask: "what's the #1 thing buyers have been asking us to build this year",
    expect: { mentionsSome: (s) => topFamily(s, THIS_YEAR) },
  },
  {
    shape: 'feature_requests',
    ask: 'anyone asked for SSO or SAML this quarter? which accounts',
    expect: {
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /\bSSO\b|SAML|SCIM|single sign|okta|azure ad/i,
      mentions: (s) => askers(s, 'sso', Q4),
      absent: async (s) => minus(await askers(s, 'sso', Q3), await askers(s, 'sso', Q4)),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'which existing customers have been asking for slack integration stuff this qtr',
    expect: {
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /slack/i,
      mentions: (s) => askers(s, 'slack', Q4, `a.type = 'customer'`),
      absent: async (s) =>
        minus(await askers(s, 'slack', Q3, `a.type = 'customer'`), await askers(s, 'slack', Q4, `a.type = 'customer'`)),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'how many different accounts have brought up a hubspot integration',
    expect: { topic: /hubspot/i, numbers: async (s) => [(await askers(s, 'hubspot')).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'EU data residency: which EMEA accounts asked for it this year?',
    expect: {
      period: { from: THIS_YEAR[0], to: THIS_YEAR[1], field: 'occurred_at' },
      topic: /residency|\bEU\b|works council|Germany/i,
      mentions: (s) => askers(s, 'residency', THIS_YEAR, `a.region = 'EMEA'`),
      absent: (s) => askers(s, 'residency', THIS_YEAR, `a.region <> 'EMEA'`),
    },
  },
  {
    shape: 'feature_requests',
    ask: 'putting together the roadmap deck... which integrations do our paying customers want the most? top two',
    expect: { ordered: (s) => topFamilies(s, 2, EVER, `a.type = 'customer'`, INTEGRATIONS) },
  },
  {
    shape: 'feature_requests',
    ask: 'prospects only (not customers): whats their biggest ask of the product this year?',
    expect: { mentionsSome: (s) => topFamily(s, THIS_YEAR, PROSPECT) },
  },
  {
    shape: 'feature_requests',
    ask: 'are prospects asking us to migrate their old call recordings over? this quarter only',
    expect: {
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /migrat|historical|history|recordings over|import/i,
      mentions: (s) => askers(s, 'migration', Q4, PROSPECT),
      absent: async (s) =>
        minus(await askers(s, 'migration', Q3, PROSPECT), await askers(s, 'migration', Q4, PROSPECT)),
    },
  },

  // ---- renewal risk --------------------------------------------------------------------------------
  {
    shape: 'renewal_risk',
    ask: 'which renewels look shaky rn?',
    expect: { mentions: (s) => dealNames(s, RISKY), absent: (s) => dealNames(s, SAFE) },
  },
  {
    shape: 'renewal_risk',
    ask: 'is the acme logistics renewal in trouble? whats the holdup',
    expect: {
      quoteAccounts: async () => ['Acme Logistics'],
      // Each reason its latest assessments give (a note names its families), and the champion who left.
      mentionsEach: async (s) => {
        const notes = await column(
          s,
          `select latest.notes as v from deals d join accounts a on a.id = d.account_id
           join lateral (select distinct on (q.criterion) q.status, q.notes from deal_qualification q where q.deal_id = d.id
                         order by q.criterion, q.occurred_at desc, q.id) latest on latest.status = 'at_risk'
           where d.workspace_id = $1 and ${OPEN_RENEWAL} and a.name = 'Acme Logistics'`,
        );
        const gone = (await departed(s, EVER, `a.name = 'Acme Logistics'`)).map((x) => x.person);
        return [
          ...notes.map((note) => REASONS.filter((x) => x.re.test(note)).flatMap((x) => x.forms)),
          ...(gone.length > 0 ? [[...gone, 'champion']] : []),
        ];
      },
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'how much north america renewal revenue is at risk',
    expect: { numbers: async (s) => [await total(s, `${RISKY} and a.region = 'North America'`)] },
  },
  {
    shape: 'renewal_risk',
    ask: 'any renewal where the economic buyer is flagged as a risk',
    expect: {
      mentions: (s) => dealNames(s, `${OPEN_RENEWAL} and ${LATEST_AT_RISK('economic_buyer')}`),
      absent: (s) => dealNames(s, `${OPEN_RENEWAL} and not ${LATEST_AT_RISK('economic_buyer')}`),
    },
  },
  {
    shape: 'renewal_risk',
    ask: "what's Acme Logistics been saying about the renewal? give me their actual words",
    expect: {
      quotes: 'required',
      topic: RENEWAL_WORDS,
      quoteAccounts: async () => ['Acme Logistics'],
      distinctQuotes: true,
    },
  },
  {
    shape: 'renewal_risk',
    ask: "I'm covering Zoe's book next week, are any of her renewals at risk?",
    expect: {
      mentions: (s) => dealNames(s, `${RISKY} and d.owner_email like 'zoe.%'`),
      absent: (s) => dealNames(s, `${SAFE} and d.owner_email like 'zoe.%'`),
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'did we lose any renewals this year, and what were they worth',
    expect: {
      mentions: (s) =>
        dealNames(s, `d.name ilike '%renewal%' and d.stage = 'closed_lost' and ${within('d.close_date', THIS_YEAR)}`),
      numbers: async (s) => [
        await total(s, `d.name ilike '%renewal%' and d.stage = 'closed_lost' and ${within('d.close_date', THIS_YEAR)}`),
      ],
      absent: (s) =>
        dealNames(s, `d.name ilike '%renewal%' and d.stage = 'closed_lost' and ${within('d.close_date', LAST_YEAR)}`),
    },
  },

  // ---- champion changes ----------------------------------------------------------------------------
  {
    shape: 'champion_change',
    ask: 'did any of our champions leave between april and june',
    expect: {
      mentions: async (s) => (await departed(s, Q2)).map((x) => x.person),
      absent: async (s) =>
        minus(
          (await departed(s)).map((x) => x.person),
          (await departed(s, Q2)).map((x) => x.person),
        ),
    },
  },
  {
    shape: 'champion_change',
    ask: 'which customers lost their champion this year',
    expect: {
      mentions: async (s) => [...new Set((await departed(s, THIS_YEAR)).map((x) => x.account))],
      absent: async (s) =>
        minus(
          (await departed(s, LAST_YEAR)).map((x) => x.account),
          (await departed(s, THIS_YEAR)).map((x) => x.account),
        ),
    },
  },
  {
    shape: 'champion_change',
    ask: 'has our main contact at alder logistics moved on? when?',
    expect: {
      quoteAccounts: async () => ['Alder Logistics'],
      mentionsEach: async (s) => {
        const [gone] = await departed(s, EVER, `a.name = 'Alder Logistics'`);
        return gone ? [[gone.person], dateForms(gone.left)] : [];
      },
    },
  },
  {
    shape: 'champion_change',
    ask: "champion changes on Zoe Kim's accounts?",
    expect: {
      mentions: async (s) => (await departed(s, EVER, `a.owner_email like 'zoe.%'`)).map((x) => x.person),
      absent: async (s) => (await departed(s, EVER, `a.owner_email not like 'zoe.%'`)).map((x) => x.person),
    },
  },
  {
    shape: 'champion_change',
    ask: 'renewals we still won even after the champion had walked out the door',
    expect: {
      mentions: (s) => closedAfterDeparture(s, true, `d.name ilike '%renewal%'`),
      absent: (s) => closedAfterDeparture(s, false, `d.name ilike '%renewal%'`),
    },
  },
  {
    shape: 'champion_change',
    ask: 'who was the most recent champion to leave one of our accounts',
    expect: {
      mentionsEach: async (s) => (await departed(s)).slice(-1).flatMap((x) => [[x.person], [x.account]]),
    },
  },
  {
    shape: 'champion_change',
    ask: 'how many champions have we lost in total, all time',
    expect: { numbers: async (s) => [(await departed(s)).length] },
  },

  // ---- account history and prep --------------------------------------------------------------------
  {
    shape: 'account_history',
    ask: "got a renewal call with Keystone Health tomorrow morning and I've never spoken to them before, can you give me the history so I don't walk in cold",
    expect: {
      quoteAccounts: async () => ['Keystone Health'],
      mentions: (s) => dealNames(s, `a.name = 'Keystone Health'`),
    },
  },
  {
    shape: 'account_history',
    ask: 'when did we first speak with redwood logistics',
    expect: {
      quoteAccounts: async () => ['Redwood Logistics'],
      mentionsSome: (s) => touchOf(s, 'Redwood Logistics', 'min'),
    },
  },
  {
    shape: 'account_history',
    ask: 'how many calls and meetings have we had with glacier logistics all told',
    expect: {
      quoteAccounts: async () => ['Glacier Logistics'],
      numbers: async (s) => [await interactionCount(s, 'Glacier Logistics', `i.kind in ('call', 'meeting')`)],
    },
  },
  {
    shape: 'account_history',
    ask: "catch me up on acme logistics, what's happened there this year",
    expect: {
      quoteAccounts: async () => ['Acme Logistics'],
      period: { from: THIS_YEAR[0], to: THIS_YEAR[1], field: 'occurred_at' },
      // The champion left in April; the 2026 renewal is in negotiation, its paper process at risk.
      mentionsEach: async (s) => [
        (await departed(s, THIS_YEAR, `a.name = 'Acme Logistics'`)).map((x) => x.person),
        ['Renewal 2026', '2026 renewal'],
      ],
    },
  },
  {
    shape: 'account_history',
    ask: "sable logistics - rundown of every deal we've had with them",
    expect: {
      quoteAccounts: async () => ['Sable Logistics'],
      mentions: (s) => dealNames(s, `a.name = 'Sable Logistics'`),
    },
  },
  {
    shape: 'account_history',
    ask: 'last time we were in touch with Ironwood Health, any channel?',
    expect: {
      quoteAccounts: async () => ['Ironwood Health'],
      mentionsSome: (s) => touchOf(s, 'Ironwood Health', 'max'),
    },
  },
  {
    shape: 'account_history',
    ask: 'who are the people we actually deal with over at tidewater',
    expect: {
      quoteAccounts: async () => ['Tidewater Logistics'],
      mentions: (s) => contactsWhoJoined(s, 'Tidewater Logistics'),
    },
  },

  // ---- competitors ---------------------------------------------------------------------------------
  {
    shape: 'competitors',
    ask: "which competiter gets mentioned the most this year, and who's second",
    expect: { ordered: (s) => competitorRanking(s, THIS_YEAR, 2) },
  },
  {
    shape: 'competitors',
    ask: "who's been bringing up tallyhawk this quarter",
    expect: {
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /tallyhawk/i,
      mentions: (s) => accountsNaming(s, 'Tallyhawk', Q4),
      absent: async (s) => minus(await accountsNaming(s, 'Tallyhawk'), await accountsNaming(s, 'Tallyhawk', Q4)),
    },
  },
  {
    shape: 'competitors',
    ask: "what's our record vs Stackwise, wins and losses",
    expect: {
      numbers: async (s) => [
        (await dealsAgainst(s, 'Stackwise', 'd.is_closed and d.is_won')).length,
        (await dealsAgainst(s, 'Stackwise', 'd.is_closed and not d.is_won')).length,
      ],
    },
  },
  {
    shape: 'competitors',
    ask: 'list the deals we lost where quotient labs was in the picture',
    expect: {
      topic: /quotient/i,
      mentions: (s) => dealsAgainst(s, 'Quotient Labs', 'd.is_closed and not d.is_won'),
      absent: (s) => dealsAgainst(s, 'Quotient Labs', 'd.is_closed and d.is_won'),
    },
  },
  {
    shape: 'competitors',
    ask: 'is pipewell sniffing around any of our open deals',
    expect: { mentions: (s) => dealsAgainst(s, 'Pipewell', OPEN) },
  },
  {
    shape: 'competitors',
    ask: 'clarion ai mentions last year vs this year?',
    expect: {
      topic: /clarion/i,
      numbers: async (s) => [
        await mentionsOf(s, 'Clarion AI', LAST_YEAR),
        await mentionsOf(s, 'Clarion AI', THIS_YEAR),
      ],
    },
  },
  {
    shape: 'competitors',
    ask: 'which competitor are we up against at sable logistics',
    expect: {
      quoteAccounts: async () => ['Sable Logistics'],
      mentions: async (s) => {
        const named = await Promise.all(
          COMPETITORS.map(async (c) =>
            (await accountsNaming(s, c, EVER, `a.name = 'Sable Logistics'`)).length > 0 ? [c] : [],
          ),
        );
        return named.flat();
      },
      absent: async (s) => {
        const unnamed = await Promise.all(
          COMPETITORS.map(async (c) =>
            (await accountsNaming(s, c, EVER, `a.name = 'Sable Logistics'`)).length > 0 ? [] : [c],
          ),
        );
        return unnamed.flat();
      },
    },
  },

  // ---- quiet deals and accounts --------------------------------------------------------------------
  {
    shape: 'quiet',
    ask: 'open deals that have gone dark for 2+ months',
    expect: {
      mentions: (s) => dealNames(s, QUIET_SINCE(DAYS_AGO(60))),
      absent: (s) =>
        onlyNames(s, `${OPEN} and not (${QUIET_SINCE(DAYS_AGO(50))})`, QUIET_SINCE(DAYS_AGO(60))).then((n) =>
          n.slice(0, 8),
        ),
    },
  },
  {
    shape: 'quiet',
    ask: 'any proposal or negotiation stage deals nobody has touched in three weeks?',
    expect: {
      mentions: (s) => dealNames(s, `d.stage in ('proposal', 'negotiation') and ${QUIET_SINCE(DAYS_AGO(21))}`),
      absent: (s) =>
        onlyNames(
          s,
          `d.stage in ('proposal', 'negotiation') and ${OPEN} and not (${QUIET_SINCE(DAYS_AGO(21))})`,
          QUIET_SINCE(DAYS_AGO(21)),
        ),
    },
  },
  {
    shape: 'quiet',
    ask: 'which customers have we not heard a peep from in over 60 days',
    expect: {
      mentions: (s) => accountsLastTouched(s, `a.type = 'customer'`, true, DAYS_AGO(60)),
      absent: (s) => accountsLastTouched(s, `a.type = 'customer'`, false, DAYS_AGO(60)),
    },
  },
  {
    shape: 'quiet',
    ask: "which of mateo's accounts have gone silent for a month or more",
    expect: {
      mentions: (s) => accountsLastTouched(s, `a.owner_email like 'mateo.%'`, true, DAYS_AGO(30)),
      absent: (s) => accountsLastTouched(s, `a.owner_email like 'mateo.%'`, false, DAYS_AGO(30)),
    },
  },
  {
    shape: 'quiet',
    ask: "is anything in Rhea's pipeline going stale (no activity in 30 days)",
    expect: {
      mentions: (s) => dealNames(s, `d.owner_email like 'rhea.%' and ${QUIET_SINCE(DAYS_AGO(30))}`),
      absent: (s) =>
        onlyNames(
          s,
          `d.owner_email like 'rhea.%' and ${OPEN} and not (${QUIET_SINCE(DAYS_AGO(30))})`,
          QUIET_SINCE(DAYS_AGO(30)),
        ),
    },
  },
  {
    shape: 'quiet',
    ask: 'open opps with literally zero activity logged against them',
    expect: {
      mentions: (s) => dealNames(s, NEVER_TOUCHED),
      absent: (s) =>
        onlyNames(s, `${OPEN} and not (${QUIET_SINCE(DAYS_AGO(30))})`, NEVER_TOUCHED).then((n) => n.slice(0, 8)),
    },
  },
  {
    shape: 'quiet',
    ask: "whats the biggest deal that's gone quiet for over a month",
    expect: {
      mentions: async (s) => {
        // The biggest of each currency; the answer is the bigger one when it leads by more than any exchange rate.
        const rows = await s<{ name: string; currency: string; amount: string }>(
          `select distinct on (d.currency) d.name, d.currency, d.amount::text as amount
           ${FROM_DEALS} and ${QUIET_SINCE(DAYS_AGO(30))} and d.amount is not null order by d.currency, d.amount desc`,
        );
        const [first, second] = rows.sort((x, y) => Number(y.amount) - Number(x.amount));
        return first && Number(first.amount) > 1.4 * Number(second?.amount ?? 0) ? [first.name] : [];
      },
    },
  },

  // ---- lost reasons --------------------------------------------------------------------------------
  {
    shape: 'lost_reasons',
    ask: 'why do we lose deals? whats the #1 reason',
    expect: { mentionsSome: (s) => topReason(s, EVER) },
  },
  {
    shape: 'lost_reasons',
    ask: 'main reason deals died last quarter',
    expect: { mentionsSome: (s) => topReason(s, Q3) },
  },
  {
    shape: 'lost_reasons',
    ask: "what's killing mateo's deals",
    expect: { mentionsSome: (s) => topReason(s, EVER, `d.owner_email like 'mateo.%'`) },
  },
  {
    shape: 'lost_reasons',
    ask: 'ben keeps losing deals. why??',
    expect: { mentionsSome: (s) => topReason(s, EVER, `d.owner_email like 'ben.%'`) },
  },
  {
    shape: 'lost_reasons',
    ask: 'how many deals did we lose on price this year',
    expect: { numbers: async (s) => [await lostOver(s, 'price', THIS_YEAR)] },
  },
  {
    shape: 'lost_reasons',
    ask: 'list the deals we lost in Q3 and why',
    expect: {
      mentions: (s) => dealNames(s, `d.stage = 'closed_lost' and ${within('d.close_date', Q3)}`),
      mentionsSome: (s) => topReason(s, Q3),
      absent: (s) =>
        onlyNames(
          s,
          `d.stage = 'closed_lost' and ${within('d.close_date', Q4)}`,
          `d.stage = 'closed_lost' and ${within('d.close_date', Q3)}`,
        ),
      period: { from: Q3[0], to: Q3[1], field: 'close_date' },
    },
  },
  {
    shape: 'lost_reasons',
    ask: "looking back at last year's losses, what was the biggest reason we lost?",
    expect: { mentionsSome: (s) => topReason(s, LAST_YEAR) },
  },

  // ---- pipeline lists and totals -------------------------------------------------------------------
  {
    shape: 'pipeline',
    ask: 'how much EUR pipeline do we have open',
    expect: { mentionsSome: async (s) => moneyForms(await total(s, `${OPEN} and d.currency = 'EUR'`)) },
  },
  {
    shape: 'pipeline',
    ask: 'whats sitting in negotation right now',
    expect: {
      mentions: (s) => dealNames(s, `${OPEN} and d.stage = 'negotiation'`),
      absent: (s) => onlyNames(s, `${OPEN} and d.stage = 'proposal'`, `d.stage = 'negotiation'`),
    },
  },
  {
    shape: 'pipeline',
    ask: 'oscars open opps and what theyre worth',
    expect: {
      mentions: (s) => dealNames(s, `${OPEN} and d.owner_email like 'oscar.%'`),
      numbers: async (s) => [
        await total(s, `${OPEN} and d.owner_email like 'oscar.%' and d.currency = 'USD'`),
        await total(s, `${OPEN} and d.owner_email like 'oscar.%' and d.currency = 'EUR'`),
      ],
    },
  },
  {
    shape: 'pipeline',
    ask: 'top 3 biggest open deals in north america',
    expect: { ordered: (s) => topDeals(s, `${OPEN} and a.region = 'North America'`, 3) },
  },
  {
    shape: 'pipeline',
    ask: "how many deals does mateo have open and what's it all worth",
    expect: {
      numbers: async (s) => [await count(s, `${OPEN} and d.owner_email like 'mateo.%'`)],
      mentionsEach: async (s) => [
        moneyForms(await total(s, `${OPEN} and d.owner_email like 'mateo.%' and d.currency = 'USD'`)),
        moneyForms(await total(s, `${OPEN} and d.owner_email like 'mateo.%' and d.currency = 'EUR'`)),
      ],
    },
  },
  {
    shape: 'pipeline',
    ask: 'what new pipeline did we create this quarter',
    expect: { mentions: (s) => dealNames(s, `${within('d.occurred_at', Q4)}`) },
  },
  {
    shape: 'pipeline',
    ask: 'break down our open pipeline by region for me',
    expect: {
      mentionsEach: async (s) =>
        Promise.all(
          ['North America', 'EMEA', 'APAC'].map(async (region) =>
            moneyForms(await total(s, `${OPEN} and a.region = '${region}'`)),
          ),
        ),
    },
  },

  // ---- win rates -----------------------------------------------------------------------------------
  {
    shape: 'win_rate',
    ask: 'whats our close rate this year',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, within('d.close_date', THIS_YEAR)))] },
  },
  {
    shape: 'win_rate',
    ask: 'win rate last year vs this year',
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, within('d.close_date', LAST_YEAR))),
        pct(await winRate(s, within('d.close_date', THIS_YEAR))),
      ],
    },
  },
  {
    shape: 'win_rate',
    ask: "rheas win rate? and while you're at it how much does she talk on her calls",
    expect: {
      mentionsEach: async (s) => [pct(await winRate(s, `d.owner_email like 'rhea.%'`)), pct(await shareOf(s, 'Rhea'))],
    },
  },
  {
    shape: 'win_rate',
    ask: 'who has the best win rate on the team',
    expect: { mentions: (s) => bestWinRate(s) },
  },
  {
    shape: 'win_rate',
    ask: 'how do we convert in EMEA compared to north america',
    expect: {
      mentionsEach: async (s) => [
        pct(await winRate(s, `a.region = 'EMEA'`)),
        pct(await winRate(s, `a.region = 'North America'`)),
      ],
    },
  },
  {
    shape: 'win_rate',
    ask: 'what % of renewals do we actually win',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, `d.name ilike '%renewal%'`))] },
  },
  {
    shape: 'win_rate',
    ask: 'win rate on brand new logos (new business deals only)',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, `d.name ilike '%new business%'`))] },
  },
  {
    shape: 'win_rate',
    ask: 'was Q3 a good quarter win-rate wise?',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, within('d.close_date', Q3)))] },
  },

  // ---- follow-ups ----------------------------------------------------------------------------------
  {
    shape: 'follow_up',
    thread: ["what's rhea got in her open pipeline"],
    ask: 'just the EUR ones',
    expect: {
      mentions: (s) => dealNames(s, `${OPEN} and d.owner_email like 'rhea.%' and d.currency = 'EUR'`),
      absent: (s) =>
        onlyNames(s, `${OPEN} and d.owner_email like 'rhea.%' and d.currency = 'USD'`, `d.currency = 'EUR'`),
    },
  },
  {
    shape: 'follow_up',
    thread: ["what's our win rate this year?"],
    ask: 'and for last year?',
    expect: { mentionsEach: async (s) => [pct(await winRate(s, within('d.close_date', LAST_YEAR)))] },
  },
  {
    shape: 'follow_up',
    thread: ["which deals haven't had any activity in the last month"],
    ask: 'who owns those',
    expect: {
      mentions: async (s) =>
        (
          await column(
            s,
            `select distinct d.owner_email as v ${FROM_DEALS} and ${QUIET_SINCE(DAYS_AGO(30))} order by 1`,
          )
        ).map(repName),
      absent: async (s) =>
        (
          await column(
            s,
            `select distinct d.owner_email as v ${FROM_DEALS} and ${OPEN} except
             select distinct d.owner_email as v ${FROM_DEALS} and ${QUIET_SINCE(DAYS_AGO(30))}`,
          )
        ).map(repName),
    },
  },
  {
    shape: 'follow_up',
    thread: ['who are our top competitors this year'],
    ask: 'which one are we losing to the most?',
    expect: { mentions: (s) => mostLostTo(s, THIS_YEAR) },
  },
  {
    shape: 'follow_up',
    thread: ['show me the renewals coming up'],
    ask: 'ok which of those are looking risky',
    expect: { mentions: (s) => dealNames(s, RISKY), absent: (s) => dealNames(s, SAFE) },
  },
  {
    shape: 'follow_up',
    thread: ['which champions left this year?'],
    ask: 'do any of those accounts still have an open deal with us?',
    expect: {
      mentions: async (s) => {
        const accounts = [...new Set((await departed(s, THIS_YEAR)).map((x) => x.account))];
        return column(
          s,
          `select distinct a.name as v ${FROM_DEALS} and ${OPEN} and a.name = any($2::text[]) order by 1`,
          [accounts],
        );
      },
      absent: async (s) => {
        const accounts = [...new Set((await departed(s, THIS_YEAR)).map((x) => x.account))];
        const open = await column(s, `select distinct a.name as v ${FROM_DEALS} and ${OPEN}`);
        return accounts.filter((a) => !open.includes(a));
      },
    },
  },
  {
    shape: 'follow_up',
    thread: ['talk ratios per rep pls'],
    ask: 'same thing but only this quarter',
    expect: { ordered: async (s) => (await talkRanking(s, 3, Q4)).map((x) => [x.rep]) },
  },

  // ---- needs outside the list above, answerable from the corpus ------------------------------------
  {
    shape: 'activity_count',
    ask: 'how many calls + meetings did the team do in october',
    expect: {
      period: { from: OCTOBER[0], to: OCTOBER[1], field: 'occurred_at' },
      numbers: async (s) => [
        await scalar(
          s,
          `select count(*) as v from interactions i where i.workspace_id = $1 and ${KEPT}
           and i.kind in ('call', 'meeting') and ${within('i.occurred_at', OCTOBER)}`,
        ),
      ],
    },
  },
  {
    shape: 'closing_soon',
    ask: "what's scheduled to close before the end of the year",
    expect: {
      mentions: (s) => dealNames(s, `${OPEN} and d.close_date < '2027-01-01'`),
      absent: (s) =>
        onlyNames(
          s,
          `${OPEN} and d.close_date >= '2027-01-01' and d.close_date < '2027-02-01'`,
          `${OPEN} and d.close_date < '2027-01-01'`,
        ),
      period: { from: TODAY, to: '2027-01-01', field: 'close_date' },
    },
  },
  {
    shape: 'unanswered_email',
    ask: 'emails from customers or prospects in the last two weeks that nobody replied to',
    expect: {
      period: { from: LAST_TWO_WEEKS[0], to: LAST_TWO_WEEKS[1], field: 'occurred_at' },
      mentions: (s) => unansweredFrom(s, LAST_TWO_WEEKS),
      // Accounts whose unanswered mail is older than two weeks (and none of it newer).
      absent: async (s) =>
        minus(await unansweredFrom(s, [P.last30[0], LAST_TWO_WEEKS[0]]), await unansweredFrom(s, LAST_TWO_WEEKS)),
    },
  },
  {
    shape: 'objections',
    ask: 'what pricing pushback have we had from Jasper Logistics? exact quotes please',
    expect: {
      quotes: 'required',
      topic: PRICE_TALK,
      quoteAccounts: async () => ['Jasper Logistics'],
      distinctQuotes: true,
    },
  },
  {
    shape: 'topic_accounts',
    ask: 'which accounts brought up SOC 2 or security questionnaires this quarter',
    expect: {
      period: { from: Q4[0], to: Q4[1], field: 'occurred_at' },
      topic: /SOC 2|security|questionnaire|pen test|encrypt/i,
      mentions: (s) => accountsRaising(s, SECURITY_REVIEW, Q4),
      absent: async (s) =>
        minus(await accountsRaising(s, SECURITY_REVIEW, Q3), await accountsRaising(s, SECURITY_REVIEW, Q4)),
    },
  },
  {
    shape: 'top_contact',
    ask: 'who at sable logistics do we talk to the most',
    expect: { quoteAccounts: async () => ['Sable Logistics'], mentions: (s) => mostInTouch(s, 'Sable Logistics') },
  },
  {
    shape: 'largest_deal',
    ask: 'single biggest open deal in euros?',
    expect: { mentions: async (s) => (await topDeals(s, `${OPEN} and d.currency = 'EUR'`, 1)).flat() },
  },
  {
    shape: 'stage_breakdown',
    ask: 'how many open deals in discovery vs evaluation',
    expect: {
      numbers: async (s) => [
        await count(s, `${OPEN} and d.stage = 'discovery'`),
        await count(s, `${OPEN} and d.stage = 'evaluation'`),
      ],
    },
  },
  {
    shape: 'rep_activity',
    ask: 'which AE had the most calls and meetings this quarter',
    expect: { mentions: (s) => busiestAe(s, Q4) },
  },

  // ---- subjects the corpus does not hold -----------------------------------------------------------
  ...Object.entries(ABSENT_SUBJECTS_5).map(
    ([ask, subject]): Question => ({
      shape: 'absent_subject',
      ask,
      expect: { says: saysAbsent(subject), quotes: 'none' },
    }),
  ),
];

/** The fifth set's questions that are held out: all of them, until the developer has seen one. */
export const HELD_OUT_FRESH_5: Question[] = WRITTEN_FRESH_5;
