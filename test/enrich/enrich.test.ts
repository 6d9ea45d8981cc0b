import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { startFakeServer, type FakeRequest, type FakeServer } from '../support/fake-http-server.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let search: FakeServer;
const searches: FakeRequest[] = [];
/** A token with data:read and external_search:execute (the paid tiers), minted at the clock's now; ws.viewer.key holds data:read alone. */
const paid = () => ws.tokenFor(ws.viewer, ['data:read', 'external_search:execute']);
const drain = () => (h.services.queue as LocalTransport).drain();

const MARKET = [
  {
    title: 'Vendor consolidation trends',
    url: 'https://news.example/consolidation',
    snippet: 'Buyers consolidate vendors and audit renewals.',
  },
  {
    title: 'Analyst note on procurement',
    url: 'https://analyst.example/procurement',
    snippet: 'Procurement cycles lengthen across midmarket.',
  },
];

beforeAll(async () => {
  search = await startFakeServer((req, res) => {
    searches.push(req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ results: MARKET }));
  });
  h = await createHarness({
    database: await openCorpusDatabase(),
    clock,
    env: {
      EXTERNAL_SEARCH_URL: `${search.url}/search`,
      EXTERNAL_SEARCH_API_KEY: 'fake-search-key',
      ALLOW_LOOPBACK_WEBHOOKS: '1',
    },
  });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Enrich other tenant');
});
afterAll(async () => {
  await h.close();
  await h.database.close();
  await search.close();
});

const post = (path: string, body: Record<string, unknown>, auth: { key?: string; bearer?: string }) =>
  h.request('POST', path, { ...auth, body });

/** The account with the most customer utterances and a domain, with its count read by SQL. */
async function account(offset = 0) {
  const [row] = await queryRows<{ id: string; name: string; domain: string; n: number }>(
    h.database.db,
    sql`select a.id, a.name, a.domain, count(*)::int as n from accounts a
        join interactions i on i.account_id = a.id join utterances u on u.interaction_id = i.id and u.side = 'external'
        where a.workspace_id = ${ws.id} and a.domain is not null
          and (select count(*) from accounts b where b.workspace_id = a.workspace_id and lower(b.domain) = lower(a.domain)) = 1
        group by a.id order by count(*) desc, a.id offset ${offset} limit 1`,
  );
  return row!;
}

/** Each quoted text is verbatim in the turn it cites, of an interaction of this workspace (independent SQL). */
async function expectVerbatim(
  blocks: { kind: string; text?: string; source?: { turn_id: string; interaction_id: string } }[],
) {
  const quotes = blocks.filter((b) => b.kind === 'quote');
  for (const q of quotes) {
    const [turn] = await queryRows<{ text: string }>(
      h.database.db,
      sql`select t.text from transcript_turns t where t.id = ${q.source!.turn_id} and t.interaction_id = ${q.source!.interaction_id}
          and t.workspace_id = ${ws.id}`,
    );
    expect(turn?.text.replace(/\s+/g, ' ')).toContain(q.text!.replace(/\s+/g, ' '));
  }
  return quotes.length;
}

