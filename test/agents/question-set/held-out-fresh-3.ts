import { KEPT, P } from './facts.js';
import { column, dateForms, pct, saysAbsent, scalar } from './held-out.js';
import type { Question, Sql } from './judge.js';

/**
 * A third fresh held-out set: written from the schema, the demo corpus (explored with SQL) and the
 * guides alone, by someone who has read neither the answering code, the dev set, nor the earlier
 * held-out questions beyond a few examples. It weights the analyses a sales team asks of its calls
 * and its CRM together (talk ratio, feature requests, renewal risk, champion changes, an account's
 * history, competitors, quiet deals and accounts, lost reasons), with follow-ups and subjects the
 * corpus does not hold, in wordings of its own. It measures (bench/answers.ts) and never gates.
 * Every truth is SQL written here over the corpus; today is facts.ts's TODAY, 2026-11-20.
 *
 * How the corpus reads, as these truths take it: a rep is a deal owner (the two sales engineers own
 * no deal and speak about 15% of their calls, so an ask for the least talkative rep leaves them
 * out in its words); a rep's talk ratio is their seconds over all seconds spoken in the calls and meetings
 * they spoke in; a feature request is a buyer's turn or inbound email asking the product for
 * something, grouped into families by the words buyers use, counted by distinct accounts; a
 * renewal is at risk when the latest assessment of one of its criteria is at risk or its account's
 * champion has left; a deal's lost reasons are the notes of its criteria assessed at risk; a quiet
 * deal has no interaction linked to it since the cutoff, a quiet account none at all; a competitor
 * comes up in an interaction that names it anywhere. Two reps are called Andre, so they are named
 * by their last names.
 */

type Range = readonly [string, string];
const EVER: Range = ['1900-01-01', '2999-01-01'];
const THIS_YEAR: Range = P.thisYear;
const Q3: Range = P.lastQuarter;
const Q4: Range = P.thisQuarter;

/** Account types whose people are not buyers of the product. */
const NOT_BUYERS = `('competitor', 'vendor', 'investor', 'partner', 'media', 'advisor')`;
const within = (field: string, r: Range) => `${field} >= '${r[0]}' and ${field} < '${r[1]}'`;

// ---- talk ratio ----------------------------------------------------------------------------------

/** How the reps are named in an answer: first name, last name for the two Andres. */
const repName = (email: string) => {
  const [first = '', last = ''] = (email.split('@')[0] ?? '').split('.');
  const word = first === 'andre' ? last : first;
  return word.charAt(0).toUpperCase() + word.slice(1);
};

/** Each rep's share of the seconds spoken in the calls and meetings they spoke in, most first. */
const talkShares = async (s: Sql) =>
  (
    await s<{ rep: string; share: string }>(
      `with reps as (select distinct owner_email as email from deals where workspace_id = $1 and owner_email is not null),
            spoken as (select distinct t.interaction_id, t.speaker_email as rep from transcript_turns t
                       join interactions i on i.id = t.interaction_id and i.kind in ('call', 'meeting') and ${KEPT}
                       where t.workspace_id = $1 and t.speaker_email in (select email from reps))
       select sp.rep,
              100.0 * sum(t.ended_at_seconds - t.started_at_seconds) filter (where t.speaker_email = sp.rep)
                / sum(t.ended_at_seconds - t.started_at_seconds) as share
       from spoken sp join transcript_turns t on t.interaction_id = sp.interaction_id
       group by sp.rep order by share desc`,
    )
  ).map((r) => ({ rep: repName(r.rep), share: Number(r.share) }));
const shareOf = async (s: Sql, rep: string) => (await talkShares(s)).find((r) => r.rep === rep)?.share ?? Number.NaN;
/** Our side's and the other side's share of all seconds spoken on calls and meetings. */
const sideShare = (s: Sql, side: 'internal' | 'external') =>
  scalar(
    s,
    `select 100.0 * sum(t.ended_at_seconds - t.started_at_seconds) filter (where t.side = $2)
            / sum(t.ended_at_seconds - t.started_at_seconds) as v
     from transcript_turns t join interactions i on i.id = t.interaction_id and i.kind in ('call', 'meeting') and ${KEPT}
     where t.workspace_id = $1`,
    [side],
  );

// ---- feature requests ----------------------------------------------------------------------------

