import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockDraft } from '../../functions/agents/answer.js';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * The feature-requests analysis over the demo corpus, through REST and MCP. Its counts are checked
 * against independent SQL over the customers' own words, its quotes against the turns and emails
 * they cite, and its blocks through the verifier (a changed cell fails).
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

interface Row {
  request: string;
  accounts: number;
  conversations: number;
  customers: number;
  prospects: number;
  last_asked: string;
}
type Quote = Extract<BlockDraft, { kind: 'quote' }>;

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/feature-requests', { key, body });
const rowsOf = (out: AnalysisOutput) => out.results.requests as unknown as Row[];
const quotesOf = (out: AnalysisOutput) => out.blocks.filter((b): b is Quote => b.kind === 'quote');

/** Accounts (customers or prospects) whose side said or wrote `word` (a whole word), by another route: one statement. */
async function accountsSaying(word: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    h.database.db,
    sql.raw(`
      with own_words as (
        select i.account_id, t.text from transcript_turns t join interactions i on i.id = t.interaction_id
        where t.side = 'external' and t.workspace_id = '${CORPUS_WORKSPACE_ID}'
          and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)
        union all
        select i.account_id, i.body from interactions i
        where i.kind = 'email' and i.direction = 'inbound' and i.workspace_id = '${CORPUS_WORKSPACE_ID}'
          and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id))
      select count(distinct a.id)::int as n from own_words w join accounts a on a.id = w.account_id
      where w.text ~* '\\m${word}' and (a.type in ('customer', 'sales_target')
        or exists (select 1 from deals d where d.account_id = a.id))`),
  );
  return row!.n;
}

