import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import type { SearchResponse } from '../../functions/search/response.js';
import { compileSemanticFilters, filteredUtterances } from '../../functions/search/semantic-filters.js';
import { readUtteranceMatches } from '../../functions/search/semantic-utterances.js';
import { vectorLiteral } from '../../functions/search/semantic-format.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import { ensureVectorIndexes } from '../../platform/db/vector-indexes.js';
import { textHash } from '../../platform/text-hash.js';
import { accounts, interactions, utterances, utteranceVectors } from '../../schema/index.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Filters inside the semantic lane: every filter that applies to an utterance narrows the vector
 * search itself, so the rows are the nearest of the filtered set (as many as asked while the set
 * holds them), checked against an exact filtered scan written here in SQL.
 */

const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  ws = await h.corpusWorkspace();
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

interface Row extends Record<string, unknown> {
  id: string;
  interaction_id: string;
  account_id: string | null;
  occurred_at: string;
  speaker: string | null;
  similarity: number;
}
const rowsOf = (data: SearchResponse) => data.results as Row[];

async function search(body: Record<string, unknown>, key = ws.viewer.key) {
  await clock.advance(120_000);
  return h.request<{ data: SearchResponse; error?: { code: string; details: unknown } }>('POST', '/search/query', {
    key,
    body,
  });
}
async function searchOk(body: Record<string, unknown>, key?: string): Promise<SearchResponse> {
  const res = await search(body, key);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const embed = async (text: string): Promise<number[]> => (await h.services.embedder.embed([text]))[0] as number[];

/**
 * The exact answer: every external utterance of the workspace the predicate keeps, by cosine
 * distance to the query (ties by id), the first `k`. Written independently of the lane's SQL.
 */
async function exactFiltered(workspaceId: string, query: string, where: SQL, k: number) {
  const literal = vectorLiteral(await embed(query));
  return queryRows<{ id: string; similarity: number }>(
    h.database.db,
    sql`select u.id, 1 - (v.embedding <=> ${literal}::vector) as similarity
        from utterances u
        join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
        join interactions i on i.id = u.interaction_id
        where u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder = ${h.services.embedder.id} and ${where}
        order by v.embedding <=> ${literal}::vector, u.id
        limit ${k}`,
  );
}

/** The corpus account with the most external utterances (a filter on it must still fill the limit). */
async function busiestAccount(): Promise<{ id: string; name: string; n: number }> {
  const [row] = await queryRows<{ id: string; name: string; n: number }>(
    h.database.db,
    sql`select a.id, a.name, count(*)::int as n from utterances u join interactions i on i.id = u.interaction_id
        join accounts a on a.id = i.account_id
        where u.workspace_id = ${ws.id} and u.side = 'external' and u.embedder is not null
        group by a.id, a.name order by n desc, a.id limit 1`,
  );
  if (!row) throw new Error('the corpus has no account with speech');
  return row;
}

const QUERY = 'the price is too high for our budget';

describe('filters inside the semantic lane', () => {
  it('scopes to one account: only its utterances, still k of them, the exact top k of the filtered set', async () => {
    const account = await busiestAccount();
    expect(account.n).toBeGreaterThan(40);
    const unfiltered = await searchOk({ query: QUERY, mode: 'semantic', limit: 10 });
    // Without the filter other accounts answer: the filter has something to remove.
    expect(rowsOf(unfiltered).some((r) => r.account_id !== account.id)).toBe(true);

    const data = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 10,
      filters: [{ field: 'account_id', op: 'eq', value: account.id }],
    });
    const rows = rowsOf(data);
    expect(rows).toHaveLength(10);
    for (const r of rows) expect(r.account_id).toBe(account.id);
    expect(data.corpus.filters_applied).toBe(true);
    expect(data.corpus.ignored_params).not.toContain('filters');
    const exact = await exactFiltered(ws.id, QUERY, sql`i.account_id = ${account.id}`, 10);
    expect(rows.map((r) => r.id)).toEqual(exact.map((e) => e.id));
    expect(data.compiled.sql).toContain(`account_id = '${account.id}'`);
    // Documents are not on an account: the knowledge bank is not searched under filters.
    expect(data.corpus.knowledge).toMatchObject({ searched: false });
  });

  it('scopes by account name through the same vocabulary as the filter lane', async () => {
    const account = await busiestAccount();
    const data = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 5,
      filters: [{ field: 'account_name', op: 'eq', value: account.name }],
    });
    expect(rowsOf(data)).toHaveLength(5);
    for (const r of rowsOf(data)) expect(r.account_id).toBe(account.id);
  });

  it('scopes to a period: every row inside it, the exact top k of the period', async () => {
    const from = new Date(CORPUS_NOW.getTime() - 120 * 86_400_000).toISOString();
    const to = new Date(CORPUS_NOW.getTime() - 90 * 86_400_000).toISOString();
    const data = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 10,
      filters: [
        { field: 'occurred_at', op: 'gte', value: from },
        { field: 'occurred_at', op: 'lt', value: to },
      ],
    });
    const rows = rowsOf(data);
    expect(rows).toHaveLength(10);
    for (const r of rows) {
      expect(Date.parse(r.occurred_at)).toBeGreaterThanOrEqual(Date.parse(from));
      expect(Date.parse(r.occurred_at)).toBeLessThan(Date.parse(to));
    }
    const exact = await exactFiltered(ws.id, QUERY, sql`i.occurred_at >= ${from} and i.occurred_at < ${to}`, 10);
    expect(rows.map((r) => r.id)).toEqual(exact.map((e) => e.id));
    expect(data.corpus.filters_applied).toBe(true);
  });

  it('applies account and period together, and kind', async () => {
    const account = await busiestAccount();
    const from = new Date(CORPUS_NOW.getTime() - 365 * 86_400_000).toISOString();
    const data = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 8,
      filters: [
        { field: 'account_id', op: 'eq', value: account.id },
        { field: 'occurred_at', op: 'gte', value: from },
        { field: 'kind', op: 'in', value: ['call', 'meeting'] },
      ],
    });
    const exact = await exactFiltered(
      ws.id,
      QUERY,
      sql`i.account_id = ${account.id} and i.occurred_at >= ${from} and i.kind in ('call', 'meeting')`,
      8,
    );
    expect(exact.length).toBeGreaterThan(0);
    expect(rowsOf(data).map((r) => r.id)).toEqual(exact.map((e) => e.id));
  });

  it('applies the speaker side and the speaker: internal speech is not in the store, so it finds none', async () => {
    const external = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 10,
      filters: [{ field: 'side', op: 'eq', value: 'external' }],
    });
    const plain = await searchOk({ query: QUERY, mode: 'semantic', limit: 10 });
    expect(rowsOf(external).map((r) => r.id)).toEqual(rowsOf(plain).map((r) => r.id));
    expect(external.corpus.filters_applied).toBe(true);

    const internal = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 10,
      filters: [{ field: 'side', op: 'eq', value: 'internal' }],
    });
    expect(internal.results).toEqual([]);
    expect(internal.corpus).toMatchObject({ filters_applied: true, empty_reason: 'no_match' });

    const speaker = String(rowsOf(plain)[0]?.speaker);
    const bySpeaker = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 5,
      filters: [{ field: 'speaker', op: 'eq', value: speaker }],
    });
    expect(rowsOf(bySpeaker).length).toBeGreaterThan(0);
    for (const r of rowsOf(bySpeaker)) expect(r.speaker).toBe(speaker);
  });

  it('names a filter that cannot apply to an utterance in ignored_params and applies the rest', async () => {
    const account = await busiestAccount();
    const data = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 5,
      filters: [
        { field: 'amount', op: 'gt', value: 1000 },
        { field: 'account_id', op: 'eq', value: account.id },
        { field: 'criterion', op: 'eq', value: 'champion' },
      ],
    });
    expect(data.corpus.ignored_params).toEqual(['filters.0', 'filters.2']);
    expect(data.corpus.filters_applied).toBe(true);
    for (const r of rowsOf(data)) expect(r.account_id).toBe(account.id);

    const none = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 5,
      filters: [{ field: 'is_won', op: 'eq', value: true }],
    });
    expect(none.corpus.ignored_params).toEqual(['filters.0']);
    expect(none.corpus.filters_applied).toBe(false);
    expect(none.results).toHaveLength(5);
  });

  it('refuses a field no surface has, a wrong operator or value with 400 naming the filter', async () => {
    const unknown = await search({
      query: QUERY,
      mode: 'semantic',
      filters: [
        { field: 'kind', op: 'eq', value: 'call' },
        { field: 'acount_id', op: 'eq', value: randomUUID() },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.code).toBe('invalid_argument');
    expect(JSON.stringify(unknown.body.error?.details)).toContain('filters.1.field');

    const badValue = await search({
      query: QUERY,
      mode: 'semantic',
      filters: [{ field: 'occurred_at', op: 'gte', value: 'last tuesday' }],
    });
    expect(badValue.status).toBe(400);
    expect(JSON.stringify(badValue.body.error?.details)).toContain('filters.0.value');

    const badOp = await search({
      query: QUERY,
      mode: 'semantic',
      filters: [{ field: 'side', op: 'contains', value: 'ext' }],
    });
    expect(badOp.status).toBe(400);
    expect(JSON.stringify(badOp.body.error?.details)).toContain('filters.0.op');
  });

  it('keeps tenants apart: another workspace’s account id finds nothing here, and its speech never leaks', async () => {
    // Workspace B says, word for word, what the corpus workspace's top match says, on B's own account.
    const plain = await searchOk({ query: QUERY, mode: 'semantic', limit: 1 });
    const [top] = await queryRows<{ text: string }>(
      h.database.db,
      sql`select text from utterances where id = ${rowsOf(plain)[0]?.id}`,
    );
    const other = await h.seedWorkspace('Semantic filters tenant B');
    const otherAccount = randomUUID();
    const interactionId = randomUUID();
    const text = String(top?.text);
    await h.database.db.insert(accounts).values({ id: otherAccount, workspaceId: other.id, name: 'B only' });
    await h.database.db.insert(interactions).values({
      id: interactionId,
      workspaceId: other.id,
      kind: 'call',
      title: 'B call',
      accountId: otherAccount,
      occurredAt: new Date(CORPUS_NOW.getTime() - 86_400_000),
      source: 'gong',
    });
    await h.database.db.insert(utterances).values({
      id: randomUUID(),
      workspaceId: other.id,
      interactionId,
      utteranceIndex: 0,
      side: 'external',
      speakerName: 'B speaker',
      text,
      embedder: h.services.embedder.id,
      occurredAt: new Date(CORPUS_NOW.getTime() - 86_400_000),
    });
    await h.database.db.insert(utteranceVectors).values({
      workspaceId: other.id,
      embedder: h.services.embedder.id,
      textHash: textHash(text),
      embedding: await embed(text),
    });

    const crossTenant = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 10,
      filters: [{ field: 'account_id', op: 'eq', value: otherAccount }],
    });
    expect(crossTenant.results).toEqual([]);
    const byName = await searchOk({
      query: QUERY,
      mode: 'semantic',
      limit: 10,
      filters: [{ field: 'account_name', op: 'eq', value: 'B only' }],
    });
    expect(byName.results).toEqual([]);

    const fromB = await searchOk(
      { query: QUERY, mode: 'semantic', limit: 10, filters: [{ field: 'account_id', op: 'eq', value: otherAccount }] },
      other.viewer.key,
    );
    expect(rowsOf(fromB).map((r) => r.interaction_id)).toEqual([interactionId]);
  });

  it('finds the same rows by the exact filtered scan and by the nearest-neighbour read', async () => {
    const account = await busiestAccount();
    const { filter } = compileSemanticFilters([{ field: 'account_id', op: 'eq', value: account.id }], ws.id);
    const literal = vectorLiteral(await embed(QUERY));
    const read = (scan: 'nearest' | 'exact_filtered') =>
      readUtteranceMatches(h.database.db, ws.id, h.services.embedder.id, literal, 12, filter, { scan });
    const exact = await read('exact_filtered');
    const nearest = await read('nearest');
    expect(exact.scan).toBe('exact_filtered');
    expect(nearest.scan).toBe('nearest');
    expect(exact.matches).toHaveLength(12);
    expect(nearest.matches.map((m) => m.id)).toEqual(exact.matches.map((m) => m.id));
  });

  it('runs the same filtered query over MCP', async () => {
    const account = await busiestAccount();
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: async (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': ws.viewer.key } },
    });
    const client = new Client({ name: 'semantic-filters-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      await clock.advance(120_000);
      const result = (await client.callTool({
        name: 'search',
        arguments: {
          action: 'query',
          query: QUERY,
          mode: 'semantic',
          limit: 6,
          filters: [{ field: 'account_id', op: 'eq', value: account.id }],
        },
      })) as { isError?: boolean; structuredContent?: SearchResponse };
      expect(result.isError).toBeFalsy();
      const data = result.structuredContent as SearchResponse;
      expect(data.corpus.filters_applied).toBe(true);
      expect(rowsOf(data)).toHaveLength(6);
      for (const r of rowsOf(data)) expect(r.account_id).toBe(account.id);
    } finally {
      await client.close();
    }
  });
});