/** What buyers ask the product to do: the words of each family (Postgres regex) and how an answer names it. */
const FAMILIES: Record<string, { re: string; forms: string[] }> = {
  reports: {
    re: 'custom reports|dashboard|schedule reports|pipeline report|can a report show',
    forms: ['dashboard', 'report'],
  },
  salesforce: { re: 'salesforce', forms: ['Salesforce'] },
  migration: {
    re: 'historical calls|move the recordings over|import that format|call history',
    forms: ['migrat', 'import', 'historical', 'call history', 'move the recordings'],
  },
  warehouse: {
    re: 'snowflake|redshift|bigquery|nightly export|incremental export|csv dump',
    forms: ['Snowflake', 'warehouse', 'export', 'Redshift'],
  },
  api: { re: 'webhook|\\mAPI\\M', forms: ['API', 'webhook'] },
  hubspot: { re: 'hubspot', forms: ['HubSpot'] },
  sso: { re: 'saml|scim|okta|single sign-on|\\mSSO\\M|azure ad', forms: ['SSO', 'SAML', 'single sign', 'SCIM'] },
  slack: { re: 'slack', forms: ['Slack'] },
  residency: {
    re: 'data residency|stay in the EU|EU region',
    forms: ['residency', 'EU data', 'EU region', 'in the EU'],
  },
  vocabulary: { re: 'own vocabulary|custom vocabulary', forms: ['vocabulary'] },
  privacy: { re: 'calls as private|role-based access', forms: ['private', 'role-based', 'permission'] },
};
type Family = keyof typeof FAMILIES;