describe('POST /enrich/company', () => {
  it('on a miss reads first-party evidence; without external_search:execute it says so and queues nothing', async () => {
    const a = await account();
    const res = await post('/enrich/company', { domain: `https://www.${a.domain}/about` }, { key: ws.viewer.key });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({
      success: true,
      tier: 'first_party',
      subject: { kind: 'company', key: a.domain.toLowerCase() },
      brief: null,
      refresh_enqueued: false,
      refresh_omitted: 'missing_scope',
      refresh_run_id: null,
    });
    expect(data.evidence.matched_count).toBe(a.n);
    expect(data.evidence.utterances).toHaveLength(10);
    for (const u of data.evidence.utterances) {
      const [row] = await queryRows<{ text: string; account_id: string; side: string }>(
        h.database.db,
        sql`select u.text, i.account_id, u.side from utterances u join interactions i on i.id = u.interaction_id where u.id = ${u.utterance_id}`,
      );
      expect(row).toEqual({ text: u.text, account_id: a.id, side: 'external' });
    }
    const relevance = data.evidence.utterances.map((u: { relevance: number }) => u.relevance);
    expect([...relevance].sort((x, y) => y - x)).toEqual(relevance);
    const [interactions] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from interactions where account_id = ${a.id}`,
    );
    expect(data.evidence.aggregates).toMatchObject({ resolved_by: 'domain', interaction_count: interactions!.n });
    const [row] = await queryRows<{ n: number }>(h.database.db, sql`select count(*)::int as n from enrichment_briefs`);
    expect(row!.n).toBe(0);
  });

  it('with the scope queues one rebuild per subject, and the next call lands on the verified cached brief', async () => {
    const a = await account(1);
    const first = await post('/enrich/company', { domain: a.domain, name: a.name }, { bearer: await paid() });
    expect(first.body.data).toMatchObject({ tier: 'first_party', refresh_enqueued: true, refresh_omitted: null });
    const runId = first.body.data.refresh_run_id;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const again = await post('/enrich/company', { domain: a.domain.toUpperCase() }, { bearer: await paid() });
    expect(again.body.data).toMatchObject({ tier: 'first_party', refresh_enqueued: true, refresh_run_id: runId });
    const [runs] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from runs where kind = 'enrich.refresh' and workspace_id = ${ws.id} and input->'subject'->>'key' = ${a.domain.toLowerCase()}`,
    );
    expect(runs!.n).toBe(1);
    await drain();
    expect(searches.some((r) => new URL(r.url, 'http://x').searchParams.get('q')?.includes(a.domain))).toBe(true);
    expect(searches.at(-1)!.headers.authorization).toBe('Bearer fake-search-key');

    // A read-only key gets the cached brief too.
    const cached = await post('/enrich/company', { domain: a.domain }, { key: ws.viewer.key });
    expect(cached.status).toBe(200);
    const data = cached.body.data;
    expect(data).toMatchObject({ tier: 'cached', evidence: null, refresh_enqueued: false, refresh_omitted: null });
    expect(data.captured_at).toBe(clock.now().toISOString());
    expect(data.brief.grounding.verified).toBe(true);
    expect(data.brief.external).toEqual({ status: 'ok', provider: new URL(search.url).host, detail: null });
    expect(await expectVerbatim(data.brief.content_blocks)).toBeGreaterThan(0);
    expect(data.brief.sections.market).toContain('https://news.example/consolidation');
    expect(data.brief.citations.filter((c: { kind: string }) => c.kind === 'url')).toHaveLength(2);
    expect(data.brief.first_party_matched_count).toBe(a.n);
    const [artifact] = await queryRows<{ status: string; title: string }>(
      h.database.db,
      sql`select status, title from artifacts where id = ${data.artifact_id} and workspace_id = ${ws.id}`,
    );
    expect(artifact).toEqual({ status: 'published', title: `Company brief: ${a.name}` });
  });

  it('serves the cache for seven days, then reads first-party evidence again', async () => {
    const a = await account(1);
    await clock.advance(6 * 86_400_000);
    expect((await post('/enrich/company', { domain: a.domain }, { key: ws.viewer.key })).body.data.tier).toBe('cached');
    await clock.advance(2 * 86_400_000);
    const stale = await post('/enrich/company', { domain: a.domain }, { key: ws.viewer.key });
    expect(stale.body.data).toMatchObject({ tier: 'first_party', refresh_omitted: 'missing_scope' });
  });

  it("answers a company with no history with the empty envelope, and never another tenant's evidence", async () => {
    const none = await post('/enrich/company', { domain: 'never-heard-of.example' }, { key: ws.viewer.key });
    expect(none.status).toBe(200);
    expect(none.body.data.evidence).toMatchObject({ matched_count: 0, utterances: [] });
    const a = await account();
    const foreign = await post('/enrich/company', { domain: a.domain }, { key: other.viewer.key });
    expect(foreign.status).toBe(200);
    expect(foreign.body.data.evidence).toMatchObject({
      matched_count: 0,
      utterances: [],
      aggregates: { accounts: [] },
    });
  });

  it('blocks for the full brief with mode: full, and degrades without the scope', async () => {
    const a = await account(2);
    const degraded = await post('/enrich/company', { domain: a.domain, mode: 'full' }, { key: ws.viewer.key });
    expect(degraded.body.data).toMatchObject({ tier: 'first_party', refresh_omitted: 'missing_scope', brief: null });
    const full = await post('/enrich/company', { domain: a.domain, mode: 'full' }, { bearer: await paid() });
    expect(full.status).toBe(200);
    expect(full.body.data).toMatchObject({ tier: 'full', refresh_enqueued: false, refresh_omitted: null });
    expect(full.body.data.brief.grounding.verified).toBe(true);
    expect(await expectVerbatim(full.body.data.brief.content_blocks)).toBeGreaterThan(0);
    const [row] = await queryRows<{ artifact_id: string }>(
      h.database.db,
      sql`select artifact_id from enrichment_briefs where workspace_id = ${ws.id} and subject_kind = 'company' and subject_key = ${a.domain.toLowerCase()}`,
    );
    expect(row!.artifact_id).toBe(full.body.data.artifact_id);
  });
});