// Last: it builds the HNSW index (the corpus is below the size that builds it on a load).
describe('with the HNSW index', () => {
  it('walks the index with the filter inside and finds the exact filtered top k', async () => {
    await ensureVectorIndexes(h.database.db, { force: true });
    // A broad filter (most speech is in calls and meetings): the planner walks the index for it.
    const broad = [{ field: 'kind', op: 'in' as const, value: ['call', 'meeting'] }];
    const { filter } = compileSemanticFilters(broad, ws.id);
    if (!filter) throw new Error('the kind filter applies');
    const literal = vectorLiteral(await embed(QUERY));
    const plan = await h.database.db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
      return queryRows<{ 'QUERY PLAN': string }>(
        tx,
        sql`explain select v.text_hash from utterance_vectors v
            where v.workspace_id = ${ws.id} and v.embedder = ${h.services.embedder.id}
              and exists (select 1 ${filteredUtterances(filter, ws.id, h.services.embedder.id)} and u.text_hash = v.text_hash)
            order by v.embedding <=> ${literal}::vector limit 12`,
      );
    });
    // Not vacuous: the read below is the index walk, not a scan the planner chose instead.
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/utterance_vectors_embedding_hnsw_idx/);
    const walk = await readUtteranceMatches(h.database.db, ws.id, h.services.embedder.id, literal, 12, filter, {
      scan: 'nearest',
    });
    const exact = await exactFiltered(ws.id, QUERY, sql`i.kind in ('call', 'meeting')`, 12);
    expect(walk.matches).toHaveLength(12);
    expect(walk.matches.map((m) => m.id)).toEqual(exact.map((e) => e.id));

    // The lane itself, through HTTP, now over the index: the same rows.
    const data = await searchOk({ query: QUERY, mode: 'semantic', limit: 12, filters: broad });
    expect(rowsOf(data).map((r) => r.id)).toEqual(exact.map((e) => e.id));
  }, 180_000); // the index build: a few seconds alone, far longer on a busy machine
});