/** Buyer accounts that asked for a family on a call, a meeting or an inbound email, in the period. */
const askingAccounts = (s: Sql, family: Family, r: Range = EVER, where = 'true') =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and coalesce(a.type, '') not in ${NOT_BUYERS}
       and ${within('i.occurred_at', r)} and ${where}
       and ((i.kind = 'email' and i.direction = 'inbound' and i.body ~* $2)
         or exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.side = 'external' and t.text ~* $2))`,
    [FAMILIES[family]?.re],
  );
/** The families ranked by how many accounts asked (ties broken by name, so a ranking asked stops before a tie). */
const featureRanking = async (s: Sql, r: Range = EVER, where = 'true') =>
  (
    await Promise.all(
      (Object.keys(FAMILIES) as Family[]).map(async (family) => ({
        family,
        accounts: (await askingAccounts(s, family, r, where)).length,
      })),
    )
  ).sort((x, y) => y.accounts - x.accounts || x.family.localeCompare(y.family));
const formsOf = (family: Family) => FAMILIES[family]?.forms ?? [];
/** The forms of the top `n` families, checked to be strictly ahead of the next one (no tie at the cut). */
const topFamilies = async (s: Sql, n: number, r: Range = EVER, where = 'true') => {
  const ranked = await featureRanking(s, r, where);
  const cut = ranked.slice(0, n);
  if (ranked.slice(0, n + 1).some((x, i, all) => i > 0 && x.accounts === all[i - 1]?.accounts)) return [];
  return cut.map((x) => formsOf(x.family));
};

// ---- renewals, champions, accounts ---------------------------------------------------------------

const OPEN_RENEWAL = `not d.is_closed and d.name ilike '%renewal%'`;
const accountsOf = (s: Sql, where: string, params: unknown[] = []) =>
  column(
    s,
    `select distinct a.name as v from deals d join accounts a on a.id = d.account_id where d.workspace_id = $1 and ${where}`,
    params,
  );
/** Open renewals whose latest assessment of a criterion is at risk, or whose account's champion has left. */
const RISKY = `${OPEN_RENEWAL} and (
  exists (select 1 from contacts c where c.account_id = d.account_id and c.is_champion and c.left_at is not null)
  or exists (select 1 from (select distinct on (q.criterion) q.status from deal_qualification q where q.deal_id = d.id
                            order by q.criterion, q.occurred_at desc, q.id) latest where latest.status = 'at_risk'))`;
/** The latest at-risk criterion notes of the open renewals. */
const renewalFlags = (s: Sql) =>
  s<{ account: string; notes: string }>(
    `select a.name as account, latest.notes from deals d join accounts a on a.id = d.account_id
     join lateral (select distinct on (q.criterion) q.status, q.notes from deal_qualification q where q.deal_id = d.id
                   order by q.criterion, q.occurred_at desc, q.id) latest on latest.status = 'at_risk'
     where d.workspace_id = $1 and ${OPEN_RENEWAL}`,
  );
/** Buyer accounts whose latest interaction is before the cutoff. */
const quietAccounts = (s: Sql, cutoff: string, types: string) =>
  column(
    s,
    `select a.name as v from accounts a join interactions i on i.account_id = a.id and ${KEPT}
     where a.workspace_id = $1 and ${types} group by a.name having max(i.occurred_at) < $2::date`,
    [cutoff],
  );
/** Open deals with nothing linked to them since the cutoff, filtered over `d`. */
const quietDeals = (s: Sql, cutoff: string, where = 'true') =>
  column(
    s,
    `select distinct d.name as v from deals d where d.workspace_id = $1 and not d.is_closed and ${where}
       and coalesce((select max(i.occurred_at) from interactions i where i.deal_id = d.id and ${KEPT}), '1900-01-01') < $2::date`,
    [cutoff],
  );
const quietDealCount = (s: Sql, cutoff: string) =>
  scalar(
    s,
    `select count(*) as v from deals d where d.workspace_id = $1 and not d.is_closed
       and coalesce((select max(i.occurred_at) from interactions i where i.deal_id = d.id and ${KEPT}), '1900-01-01') < $2::date`,
    [cutoff],
  );
/** Champions who left, in the period: their names and accounts. */
const departed = (s: Sql, r: Range = EVER) =>
  s<{ person: string; account: string; left: string }>(
    `select c.name as person, a.name as account, c.left_at::date::text as left from contacts c join accounts a on a.id = c.account_id
     where c.workspace_id = $1 and c.is_champion and ${within('c.left_at', r)} order by c.left_at`,
  );
/** Deals that closed after their account's champion left, won, lost or either. */
const closedAfterDeparture = (s: Sql, outcome: 'won' | 'lost' | 'any') =>
  column(
    s,
    `select distinct d.name as v from deals d join contacts c on c.account_id = d.account_id and c.is_champion and c.left_at is not null
     where d.workspace_id = $1 and d.is_closed and d.close_date > c.left_at::date
       and ${outcome === 'won' ? 'd.is_won' : outcome === 'lost' ? 'not d.is_won' : 'true'}`,
  );
/** First or last touch of an account (its interactions' days). */
const touch = async (s: Sql, account: string, which: 'min' | 'max') =>
  dateForms(
    (
      await column(
        s,
        `select ${which}(i.occurred_at)::date::text as v from interactions i join accounts a on a.id = i.account_id
         where i.workspace_id = $1 and ${KEPT} and a.name = $2`,
        [account],
      )
    )[0] ?? '',
  );
const interactionsOf = (s: Sql, account: string, kind: string) =>
  scalar(
    s,
    `select count(*) as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and a.name = $2 and i.kind = $3`,
    [account, kind],
  );
const dealsOf = (s: Sql, account: string, where = 'true') =>
  column(
    s,
    `select d.name as v from deals d join accounts a on a.id = d.account_id where d.workspace_id = $1 and a.name = $2 and ${where}`,
    [account],
  );

// ---- competitors ---------------------------------------------------------------------------------

const COMPETITORS = ['Pipewell', 'Tallyhawk', 'Quotient Labs', 'Stackwise', 'Clarion AI'] as const;
/** An interaction `i` that names `$2` anywhere: title, summary, email body or a turn. */
const NAMES_IT = `(i.title ilike '%' || $2 || '%' or i.summary ilike '%' || $2 || '%' or i.body ilike '%' || $2 || '%'
  or exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.text ilike '%' || $2 || '%'))`;
const timesNamed = (s: Sql, competitor: string, r: Range = EVER) =>
  scalar(
    s,
    `select count(*) as v from interactions i where i.workspace_id = $1 and ${KEPT} and ${within('i.occurred_at', r)} and ${NAMES_IT}`,
    [competitor],
  );
const accountsNaming = (s: Sql, competitor: string, r: Range = EVER) =>
  column(
    s,
    `select distinct a.name as v from interactions i join accounts a on a.id = i.account_id
     where i.workspace_id = $1 and ${KEPT} and coalesce(a.type, '') <> 'competitor' and ${within('i.occurred_at', r)} and ${NAMES_IT}`,
    [competitor],
  );
/** Competitors by the interactions naming them in the period, most first. */
const competitorRanking = async (s: Sql, r: Range = EVER) =>
  (await Promise.all(COMPETITORS.map(async (c) => ({ c, n: await timesNamed(s, c, r) })))).sort((x, y) => y.n - x.n);
/** Closed deals linked to an interaction naming the competitor, by outcome. */
const dealsAgainst = (s: Sql, competitor: string, won: boolean) =>
  column(
    s,
    `select distinct d.name as v from deals d join interactions i on i.deal_id = d.id and ${KEPT}
     where d.workspace_id = $1 and d.is_closed and d.is_won = $3 and ${NAMES_IT}`,
    [competitor, won],
  );

// ---- lost reasons --------------------------------------------------------------------------------

/** Reason families of the at-risk notes on lost deals, first match wins, each with how an answer names it. */
const REASONS: { label: string; re: RegExp; forms: string[] }[] = [
  { label: 'competitor', re: /competitor/i, forms: ['competitor', 'competition', 'competitive'] },
  { label: 'champion', re: /champion/i, forms: ['champion'] },
  {
    label: 'approver',
    re: /economic buyer|approver|CFO/i,
    forms: ['economic buyer', 'approver', 'CFO', 'budget owner'],
  },
  { label: 'business case', re: /metric|business case|target|pilot/i, forms: ['business case', 'metric', 'success'] },
  { label: 'no priority', re: /good enough|no longer a priority/i, forms: ['good enough', 'priority', 'status quo'] },
  {
    label: 'process',
    re: /procurement|legal|DPA|committee|pushed/i,
    forms: ['procurement', 'legal', 'DPA', 'committee'],
  },
  { label: 'price', re: /price/i, forms: ['price', 'pricing'] },
];
/** Lost deals closed in the period (filtered over `d` and `a`), each with the notes of its at-risk criteria. */
const lostWithNotes = async (s: Sql, r: Range, where = 'true') =>
  s<{ deal: string; notes: string[] }>(
    `select d.name as deal, array_agg(q.notes) as notes from deals d left join accounts a on a.id = d.account_id
     join deal_qualification q on q.deal_id = d.id and q.status = 'at_risk' and q.notes is not null
     where d.workspace_id = $1 and d.is_closed and not d.is_won and ${within('d.close_date', r)} and ${where}
     group by d.id, d.name`,
  );
/** The forms of the reason families most often behind the lost deals (by deals), all of them on a tie. */
const topReasons = async (s: Sql, r: Range, where = 'true') => {
  const counts = new Map<string, number>();
  for (const { notes } of await lostWithNotes(s, r, where)) {
    const labels = new Set(notes.flatMap((n) => REASONS.find((x) => x.re.test(n))?.label ?? []));
    for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const most = Math.max(0, ...counts.values());
  return REASONS.filter((x) => counts.get(x.label) === most).flatMap((x) => x.forms);
};
const lostNames = async (s: Sql, r: Range, where = 'true') => (await lostWithNotes(s, r, where)).map((x) => x.deal);
const lostOnCompetitor = async (s: Sql, r: Range) =>
  (await lostWithNotes(s, r)).filter((x) => x.notes.some((n) => /competitor/i.test(n))).length;

const RENEWAL_TALK = /renew|seat|cancel|value|price|cut|finance|logging in|usage|adoption/i;

export const WRITTEN_FRESH_3: Question[] = [
  // ---- talk ratio ----------------------------------------------------------------------------------
  {
    shape: 'talk_ratio',
    ask: 'whos the biggest talker on the team on calls',
    expect: { mentions: async (s) => [(await talkShares(s))[0]?.rep ?? ''] },
  },
  {
    shape: 'talk_ratio',
    ask: 'not counting the SEs, which rep does the most listening on calls and meetings - lowest talk ratio',
    expect: { mentions: async (s) => [(await talkShares(s)).at(-1)?.rep ?? ''] },
  },
  {
    shape: 'talk_ratio',
    ask: "whats rhea's talk ratio",
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Rhea'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'rank every rep by talk-time share, highest first',
    expect: { ordered: async (s) => (await talkShares(s)).map((r) => [r.rep]) },
  },
  {
    shape: 'talk_ratio',
    ask: 'on our calls how much of the airtime is us vs the customer?',
    expect: { mentionsEach: async (s) => [pct(await sideShare(s, 'internal')), pct(await sideShare(s, 'external'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'talk ratio oscar vs paula? who hogs the call more',
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Oscar')), pct(await shareOf(s, 'Paula'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'does ben dimitrov talk too much on his calls? what % of the talking is him',
    expect: { mentionsEach: async (s) => [pct(await shareOf(s, 'Ben'))] },
  },
  {
    shape: 'talk_ratio',
    ask: 'top 3 biggest talkers among the reps, in order',
    expect: { ordered: async (s) => (await talkShares(s)).slice(0, 3).map((r) => [r.rep]) },
  },

  // ---- feature requests ----------------------------------------------------------------------------
  {
    shape: 'feature_requests',
    ask: 'what are prospects and customers asking us to build most often?',
    expect: { mentionsEach: async (s) => (await topFamilies(s, 1)).slice(0, 1) },
  },
  {
    shape: 'feature_requests',
    ask: 'top feature requests ranked by how many accounts asked - give me the top 4',
    expect: { ordered: async (s) => topFamilies(s, 4) },
  },
  {
    shape: 'feature_requests',
    ask: 'how many accounts have asked for slack notifications or slack integration stuff',
    expect: { numbers: async (s) => [(await askingAccounts(s, 'slack')).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'which prospects asked about SSO/SAML',
    expect: { mentionsSome: (s) => askingAccounts(s, 'sso', EVER, `a.type = 'sales_target'`) },
  },
  {
    shape: 'feature_requests',
    ask: 'feature asks from existing customers this quarter, what comes up most?',
    expect: { mentionsEach: async (s) => (await topFamilies(s, 1, Q4, `a.type = 'customer'`)).slice(0, 1) },
  },
  {
    shape: 'feature_requests',
    ask: 'is anyone asking for a snowflake / warehouse export? how many accounts',
    expect: { numbers: async (s) => [(await askingAccounts(s, 'warehouse')).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'number of distinct accounts that brought up EU data residency',
    expect: { numbers: async (s) => [(await askingAccounts(s, 'residency')).length] },
  },
  {
    shape: 'feature_requests',
    ask: 'more requests for the salesforce integration or the hubspot one? counts by account pls',
    expect: {
      mentions: async () => ['Salesforce', 'HubSpot'],
      numbers: async (s) => [
        (await askingAccounts(s, 'salesforce')).length,
        (await askingAccounts(s, 'hubspot')).length,
      ],
    },
  },

  // ---- renewal risk --------------------------------------------------------------------------------
  {
    shape: 'renewal_risk',
    ask: 'which renewals are at risk rn',
    expect: { mentions: (s) => accountsOf(s, RISKY) },
  },
  {
    shape: 'renewal_risk',
    ask: 'list all open renewal opps with their close dates',
    expect: { mentions: (s) => accountsOf(s, OPEN_RENEWAL) },
  },
  {
    shape: 'renewal_risk',
    ask: 'renewals closing this qtr - any of them in trouble?',
    expect: { mentions: (s) => accountsOf(s, `${OPEN_RENEWAL} and ${within('d.close_date', Q4)}`) },
  },
  {
    shape: 'renewal_risk',
    ask: 'what have the acme logistics people been saying about renewing',
    expect: { quotes: 'required', topic: RENEWAL_TALK, quoteAccounts: async () => ['Acme Logistics'] },
  },
  {
    shape: 'renewal_risk',
    ask: 'how much renewal revenue is still open',
    expect: {
      numbers: async (s) => [
        await scalar(s, `select sum(d.amount) as v from deals d where d.workspace_id = $1 and ${OPEN_RENEWAL}`),
      ],
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'any upcoming renewals where the customer talked about cutting seats?',
    expect: {
      mentionsSome: (s) =>
        accountsOf(
          s,
          `${OPEN_RENEWAL} and exists (select 1 from interactions i join transcript_turns t on t.interaction_id = i.id and t.side = 'external'
             where i.account_id = d.account_id and ${KEPT} and t.text ~* 'fewer seats')`,
        ),
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'renewal deals with a MEDDPICC criterion flagged at risk - which ones and whats the flag',
    expect: {
      mentions: async (s) => [...new Set((await renewalFlags(s)).map((r) => r.account))],
      mentionsEach: async (s) =>
        (await renewalFlags(s)).map((r) =>
          /DPA|legal/i.test(r.notes)
            ? ['DPA', 'legal']
            : /economic buyer/i.test(r.notes)
              ? ['economic buyer']
              : [r.notes],
        ),
    },
  },
  {
    shape: 'renewal_risk',
    ask: 'open renewals where we havent talked to the account in 3 weeks',
    expect: {
      mentions: (s) =>
        accountsOf(
          s,
          `${OPEN_RENEWAL} and coalesce((select max(i.occurred_at) from interactions i where i.account_id = d.account_id and ${KEPT}), '1900-01-01') < '2026-10-30'`,
        ),
    },
  },

  // ---- champion changes ----------------------------------------------------------------------------
  {
    shape: 'champion_change',
    ask: 'which of our champions have left their company?',
    expect: { mentions: async (s) => (await departed(s)).map((r) => r.person) },
  },
  {
    shape: 'champion_change',
    ask: 'champions who left this year and at which accounts',
    expect: {
      mentions: async (s) => (await departed(s, THIS_YEAR)).map((r) => r.account),
      absent: async (s) => (await departed(s, ['1900-01-01', THIS_YEAR[0]])).map((r) => r.person),
    },
  },
  {
    shape: 'champion_change',
    ask: 'what happened to the deals that closed after the champion left? won or lost',
    expect: { mentionsSome: (s) => closedAfterDeparture(s, 'any'), mentions: (s) => closedAfterDeparture(s, 'lost') },
  },
  {
    shape: 'champion_change',
    ask: 'did we lose anything after a champion walked?',
    expect: { mentions: (s) => closedAfterDeparture(s, 'lost') },
  },
  {
    shape: 'champion_change',
    ask: 'when did our champion at cobalt health leave',
    expect: {
      mentionsEach: async (s) => [
        dateForms((await departed(s)).find((r) => r.account === 'Cobalt Health')?.left ?? ''),
      ],
    },
  },
  {
    shape: 'champion_change',
    ask: 'open deals where the champion is gone',
    expect: {
      mentions: (s) =>
        accountsOf(
          s,
          `not d.is_closed and exists (select 1 from contacts c where c.account_id = d.account_id and c.is_champion and c.left_at is not null)`,
        ),
    },
  },
  {
    shape: 'champion_change',
    ask: 'any champion changes in the last 6 months? which accounts',
    expect: {
      mentions: async (s) => (await departed(s, ['2026-05-20', '2026-11-21'])).map((r) => r.account),
      absent: async (s) => (await departed(s, ['1900-01-01', '2026-05-20'])).map((r) => r.person),
    },
  },

  // ---- account history -----------------------------------------------------------------------------
  {
    shape: 'account_history',
    ask: 'full history w/ acme logistics pls - first touch, last touch, deals',
    expect: {
      mentionsEach: async (s) => [await touch(s, 'Acme Logistics', 'min'), await touch(s, 'Acme Logistics', 'max')],
      mentions: (s) => dealsOf(s, 'Acme Logistics'),
    },
  },
  {
    shape: 'account_history',
    ask: 'when did we first talk to granite logistics and how many deals have we opened with them',
    expect: {
      mentionsEach: async (s) => [await touch(s, 'Granite Logistics', 'min')],
      numbers: async (s) => [(await dealsOf(s, 'Granite Logistics')).length],
    },
  },
  {
    shape: 'account_history',
    ask: 'foxglove logistics - what happened there? timeline pls',
    expect: {
      mentionsEach: async (s) => [
        await touch(s, 'Foxglove Logistics', 'min'),
        await touch(s, 'Foxglove Logistics', 'max'),
      ],
      mentions: (s) => dealsOf(s, 'Foxglove Logistics', 'd.is_closed and not d.is_won'),
    },
  },
  {
    shape: 'account_history',
    ask: 'how many calls, meetings and emails have we had with cobalt health all time',
    expect: {
      numbers: async (s) => [
        await interactionsOf(s, 'Cobalt Health', 'call'),
        await interactionsOf(s, 'Cobalt Health', 'meeting'),
        await interactionsOf(s, 'Cobalt Health', 'email'),
      ],
    },
  },
  {
    shape: 'account_history',
    ask: 'willow logistics acct history: every deal we won lost or still have open',
    expect: { mentions: (s) => dealsOf(s, 'Willow Logistics') },
  },
  {
    shape: 'account_history',
    ask: 'last time we spoke with sable logistics, and whats still open there',
    expect: {
      mentionsEach: async (s) => [await touch(s, 'Sable Logistics', 'max')],
      mentions: (s) => dealsOf(s, 'Sable Logistics', 'not d.is_closed'),
    },
  },
  {
    shape: 'account_history',
    ask: 'first and last touch w pinnacle logistics?',
    expect: {
      mentionsEach: async (s) => [
        await touch(s, 'Pinnacle Logistics', 'min'),
        await touch(s, 'Pinnacle Logistics', 'max'),
      ],
    },
  },

  // ---- competitors ---------------------------------------------------------------------------------
  {
    shape: 'competitors',
    ask: 'which competitors come up the most? rank them',
    expect: { ordered: async (s) => (await competitorRanking(s)).map((x) => [x.c]) },
  },
  {
    shape: 'competitors',
    ask: 'how many convos mention pipewell',
    expect: { numbers: async (s) => [await timesNamed(s, 'Pipewell')] },
  },
  {
    shape: 'competitors',
    ask: 'which acounts have brought up tallyhawk',
    expect: { mentions: (s) => accountsNaming(s, 'Tallyhawk') },
  },
  {
    shape: 'competitors',
    ask: 'win/loss when quotient labs is in the deal',
    expect: {
      numbers: async (s) => [
        (await dealsAgainst(s, 'Quotient Labs', true)).length,
        (await dealsAgainst(s, 'Quotient Labs', false)).length,
      ],
    },
  },
  {
    shape: 'competitors',
    ask: 'what competitor got mentioned the most this quarter',
    expect: { mentions: async (s) => [(await competitorRanking(s, Q4))[0]?.c ?? ''] },
  },
  {
    shape: 'competitors',
    ask: 'are we losing to stackwise? lost deals where they came up',
    expect: { mentionsSome: (s) => dealsAgainst(s, 'Stackwise', false) },
  },
  {
    shape: 'competitors',
    ask: 'clarion ai - how many accounts have mentioned them',
    expect: { numbers: async (s) => [(await accountsNaming(s, 'Clarion AI')).length] },
  },
  {
    shape: 'competitors',
    ask: 'whos been talking about pipewell in the last 60 days',
    expect: { mentionsSome: (s) => accountsNaming(s, 'Pipewell', P.last60) },
  },

  // ---- quiet deals and accounts --------------------------------------------------------------------
  {
    shape: 'quiet',
    ask: 'deals with no activity in the last 30 days',
    expect: { mentionsSome: (s) => quietDeals(s, P.last30[0]) },
  },
  {
    shape: 'quiet',
    ask: 'accounts we havent talked to in 2 months',
    expect: {
      mentionsSome: (s) => quietAccounts(s, P.last60[0], `coalesce(a.type, '') not in ${NOT_BUYERS}`),
      absent: async () => ['Acme Logistics', 'Keystone Health'],
    },
  },
  {
    shape: 'quiet',
    ask: 'any customers gone dark for 90+ days?',
    expect: {
      mentions: (s) => quietAccounts(s, '2026-08-22', `a.type = 'customer'`),
    },
  },
  {
    shape: 'quiet',
    ask: 'open deals over 50k with nothing logged in 3 weeks',
    expect: { mentionsSome: (s) => quietDeals(s, '2026-10-30', 'd.amount > 50000') },
  },
  {
    shape: 'quiet',
    ask: "rhea's deals that have gone quiet for 30+ days",
    expect: {
      mentionsSome: (s) => quietDeals(s, P.last30[0], `d.owner_email like 'rhea.%'`),
      absent: async (s) => quietDeals(s, P.last30[0], `d.owner_email like 'mateo.%'`),
    },
  },
  {
    shape: 'quiet',
    ask: 'how many open opps have had zero activity since oct 1',
    expect: { numbers: async (s) => [await quietDealCount(s, '2026-10-01')] },
  },
  {
    shape: 'quiet',
    ask: 'prospects we havent touched in 45 days',
    expect: { mentionsSome: (s) => quietAccounts(s, P.last45[0], `a.type = 'sales_target'`) },
  },

  // ---- lost reasons --------------------------------------------------------------------------------
  {
    shape: 'lost_reasons',
    ask: 'why did we lose deals last quarter, main reasons + which deals',
    expect: { mentionsSome: (s) => lostNames(s, Q3), mentionsEach: async (s) => [await topReasons(s, Q3)] },
  },
  {
    shape: 'lost_reasons',
    ask: 'top reasons we lost deals this year',
    expect: { mentionsEach: async (s) => [await topReasons(s, THIS_YEAR)] },
  },
  {
    shape: 'lost_reasons',
    ask: 'why has mateo been losing deals',
    expect: {
      mentionsSome: (s) => lostNames(s, EVER, `d.owner_email like 'mateo.%'`),
      mentionsEach: async (s) => [await topReasons(s, EVER, `d.owner_email like 'mateo.%'`)],
    },
  },
  {
    shape: 'lost_reasons',
    ask: 'loss reasons in EMEA?',
    expect: {
      mentionsSome: (s) => lostNames(s, EVER, `a.region = 'EMEA'`),
      mentionsEach: async (s) => [await topReasons(s, EVER, `a.region = 'EMEA'`)],
    },
  },
  {
    shape: 'lost_reasons',
    ask: 'deals we lost this qtr and why',
    expect: { mentions: (s) => lostNames(s, Q4) },
  },
  {
    shape: 'lost_reasons',
    ask: 'how many deals did we lose this year where a competitor was the problem',
    expect: { numbers: async (s) => [await lostOnCompetitor(s, THIS_YEAR)] },
  },
  {
    shape: 'lost_reasons',
    ask: 'what killed our healthcare deals',
    expect: {
      mentionsSome: (s) => lostNames(s, EVER, `a.industry = 'Healthcare'`),
      mentionsEach: async (s) => [await topReasons(s, EVER, `a.industry = 'Healthcare'`)],
    },
  },

  // ---- follow-ups ----------------------------------------------------------------------------------
  {
    shape: 'follow_up',
    thread: ['among the deal owners who talks the most on our calls'],
    ask: 'and who talks the least?',
    expect: { mentions: async (s) => [(await talkShares(s)).at(-1)?.rep ?? ''] },
  },
  {
    shape: 'follow_up',
    thread: ['show me the open renewals'],
    ask: 'which of those look risky',
    expect: { mentions: (s) => accountsOf(s, RISKY) },
  },
  {
    shape: 'follow_up',
    thread: ['which competitors come up the most'],
    ask: 'whats our win/loss against the top one',
    expect: {
      numbers: async (s) => [
        (await dealsAgainst(s, 'Pipewell', true)).length,
        (await dealsAgainst(s, 'Pipewell', false)).length,
      ],
    },
  },
  {
    shape: 'follow_up',
    thread: ['what were the loss reasons in q3'],
    ask: 'and this quarter so far?',
    expect: { mentions: (s) => lostNames(s, Q4) },
  },
  {
    shape: 'follow_up',
    thread: ['tell me the history of willow logistics'],
    ask: 'what happened after their champion left',
    expect: {
      mentions: async (s) => (await closedAfterDeparture(s, 'lost')).filter((d) => d.startsWith('Willow Logistics')),
    },
  },
  {
    shape: 'follow_up',
    thread: ['which deals have had no activity in 30 days'],
    ask: 'just the ones over 50k',
    expect: {
      mentionsSome: (s) => quietDeals(s, P.last30[0], 'd.amount > 50000'),
      absent: (s) => quietDeals(s, P.last30[0], 'd.amount < 20000'),
    },
  },

  // ---- what the data does not hold -----------------------------------------------------------------
  {
    shape: 'absent_subject',
    ask: 'how often does gong come up on our calls',
    expect: { says: saysAbsent('Gong'), quotes: 'none' },
  },
  {
    shape: 'absent_subject',
    ask: 'zendesk ticket volume by account this month',
    expect: { says: saysAbsent('Zendesk'), quotes: 'none' },
  },
  {
    shape: 'absent_subject',
    ask: 'how many MQLs did the last webinar bring in',
    expect: { says: saysAbsent('MQL|webinar|marketing qualified'), quotes: 'none' },
  },
  {
    shape: 'absent_subject',
    ask: 'quota attainment by rep this quarter?',
    expect: { says: saysAbsent('quota'), quotes: 'none' },
  },
  {
    shape: 'absent_subject',
    ask: 'what are people saying about us in G2 reviews',
    expect: { says: saysAbsent('G2'), quotes: 'none' },
  },
];

/**
 * Shapes of this set whose failures were read while fixing their mechanism (champion changes, an
 * account's history, competitors, feature requests): those questions count as dev now; later fresh
 * sets measure these analyses instead.
 */
export const DEVELOPED_FRESH_3_SHAPES: ReadonlySet<string> = new Set([
  'champion_change',
  'account_history',
  'competitors',
  'feature_requests',
]);
export const DEVELOPED_ON_FRESH_3: Question[] = WRITTEN_FRESH_3.filter((q) => DEVELOPED_FRESH_3_SHAPES.has(q.shape));
export const HELD_OUT_FRESH_3: Question[] = WRITTEN_FRESH_3.filter((q) => !DEVELOPED_FRESH_3_SHAPES.has(q.shape));