describe('POST /enrich/person', () => {
  it('refuses a bare name with invalid_argument', async () => {
    const res = await post('/enrich/person', { name: 'Jordan Lee' }, { key: ws.viewer.key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_argument');
  });

  it('reads what a contact found by email said, in the conversations they took part in', async () => {
    const [contact] = await queryRows<{ id: string; name: string; email: string; n: number }>(
      h.database.db,
      sql`select c.id, c.name, c.email, count(*)::int as n from contacts c
          join participants p on p.contact_id = c.id
          join utterances u on u.interaction_id = p.interaction_id and u.side = 'external' and u.speaker_name = c.name
          where c.workspace_id = ${ws.id} and c.email is not null
            and (select count(*) from contacts d where d.workspace_id = c.workspace_id and lower(d.email) = lower(c.email)) = 1
          group by c.id order by count(*) desc, c.id limit 1`,
    );
    const res = await post('/enrich/person', { email: contact!.email.toUpperCase() }, { key: ws.viewer.key });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({
      tier: 'first_party',
      subject: { kind: 'person', key: `mailto:${contact!.email.toLowerCase()}` },
    });
    expect(data.evidence.matched_count).toBe(contact!.n);
    for (const u of data.evidence.utterances) expect(u.speaker_name).toBe(contact!.name);
    expect(data.evidence.aggregates.contacts.map((c: { id: string }) => c.id)).toEqual([contact!.id]);
  });

  it('keys the cache on a canonical LinkedIn URL', async () => {
    const res = await post(
      '/enrich/person',
      { linkedin_url: 'linkedin.com/in/Example-Person/?trk=x', name: 'Nobody Here' },
      { key: ws.viewer.key },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      subject: { kind: 'person', key: 'https://www.linkedin.com/in/example-person' },
      evidence: { matched_count: 0, utterances: [] },
    });
    const bad = await post('/enrich/person', { linkedin_url: 'https://example.com/in/x' }, { key: ws.viewer.key });
    expect(bad.status).toBe(400);
  });
});

describe('POST /enrich/topic', () => {
  it('reads the customer sentences nearest the topic, and a full brief keeps only quotes about it', async () => {
    const fast = await post('/enrich/topic', { topic: 'security review' }, { key: ws.viewer.key });
    expect(fast.status).toBe(200);
    expect(fast.body.data.tier).toBe('first_party');
    expect(fast.body.data.evidence.matched_count).toBeGreaterThan(0);
    for (const u of fast.body.data.evidence.utterances) expect(u.speaker_type).toBe('external');
    const full = await post('/enrich/topic', { topic: 'security review', mode: 'full' }, { bearer: await paid() });
    expect(full.body.data.tier).toBe('full');
    const brief = full.body.data.brief;
    const kept = await expectVerbatim(brief.content_blocks);
    expect(brief.grounding.quotes.checked).toBe(
      kept + brief.grounding.quotes.off_topic + brief.grounding.quotes.removed,
    );
  });
});

describe('POST /enrich/topic on a topic nobody raised', () => {
  it('is the empty envelope, not the nearest sentences about other things', async () => {
    const [{ n }] = (
      await h.pglite.client.query<{ n: number }>(
        `select count(*)::int as n from utterances where workspace_id = $1 and (text ilike '%blockchain%' or text ilike '%ledger%')`,
        [ws.id],
      )
    ).rows as [{ n: number }];
    expect(n).toBe(0);
    const res = await post('/enrich/topic', { topic: 'blockchain ledger' }, { key: ws.viewer.key });
    expect(res.status, res.text).toBe(200);
    // Before: the customer sentences nearest by meaning, with first/last "mentioned" dates, for a topic nobody mentioned.
    expect(res.body.data.evidence).toMatchObject({ matched_count: 0, utterances: [] });
    expect(res.body.data.evidence.aggregates.first_mentioned_at).toBeNull();
    expect(res.body.data.evidence.aggregates.off_topic).toBeGreaterThan(0);
  });
});

describe('the enrich MCP tool', () => {
  it('answers the company action like REST', async () => {
    const res = await h.fetch('/api/platform/v1/mcp', {
      method: 'POST',
      headers: {
        'x-api-key': ws.viewer.key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'enrich', arguments: { action: 'company', domain: 'never-heard-of.example' } },
      }),
    });
    const text = await res.text();
    expect(text).toContain('\\"tier\\":\\"first_party\\"');
    expect(text).toContain('\\"refresh_omitted\\":\\"missing_scope\\"');
  });
});