/** Accounts (customers or prospects) whose side said or wrote `phrase`, by ILIKE over their turns and inbound emails. */
async function accountsWriting(phrase: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    h.database.db,
    sql`select count(distinct a.id)::int as n from interactions i join accounts a on a.id = i.account_id
        where i.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid
          and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)
          and (a.type in ('customer', 'sales_target') or exists (select 1 from deals d where d.account_id = a.id))
          and ((i.kind = 'email' and i.direction = 'inbound' and i.body ilike ${`%${phrase}%`})
            or exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.side = 'external'
                       and t.text ilike ${`%${phrase}%`}))`,
  );
  return row!.n;
}

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Feature requests, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/feature-requests', () => {
  it('counts one need once and never a rival as what buyers ask for', async () => {
    const rows = rowsOf((await post({ limit: 50 })).body.data);
    const requests = new Set(rows.map((r) => r.request.toLowerCase()));
    // "pipeline report", "custom report" are asks for reports when reports are asked for.
    for (const r of rows) {
      const head = r.request.toLowerCase().split(' ').at(-1)!;
      if (head !== r.request.toLowerCase()) expect(requests.has(head), r.request).toBe(false);
    }
    // The rivals the demo corpus's buyers compare with ("the team liked Pipewell, so you will need to beat that").
    for (const rival of ['pipewell', 'stackwise', 'tallyhawk', 'clarion', 'quotient'])
      expect(requests.has(rival), rival).toBe(false);
  });

  it('ranks requests by the accounts asking, each count as independent SQL over their own words gives it', async () => {
    const out = (await post({ limit: 50 })).body.data;
    expect(out.analysis).toBe('feature_requests');
    const rows = rowsOf(out);
    expect(rows.length).toBeGreaterThan(10);
    const order = rows.map((r) => -r.accounts);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const r of rows) expect(r.customers + r.prospects).toBeLessThanOrEqual(r.accounts);
    // Webhooks are asked for in one way only ("do you support webhooks ..."): every account saying it asked.
    const webhooks = rows.find((r) => r.request === 'webhook');
    expect(webhooks?.accounts).toBe(await accountsSaying('webhook'));
    // Slack is named in asks and beside other asks ("a Teams integration as well as Slack"): at most those accounts.
    const slack = rows.find((r) => r.request === 'Slack')!;
    expect(slack.accounts).toBeGreaterThan(5);
    expect(slack.accounts).toBeLessThanOrEqual(await accountsSaying('slack'));
    // Price, terms and seats are commercial asks, not features.
    expect(rows.map((r) => r.request.toLowerCase())).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(price|pricing|discount|seat|contract)$/)]),
    );
    expect(out.summary[0]).toContain(`"${rows[0]!.request}": ${rows[0]!.accounts} accounts`);
  });

  it('quotes the customers verbatim, attributed to the account, speaker and date of the turn or email', async () => {
    const out = (await post({ topic: 'Slack alerts', quotes_per_request: 3 })).body.data;
    const quotes = quotesOf(out);
    expect(quotes.length).toBeGreaterThan(2);
    for (const q of quotes) {
      const [source] = await queryRows<{ text: string; account: string; speaker: string | null; occurred_at: string }>(
        h.database.db,
        q.source.turn_id
          ? sql`select t.text, a.name as account, t.speaker_name as speaker, i.occurred_at::text as occurred_at
                from transcript_turns t join interactions i on i.id = t.interaction_id join accounts a on a.id = i.account_id
                where t.id = ${q.source.turn_id}::uuid and t.side = 'external'`
          : sql`select i.body as text, a.name as account, null as speaker, i.occurred_at::text as occurred_at
                from interactions i join accounts a on a.id = i.account_id
                where i.id = ${q.source.interaction_id}::uuid and i.direction = 'inbound'`,
      );
      expect(source, JSON.stringify(q.source)).toBeDefined();
      expect(source!.text).toContain(q.text);
      expect(q.source.account).toBe(source!.account);
      expect(q.source.occurred_at).toBe(source!.occurred_at);
      if (q.source.turn_id) expect(q.source.speaker).toBe(source!.speaker);
      else expect(q.source.speaker).not.toBeNull();
    }
    // A topic keeps the requests that are about it: "how many accounts asked for Slack alerts".
    expect(rowsOf(out)[0]!.request).toBe('Slack');
    expect(out.read_as).toContain('"Slack alerts"');
  });

  it('reads an acronym topic in the asks that spell it out: "SSO" is the SAML single sign-on asks', async () => {
    const out = (await post({ topic: 'SSO', limit: 50, quotes_per_request: 5 })).body.data;
    expect(out.empty_reason).toBeNull();
    const saml = rowsOf(out).find((r) => r.request === 'SAML');
    expect(saml?.accounts).toBe(await accountsWriting('single sign-on'));
    const quotes = quotesOf(out);
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) expect(q.text).toMatch(/single sign-on|\bSSO\b/);
  });

  it('says which terms an empty topic was looked for as', async () => {
    const out = (await post({ topic: 'MFA' })).body.data;
    expect(out.results.requests).toEqual([]);
    expect(out.empty_reason).toContain(
      'the words of "MFA" in any form and a phrase whose initials spell MFA (none found)',
    );
    expect(out.empty_reason).toMatch(/in [\d,]+ asking turns and emails/);
  });

  it('a compound topic is its modifier\'s: no ask for another connector answers "zapier connector"', async () => {
    // The corpus names no Zapier anywhere, and connectors of other kinds are asked for.
    expect(await accountsSaying('zapier')).toBe(0);
    expect(await accountsWriting('connector')).toBeGreaterThan(0);
    const out = (await post({ topic: 'zapier connector' })).body.data;
    expect(out.results.requests).toEqual([]);
    expect(out.empty_reason).toContain('("connector" only with another of them)');
    // None requested, out of so many read: metrics the verifier re-runs, beside the number the reason gives.
    const read = out.blocks.find((b) => b.kind === 'metric' && b.column === 'asks_read');
    expect(read).toMatchObject({ label: 'Turns and emails read' });
    expect(out.blocks).toContainEqual(expect.objectContaining({ kind: 'metric', column: 'requests', value: 0 }));
    expect(out.empty_reason).toContain(`in ${(read as { value: number }).value.toLocaleString('en-US')} asking`);
    const said = { ...out, summary: [out.empty_reason!] };
    const { honest } = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, said);
    expect(honest.grounding.verified, JSON.stringify(honest.grounding)).toBe(true);
    // The same head beside a modifier the asks hold still finds them: every ask counted names it.
    const bigquery = (await post({ topic: 'bigquery connector', quotes_per_request: 5 })).body.data;
    expect(rowsOf(bigquery).map((r) => r.request)).toContain('BigQuery');
    for (const q of quotesOf(bigquery)) expect(q.text).toMatch(/bigquery/i);
  });

  it('reads customers or prospects only, an account, a region and a period', async () => {
    const prospects = rowsOf((await post({ audience: 'prospects', limit: 50 })).body.data);
    expect(prospects.length).toBeGreaterThan(0);
    for (const r of prospects) expect([r.customers, r.prospects]).toEqual([0, r.accounts]);
    const customers = rowsOf((await post({ audience: 'customers', limit: 50 })).body.data);
    for (const r of customers) expect([r.customers, r.prospects]).toEqual([r.accounts, 0]);

    const q3 = (await post({ period: { from: '2026-07-01', to: '2026-10-01' }, limit: 50 })).body.data;
    for (const r of rowsOf(q3)) expect(r.last_asked >= '2026-07-01' && r.last_asked < '2026-10-01').toBe(true);
    expect(q3.read_as).toContain('from 2026-07-01, before 2026-10-01');

    const [account] = await queryRows<{ name: string; region: string }>(
      h.database.db,
      sql`select a.name, a.region from accounts a join interactions i on i.account_id = a.id
          where a.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and a.type = 'customer'
          group by a.name, a.region order by count(*) desc, a.name limit 1`,
    );
    const one = (await post({ accounts: [account!.name.toLowerCase()], limit: 50 })).body.data;
    for (const r of rowsOf(one)) expect(r.accounts).toBe(1);
    for (const q of quotesOf(one)) expect(q.source.account).toBe(account!.name);
    const inRegion = (await post({ regions: [account!.region], limit: 50 })).body.data;
    const [regionAccounts] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from accounts where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and region = ${account!.region}`,
    );
    for (const r of rowsOf(inRegion)) expect(r.accounts).toBeLessThanOrEqual(regionAccounts!.n);
  });

  it('reads the kinds of conversation asked for: inbound emails only, or calls and meetings only', async () => {
    const emailed = (await post({ kinds: ['email'], limit: 50, quotes_per_request: 3 })).body.data;
    expect(quotesOf(emailed).length).toBeGreaterThan(0);
    const kindOf = async (id: string) =>
      (
        await queryRows<{ kind: string; direction: string | null }>(
          h.database.db,
          sql`select kind, direction from interactions where id = ${id}::uuid`,
        )
      )[0];
    for (const q of quotesOf(emailed)) {
      expect(q.source.turn_id ?? null).toBeNull();
      expect(await kindOf(q.source.interaction_id)).toEqual({ kind: 'email', direction: 'inbound' });
    }
    expect(emailed.read_as).toContain('asks written in inbound emails,');
    expect(emailed.read_as).not.toContain('calls');
    // A request counted from emails only never counts more accounts than the same request read everywhere.
    const everywhere = new Map(rowsOf((await post({ limit: 50 })).body.data).map((r) => [r.request, r.accounts]));
    for (const r of rowsOf(emailed)) expect(r.accounts).toBeLessThanOrEqual(everywhere.get(r.request) ?? Infinity);

    const spoken = (await post({ kinds: ['call', 'meeting'], limit: 50 })).body.data;
    for (const q of quotesOf(spoken)) {
      expect(q.source.turn_id).toBeTruthy();
      expect(['call', 'meeting']).toContain((await kindOf(q.source.interaction_id))!.kind);
    }
    expect(spoken.read_as).toContain('asks said on calls and meetings,');
  });

  it('names the accounts asking for each request when asked, each one an account whose own words hold it', async () => {
    const out = (await post({ topic: 'Slack alerts', accounts_per_request: 3 })).body.data;
    const asking = out.results.accounts as unknown as { request: string; account: string; conversations: number }[];
    const requests = rowsOf(out);
    expect(asking.length).toBeGreaterThan(0);
    for (const r of requests)
      expect(asking.filter((a) => a.request === r.request).length).toBe(Math.min(3, r.accounts));
    const top = asking.filter((a) => a.request === 'Slack');
    const sayers = await queryRows<{ account: string; conversations: number }>(
      h.database.db,
      sql`select a.name as account, count(distinct i.id)::int as conversations
          from interactions i join accounts a on a.id = i.account_id
          where i.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid
            and (exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.side = 'external'
                           and t.text ~* '\\mslack')
                 or (i.kind = 'email' and i.direction = 'inbound' and i.body ~* '\\mslack'))
          group by a.name`,
    );
    const said = new Map(sayers.map((s) => [s.account, s.conversations]));
    for (const a of top) {
      expect(said.has(a.account), a.account).toBe(true);
      expect(a.conversations).toBeLessThanOrEqual(said.get(a.account)!);
    }
    // Most conversations first.
    for (let i = 1; i < top.length; i++) expect(top[i]!.conversations).toBeLessThanOrEqual(top[i - 1]!.conversations);
    expect(out.summary.join(' ')).toContain(top[0]!.account);
    // Not asked: no accounts table.
    expect((await post({ topic: 'Slack alerts' })).body.data.results.accounts).toBeUndefined();
  });

  it('answers another workspace with nothing of this one, and says why it is empty', async () => {
    const res = await post({}, other.viewer.key);
    expect(res.status).toBe(200);
    expect(res.body.data.results.requests).toEqual([]);
    expect(res.body.data.blocks).toEqual([]);
    expect(res.body.data.empty_reason).toMatch(/asked for/);
    const nothing = (await post({ topic: 'teleportation' })).body.data;
    expect(nothing.empty_reason).toContain('teleportation');
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{ period: { from: '2026-10-01', to: '2026-07-01' } }, 'period.to'],
      [{ audience: 'investors' }, 'audience'],
      [{ limit: 0 }, 'limit'],
      [{ topic: '' }, 'topic'],
      [{ accounts: 'Acme' }, 'accounts'],
      [{ segment: 'smb' }, 'segment'],
      [{ kinds: ['sms'] }, 'kinds.0'],
      [{ kinds: [] }, 'kinds'],
      [{ accounts_per_request: 51 }, 'accounts_per_request'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/feature-requests', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const text = await mcpAnalyze(h, ws.viewer.key, 'feature_requests', { topic: 'integration', limit: 3 });
    const rest = rowsOf((await post({ topic: 'integration', limit: 3 })).body.data);
    expect(text).toContain(`"request":"${rest[0]!.request}","accounts":${rest[0]!.accounts}`);
  });
});

describe('the feature-requests table is re-run by the verifier', () => {
  it('passes as returned and fails when a model changes a count', async () => {
    const out = (await post({ limit: 5 })).body.data;
    const table = out.blocks[0] as Extract<BlockDraft, { kind: 'table' }>;
    expect(table.query).toMatchObject({ operation: 'analyses.feature_requests', result: 'requests' });
    const { honest, tampered } = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(honest.grounding.verified, JSON.stringify(honest.grounding)).toBe(true);
    const caught = await tampered('accounts', 999);
    expect(caught.grounding.verified).toBe(false);
  });
});
