import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { corpusClock } from './question-set/ask.js';

/**
 * Feature-request and competitor questions through POST /chat with the local model, written as a VP
 * of Sales, an AE or a CS manager would (terse, lower case, typos): the reader names the analysis
 * with the period, names, topic and filters the words give, the local policy calls the operation as a
 * tool, and the answer is its summary and blocks, verified. Figures are checked against independent SQL.
 */

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  await loadTokenizer();
  h = await createHarness({ database: await openCorpusDatabase(), clock: corpusClock });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

async function ask(input: string): Promise<Answer> {
  const res = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
  expect(res.status, res.text).toBe(202);
  await (h.services.queue as LocalTransport).drain();
  const run = (await h.request('GET', `/chat/runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data;
  expect(run.status, JSON.stringify(run.error)).toBe('complete');
  return run.answer as Answer;
}

const tableOf = <T>(a: Answer, index = 0): T[] => {
  const t = a.content_blocks.filter((b) => b.kind === 'table')[index];
  if (t?.kind !== 'table') throw new Error(`no table in: ${a.text}`);
  return t.data as T[];
};

/** Conversations in scope whose words name `name` anywhere, by SQL apart from the analysis. */
async function mentions(name: string, where = 'true'): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    h.database.db,
    sql.raw(`
      select count(*)::int as n from interactions i
      where i.workspace_id = '${CORPUS_WORKSPACE_ID}' and ${where}
        and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)
        and position(lower('${name}') in lower(concat_ws(' ', i.title, i.summary, i.body,
              (select string_agg(t.text, ' ') from transcript_turns t where t.interaction_id = i.id)))) > 0`),
  );
  return row!.n;
}

describe('feature requests through chat', () => {
  it.each([
    'what features are customers asking for?',
    'top feature requests',
    'most requested features from prospects',
    'top 5 feature asks from customers',
    'feature requests in EMEA this year',
  ])('"%s" is the feature-requests analysis, verified', async (q) => {
    const a = await ask(q);
    expect(a.interpretation?.analysis).toBe('feature_requests');
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    const rows = tableOf<{ request: string; accounts: number }>(a);
    expect(rows.length).toBeGreaterThan(0);
    expect(a.text).toContain(`"${rows[0]!.request}": ${rows[0]!.accounts} accounts`);
    expect(a.content_blocks.some((b) => b.kind === 'quote')).toBe(true);
  });

  it('how many accounts asked for slack alerts: the topic, its count and the customers quoted', async () => {
    const a = await ask('how many accounts asked for slack alerts?');
    expect(a.interpretation).toMatchObject({ analysis: 'feature_requests', topic: 'slack alerts' });
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    const [top] = tableOf<{ request: string; accounts: number }>(a);
    expect(top!.request).toBe('Slack');
    expect(a.text).toContain(`${top!.accounts} accounts asked for "Slack"`);
    const quotes = a.content_blocks.filter((b) => b.kind === 'quote');
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) if (q.kind === 'quote') expect(q.source.side).toBe('external');
  });

  it('a connector nobody names is asked for by no one, never answered with another connector', async () => {
    expect(await mentions('zapier')).toBe(0);
    expect(await mentions('bigquery connector')).toBeGreaterThan(0);
    const a = await ask('which customers asked for a zapier connector?');
    expect(a.interpretation).toMatchObject({ analysis: 'feature_requests', topic: 'zapier connector' });
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    expect(a.text).toContain('No customers and prospects asked for anything about "zapier connector"');
    expect(a.text).not.toMatch(/bigquery/i);
    expect(a.content_blocks.filter((b) => b.kind === 'quote' || b.kind === 'table')).toEqual([]);
    // Asked for what customers said, the same: no quote about another connector stands in for it.
    const said = await ask('what did customers say about a zapier connector?');
    expect(said.grounding.verified, JSON.stringify(said.grounding.checks)).toBe(true);
    expect(said.content_blocks.filter((b) => b.kind === 'quote')).toEqual([]);
    expect(said.text).toContain('I found no customer statements about zapier connector');
  });

  it('did any customer ask for SSO: the asks that spell it out ("SAML single sign-on"), named and quoted', async () => {
    const a = await ask('did any customer ask for SSO in the last 6 months?');
    expect(a.interpretation).toMatchObject({ analysis: 'feature_requests', topic: 'SSO' });
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    expect(a.text).not.toMatch(/No customers? .*asked|Nothing in the data mentions/);
    const rows = tableOf<{ request: string; accounts: number }>(a);
    expect(rows.map((r) => r.request)).toContain('SAML');
    const quotes = a.content_blocks.flatMap((b) => (b.kind === 'quote' ? [b] : []));
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) expect(q.text).toMatch(/single sign-on|\bSSO\b/);
  });

  it('its quotes are judged against how the question was read, not against the words placed elsewhere', async () => {
    // "product gaps", "keep coming up", "prospects", "this year": a request ranking of prospects in a
    // period, with no topic: the asks the analysis quotes are on it.
    const a = await ask('what product gaps keep coming up with prospects this year?');
    expect(a.interpretation).toMatchObject({ analysis: 'feature_requests', topic: null });
    expect(a.text).not.toMatch(/Nothing in the data mentions/);
    expect(a.grounding.quotes.off_topic, JSON.stringify(a.grounding.problems)).toBe(0);
    expect(a.content_blocks.filter((b) => b.kind === 'quote').length).toBeGreaterThan(1);
  });

  it('"in their emails" reads inbound emails only', async () => {
    const a = await ask('what are buyers begging for in their emails?');
    expect(a.interpretation?.filters).toContainEqual(expect.objectContaining({ field: 'kind', value: 'email' }));
    const quotes = a.content_blocks.flatMap((b) => (b.kind === 'quote' ? [b] : []));
    expect(quotes.length).toBeGreaterThan(0);
    const kinds = await queryRows<{ kind: string }>(
      h.database.db,
      sql`select distinct kind from interactions where id in (${sql.join(
        quotes.map((q) => sql`${q.source.interaction_id}::uuid`),
        sql`, `,
      )})`,
    );
    expect(kinds.map((k) => k.kind)).toEqual(['email']);
    expect(a.text).toContain('asks written in inbound emails');
  });

  it('"which customers asked for slack alerts" names the accounts asking, from a table the verifier re-ran', async () => {
    const a = await ask('which customers asked for slack alerts?');
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    const asking = tableOf<{ request: string; account: string }>(a, 1);
    expect(asking.length).toBeGreaterThan(0);
    expect(a.text).toContain(asking[0]!.account);
  });

  it('prospects only: no customer among the accounts counted', async () => {
    const a = await ask('what do prospects ask for in integrations');
    expect(a.interpretation?.filters).toContainEqual(
      expect.objectContaining({ field: 'audience', value: 'prospects' }),
    );
    for (const r of tableOf<{ customers: number }>(a)) expect(r.customers).toBe(0);
  });
});

describe('competitors through chat', () => {
  it.each([
    'which competitors come up the most?',
    'who are we up against',
    'competitors mentioned this year',
    'competition in our deals?',
    'whats our win rate vs competitors',
  ])('"%s" is the competitors analysis, verified', async (q) => {
    const a = await ask(q);
    expect(a.interpretation?.analysis).toBe('competitors');
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    const rows = tableOf<{ competitor: string; conversations: number }>(a);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('the ranking matches independent SQL, and the win rates are cells of the table', async () => {
    const a = await ask('which competitors come up the most?');
    const rows = tableOf<{ competitor: string; conversations: number; win_rate_pct: number | null }>(a);
    for (const r of rows.slice(0, 3)) expect(r.conversations).toBe(await mentions(r.competitor));
    const rated = rows.find((r) => r.win_rate_pct !== null)!;
    expect(a.text).toContain(`${rated.win_rate_pct}%`);
  });

  it('"in emails" counts the emails only, as independent SQL does', async () => {
    const a = await ask('competitors mentioned in emails this year');
    expect(a.interpretation?.filters).toContainEqual(expect.objectContaining({ field: 'kind', value: 'email' }));
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    const rows = tableOf<{ competitor: string; conversations: number }>(a);
    expect(rows.length).toBeGreaterThan(0);
    const thisYear = `i.occurred_at >= '2026-01-01' and i.occurred_at < '2027-01-01'`;
    for (const r of rows.slice(0, 3))
      expect(r.conversations).toBe(await mentions(r.competitor, `i.kind = 'email' and ${thisYear}`));
    expect(a.text).not.toMatch(/cannot be narrowed/);
  });

  it('a filter the analysis cannot take is said, not dropped in silence', async () => {
    const a = await ask('talk ratio by rep in emails');
    expect(a.interpretation).toMatchObject({ analysis: 'talk_ratio' });
    expect(a.interpretation?.filters).toContainEqual(expect.objectContaining({ field: 'kind', value: 'email' }));
    expect(a.text).toContain('This analysis cannot be narrowed by "email", so it covers more than you asked.');
  });

  it('one competitor named, in a quarter', async () => {
    const a = await ask('how often did competitor Quotient Labs come up in q3');
    expect(a.interpretation?.analysis).toBe('competitors');
    expect(a.interpretation?.names.competitors).toEqual(['Quotient Labs']);
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    const [row] = tableOf<{ competitor: string; conversations: number }>(a);
    expect(row!.conversations).toBe(
      await mentions('Quotient Labs', `i.occurred_at >= '2026-07-01' and i.occurred_at < '2026-10-01'`),
    );
  });
});
