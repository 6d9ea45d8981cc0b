import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Memory, sessions and the knowledge operations through the app on the demo
 * corpus with the local model. Facts are read back with SQL of their own (never with the code under
 * test): the stored row, the account it links, the interactions, turns and themes a result names.
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> =>
  (await h.pglite.client.query<T>(text, params)).rows;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Other tenant');
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const post = (path: string, body: unknown, key = ws.admin.key) => h.request<any>('POST', path, { key, body });
const fieldsOf = (body: any): string[] => body.error.details.fields.map((f: { field: string }) => f.field);

describe('remember', () => {
  it('stores the text with its source, company and vector, links the account, and counts the memory', async () => {
    const [account] = await sql<{ id: string; name: string }>(
      'select id, name from accounts where workspace_id = $1 order by name limit 1',
      [CORPUS_WORKSPACE_ID],
    );
    const text = `${account!.name} moved their renewal to the finance team in October (remember test).`;
    const res = await post('/memory', { text, source: 'kg', company_name: account!.name.toUpperCase() });
    expect(res.status, res.text).toBe(200);
    const [row] = await sql<{
      source: string;
      account_id: string;
      company_name: string;
      embedder: string;
      has_vector: boolean;
      text: string;
    }>(
      'select source, account_id, company_name, embedder, embedding is not null as has_vector, text from memory_evidence where id = $1 and workspace_id = $2',
      [res.body.data.evidenceId, CORPUS_WORKSPACE_ID],
    );
    expect(row).toMatchObject({
      source: 'kg',
      account_id: account!.id,
      text,
      embedder: h.services.embedder.id,
      has_vector: true,
    });
    const [{ n }] = (await sql<{ n: number }>(
      'select count(*)::int as n from memory_evidence where workspace_id = $1',
      [CORPUS_WORKSPACE_ID],
    )) as [{ n: number }];
    expect(res.body.data).toMatchObject({ persisted: true, totalEvidenceCount: n, accountId: account!.id });
  });

  it('stores the same text once: the second call is persisted false with the first id', async () => {
    const text = 'Security reviews stall when the SOC 2 report is older than a year (dedupe test).';
    const first = await post('/memory', { text });
    const again = await post('/memory', { text: `  ${text}  `, source: 'web' });
    expect(first.body.data.persisted).toBe(true);
    expect(again.body.data).toMatchObject({ persisted: false, evidenceId: first.body.data.evidenceId });
    const rows = await sql<{ source: string }>(
      'select source from memory_evidence where workspace_id = $1 and text = $2',
      [CORPUS_WORKSPACE_ID, text],
    );
    expect(rows).toEqual([{ source: 'web' }]);
  });

  it('refuses bad input naming the field', async () => {
    for (const [body, field] of [
      [{ text: '' }, 'text'],
      [{ text: 'x'.repeat(4001) }, 'text'],
      [{ text: 'ok', source: 'email' }, 'source'],
      [{ text: 'ok', company_name: 'c'.repeat(201) }, 'company_name'],
      [{ text: 'ok', extra: 1 }, 'extra'],
    ] as const) {
      const res = await post('/memory', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res.body)).toContain(field);
    }
    expect((await post('/memory', { text: 'x'.repeat(4000) })).status).toBe(200);
  });

  it('needs context:write (the customer agent bundle does not carry it)', async () => {
    const res = await post('/memory', { text: 'not stored' }, ws.editor.key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('scope_denied');
  });
});

describe('hybrid search', () => {
  it('finds remembered evidence by its words and conversations by meaning and words, each fact in the data', async () => {
    const remembered = await post('/memory', { text: 'Zanzibarian procurement wants quarterly invoicing.' });
    const keyword = await post('/search/hybrid', { query: 'zanzibarian invoicing', mode: 'keyword' });
    expect(keyword.status, keyword.text).toBe(200);
    const memoryHit = keyword.body.data.results.find((r: any) => r.id === remembered.body.data.evidenceId);
    expect(memoryHit).toMatchObject({
      origin: 'memory/web',
      snippets: ['Zanzibarian procurement wants quarterly invoicing.'],
    });

    const hybrid = await post('/search/hybrid', { query: 'customers worried about the price increase', limit: 8 });
    const data = hybrid.body.data;
    expect(data.sources_searched).toEqual(['conversations', 'knowledge', 'memory']);
    expect(data.resultCount).toBe(data.results.length);
    expect(data.results.length).toBeGreaterThan(0);
    expect(data.results.length).toBeLessThanOrEqual(8);
    const conversations = data.results.filter((r: any) => r.source === 'conversations');
    expect(conversations.length).toBeGreaterThan(0);
    for (const item of conversations) {
      const [row] = await sql<{ kind: string; title: string | null }>(
        'select kind, title from interactions where id = $1 and workspace_id = $2',
        [item.id, CORPUS_WORKSPACE_ID],
      );
      expect(row, item.id).toBeDefined();
      expect(item.origin).toBe(`conversations/${row!.kind}`);
      for (const ref of item.refs.filter((r: any) => r.turn_id)) {
        const turns = await sql('select 1 from transcript_turns where id = $1 and interaction_id = $2', [
          ref.turn_id,
          item.id,
        ]);
        expect(turns).toHaveLength(1);
      }
    }
  });

  it('recalls memory by meaning and by words fused by reciprocal rank, as two independent reads rank them', async () => {
    for (const text of [
      'Zorblax onboarding needs a named admin before the checklist starts.',
      'The onboarding checklist for Zorblax slipped a week (recall test).',
      'Finance asked for the onboarding invoice in euros.',
      'Zorblax renewal: procurement wants a three-year term.',
    ])
      expect((await post('/memory', { text, source: 'kg' })).status).toBe(200);
    const query = 'zorblax onboarding checklist';
    const res = await post('/search/hybrid', { query, source_type: 'memory', limit: 5 });
    expect(res.status, res.text).toBe(200);

    // The two rankings read independently: cosine distance to the query's vector, and english full text.
    const [vector] = await h.services.embedder.embed([query]);
    const literal = `[${vector!.join(',')}]`;
    const semantic = await sql<{ id: string; similarity: number }>(
      `select id, 1 - (embedding <=> $1::vector) as similarity from memory_evidence
        where workspace_id = $2 and embedder = $3 and embedding is not null
        order by embedding <=> $1::vector, id limit 5`,
      [literal, CORPUS_WORKSPACE_ID, h.services.embedder.id],
    );
    const keyword = await sql<{ id: string }>(
      `select id from memory_evidence
        where workspace_id = $1 and to_tsvector('english', text) @@ websearch_to_tsquery('english', $2)
        order by ts_rank(to_tsvector('english', text), websearch_to_tsquery('english', $2)) desc, id limit 5`,
      [CORPUS_WORKSPACE_ID, query],
    );
    expect(keyword.length).toBeGreaterThanOrEqual(2);
    const score = new Map<string, number>();
    const add = (ids: string[]) => ids.forEach((id, rank) => score.set(id, (score.get(id) ?? 0) + 1 / (60 + rank + 1)));
    add(semantic.filter((r) => Number(r.similarity) > 0).map((r) => r.id));
    add(keyword.map((r) => r.id));
    const expected = [...score]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 5)
      .map(([id, s]) => [id, Math.round(s * 1e6) / 1e6])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const got = res.body.data.results
      .map((r: any) => [r.id, r.score])
      .sort((a: any[], b: any[]) => String(a[0]).localeCompare(String(b[0])));
    // The search keeps the hits about the query (the relevance check): each one it keeps is a fused hit
    // with the score the two reads give it.
    expect(got.length).toBeGreaterThanOrEqual(3);
    expect(expected).toEqual(expect.arrayContaining(got));
    // Some texts were found by both sides: the fusion itself was exercised.
    const both = keyword.map((r) => r.id).filter((id) => semantic.some((s) => s.id === id));
    expect(both.length).toBeGreaterThan(0);
  });

  it('narrows by source_type and refuses an unknown one naming the allowed set', async () => {
    const res = await post('/search/hybrid', { query: 'pricing', source_type: 'conversations/email', mode: 'keyword' });
    expect(res.body.data.results.length).toBeGreaterThan(0);
    for (const r of res.body.data.results) expect(r.origin).toBe('conversations/email');
    const bad = await post('/search/hybrid', { query: 'pricing', source_type: 'slack' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0]).toMatchObject({ field: 'source_type' });
    expect(bad.body.error.details.fields[0].allowed).toContain('memory/web');
    for (const [body, field] of [
      [{ query: '' }, 'query'],
      [{ query: 'x', limit: 51 }, 'limit'],
      [{ query: 'x', mode: 'fuzzy' }, 'mode'],
    ] as const) {
      const r = await post('/search/hybrid', body);
      expect(r.status).toBe(400);
      expect(fieldsOf(r.body)).toContain(field);
    }
  });
});

describe('cluster search', () => {
  it('answers themes of the workspace with their labels and counts, within limit and threshold', async () => {
    const res = await post('/clusters/search', { query: 'pricing and discounts', limit: 3 });
    expect(res.status, res.text).toBe(200);
    const [{ n }] = (await sql<{ n: number }>(
      'select count(*)::int as n from themes where workspace_id = $1 and embedder = $2 and embedding is not null',
      [CORPUS_WORKSPACE_ID, h.services.embedder.id],
    )) as [{ n: number }];
    expect(res.body.data.clusters_searched).toBe(n);
    expect(res.body.data.clusters.length).toBeGreaterThan(0);
    expect(res.body.data.clusters.length).toBeLessThanOrEqual(3);
    for (const c of res.body.data.clusters) {
      const [theme] = await sql<{ label: string; member_count: number }>(
        'select label, member_count from themes where id = $1 and workspace_id = $2',
        [c.id, CORPUS_WORKSPACE_ID],
      );
      expect(theme).toMatchObject({ label: c.label, member_count: c.member_count });
    }
    const strict = await post('/clusters/search', { query: 'pricing and discounts', match_threshold: 0.9999 });
    expect(strict.body.data.clusters.every((c: any) => c.similarity >= 0.9999)).toBe(true);
    const bad = await post('/clusters/search', { query: 'x', match_threshold: 1.5 });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('match_threshold');
  });
});

describe('explore', () => {
  it('counts what the workspace holds, as SQL counts it', async () => {
    const res = await h.request<any>('GET', '/explore', {
      key: ws.admin.key,
      query: { scope: 'all', include_samples: 'false' },
    });
    expect(res.status, res.text).toBe(200);
    const count = async (table: string) =>
      (
        (
          await sql<{ n: number }>(`select count(*)::int as n from ${table} where workspace_id = $1`, [
            CORPUS_WORKSPACE_ID,
          ])
        )[0] as { n: number }
      ).n;
    const surfaces = Object.fromEntries(res.body.data.schema.surfaces.map((s: any) => [s.name, s.row_count]));
    expect(surfaces).toEqual({
      interactions: await count('interactions'),
      deals: await count('deals'),
      accounts: await count('accounts'),
    });
    expect(res.body.data.schema.surfaces[0].samples).toBeUndefined();
    const sizes = Object.fromEntries(res.body.data.knowledge.sources.map((s: any) => [s.name, s.size]));
    expect(sizes).toEqual({
      conversations: await count('interactions'),
      knowledge: await count('knowledge_nodes'),
      memory: await count('memory_evidence'),
    });
    const withSamples = await h.request<any>('GET', '/explore', { key: ws.admin.key, query: { scope: 'clusters' } });
    expect(Object.keys(withSamples.body.data)).toEqual(['scope', 'clusters']);
    expect(withSamples.body.data.clusters.samples.length).toBeGreaterThan(0);
    const bad = await h.request<any>('GET', '/explore', { key: ws.admin.key, query: { scope: 'tables' } });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('scope');
  });
});

describe('substrate query', () => {
  it('evidence_for_writing quotes only the customer side', async () => {
    const res = await post('/substrate/query', {
      intent: 'evidence_for_writing',
      query: 'security review questionnaire',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.external_only).toBe(true);
    const turnRefs = res.body.data.results.flatMap((r: any) => r.refs.filter((ref: any) => ref.turn_id));
    expect(turnRefs.length).toBeGreaterThan(0);
    for (const ref of turnRefs) {
      const [turn] = await sql<{ side: string }>('select side from transcript_turns where id = $1', [ref.turn_id]);
      expect(turn?.side).toBe('external');
    }
  });

  it('external_only keeps keyword evidence to external turns and inbound email', async () => {
    const res = await post('/substrate/query', {
      intent: 'answer_question',
      query: 'pricing',
      external_only: true,
      limit: 20,
    });
    for (const item of res.body.data.results.filter((r: any) => r.source === 'conversations')) {
      const [row] = await sql<{ kind: string; direction: string | null }>(
        'select kind, direction from interactions where id = $1',
        [item.id],
      );
      if (row!.kind === 'email') expect(row!.direction).toBe('inbound');
      for (const ref of item.refs.filter((r: any) => r.turn_id)) {
        const [turn] = await sql<{ side: string }>('select side from transcript_turns where id = $1', [ref.turn_id]);
        expect(turn?.side).toBe('external');
      }
    }
  });

  it('assess_viability states its verdict by its counted rule; research_overview counts the sources', async () => {
    const res = await post('/substrate/query', { intent: 'assess_viability', query: 'pricing is too high', limit: 10 });
    const s = res.body.data.summary;
    const accounts = new Set(res.body.data.results.flatMap((r: any) => (r.account?.name ? [r.account.name] : []))).size;
    expect(s.evidence_items).toBe(res.body.data.results.length);
    expect(s.distinct_accounts).toBe(accounts);
    const expected =
      s.evidence_items >= 5 && accounts >= 3
        ? 'strong'
        : s.evidence_items >= 2 && accounts >= 1
          ? 'moderate'
          : s.evidence_items > 0
            ? 'weak'
            : 'none';
    expect(s.verdict).toBe(expected);
    const overview = await post('/substrate/query', { intent: 'research_overview', query: 'integrations' });
    const [{ n }] = (await sql<{ n: number }>('select count(*)::int as n from interactions where workspace_id = $1', [
      CORPUS_WORKSPACE_ID,
    ])) as [{ n: number }];
    expect(overview.body.data.summary.source_sizes.conversations).toBe(n);
    const bad = await post('/substrate/query', { intent: 'guess', query: 'x' });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('intent');
  });
});

describe('only evidence about the query', () => {
  /** Whether any call, meeting, email or remembered text in the workspace holds the word, by SQL of its own. */
  const mentioned = async (word: string): Promise<boolean> => {
    const [{ n }] = (await sql<{ n: number }>(
      `select (select count(*) from transcript_turns t join interactions i on i.id = t.interaction_id
                where i.workspace_id = $1 and t.text ilike $2)
            + (select count(*) from interactions where workspace_id = $1
                and (title ilike $2 or summary ilike $2 or body ilike $2))
            + (select count(*) from memory_evidence where workspace_id = $1 and text ilike $2) as n`,
      [CORPUS_WORKSPACE_ID, `%${word}%`],
    )) as [{ n: number }];
    return Number(n) > 0;
  };

  it('a topic nothing in the data is about answers no results, not its nearest neighbours, and says so', async () => {
    expect(await mentioned('blockchain')).toBe(false);
    expect(await mentioned('ledger')).toBe(false);
    for (const mode of ['hybrid', 'semantic'] as const) {
      const res = await post('/search/hybrid', { query: 'blockchain ledger', mode });
      expect(res.status, res.text).toBe(200);
      // Before: six copies of "Sounds good, talk then." (the semantic lane's nearest neighbours).
      expect(res.body.data.results, mode).toEqual([]);
      expect(res.body.data.resultCount).toBe(0);
      expect(res.body.data.off_topic, mode).toBeGreaterThan(0);
      expect(res.body.data.notes.join(' ')).toContain('blockchain ledger');
    }
  });

  it('every snippet returned holds the topic; the items kept are the ones that do', async () => {
    const res = await post('/substrate/query', { intent: 'answer_question', query: 'onboarding', limit: 10 });
    expect(res.status, res.text).toBe(200);
    const snippets = res.body.data.results.flatMap((r: any) => r.snippets as string[]);
    expect(snippets.length).toBeGreaterThan(0);
    for (const snippet of snippets) expect(snippet).toMatch(/onboard/i);
    // Each snippet is verbatim: a turn's text, an email body or a remembered text holds it.
    for (const snippet of snippets.slice(0, 10)) {
      const [{ n }] = (await sql<{ n: number }>(
        `select (select count(*) from transcript_turns t join interactions i on i.id = t.interaction_id
                  where i.workspace_id = $1 and strpos(t.text, $2) > 0)
              + (select count(*) from interactions where workspace_id = $1 and strpos(coalesce(body, summary, ''), $2) > 0)
              + (select count(*) from memory_evidence where workspace_id = $1 and strpos(text, $2) > 0) as n`,
        [CORPUS_WORKSPACE_ID, snippet],
      )) as [{ n: number }];
      expect(Number(n), snippet).toBeGreaterThan(0);
    }
  });

  it('assess_viability does not call evidence about part of the query support for all of it', async () => {
    const res = await post('/substrate/query', {
      intent: 'assess_viability',
      query: 'customers asking for a blockchain ledger integration',
      limit: 10,
    });
    expect(res.status, res.text).toBe(200);
    const s = res.body.data.summary;
    // Before: "strong", from ten remarks about integrations in general.
    expect(['weak', 'none']).toContain(s.verdict);
    expect(s.terms_missing).toEqual(expect.arrayContaining(['blockchain', 'ledger']));
    for (const word of s.terms_found as string[]) expect(await mentioned(word), word).toBe(true);
    const whole = await post('/substrate/query', { intent: 'assess_viability', query: 'pricing is too expensive' });
    expect(whole.body.data.summary.terms_missing).toEqual([]);
  });
});

describe('ask', () => {
  it('answers through a research run whose answer the verifier passed, with the memory recalled and counted stats', async () => {
    await post('/memory', { text: 'Pricing pushback is strongest from mid-market logistics buyers (ask test).' });
    const res = await post('/ask', { query: 'Why do customers push back on pricing?' });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data.status).toBe('complete');
    const [run] = await sql<{ kind: string; status: string; workspace_id: string; answer: string }>(
      "select kind, status, workspace_id, state->'answer'->>'text' as answer from runs where id = $1",
      [data.run_id],
    );
    expect(run).toMatchObject({ kind: 'research', status: 'complete', workspace_id: CORPUS_WORKSPACE_ID });
    expect(data.answer.startsWith(run!.answer)).toBe(true);
    expect(data.memory.some((m: any) => m.text.includes('Pricing pushback is strongest'))).toBe(true);
    const [counts] = await sql<{ i: number; m: number; t: number }>(
      `select (select count(*)::int from interactions where workspace_id = $1) as i,
              (select count(*)::int from memory_evidence where workspace_id = $1) as m,
              (select count(*)::int from themes where workspace_id = $1 and embedder = $2 and embedding is not null) as t`,
      [CORPUS_WORKSPACE_ID, h.services.embedder.id],
    );
    expect(data.substrateStats).toMatchObject({ evidenceSearched: counts!.i + counts!.m, clustersSearched: counts!.t });
    const bad = await post('/ask', { query: '' });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('query');
  }, 60_000);
});

describe('sessions', () => {
  it('creates, lists, reads and deletes, as the database holds them; another workspace gets 404', async () => {
    const created = await post('/sessions', { name: 'cookbook-recipe-02', metadata: { source: 'cookbook' } });
    expect(created.status, created.text).toBe(201);
    const session = created.body.data.session;
    const [row] = await sql<{ workspace_id: string; user_id: string; name: string; metadata: unknown }>(
      'select workspace_id, user_id, name, metadata from sessions where id = $1',
      [session.id],
    );
    expect(row).toEqual({
      workspace_id: CORPUS_WORKSPACE_ID,
      user_id: ws.admin.userId,
      name: 'cookbook-recipe-02',
      metadata: { source: 'cookbook' },
    });
    expect(session).toMatchObject({ business_id: CORPUS_WORKSPACE_ID, user_id: ws.admin.userId });

    const list = await h.request<any>('GET', '/sessions', { key: ws.viewer.key });
    const [{ n }] = (await sql<{ n: number }>('select count(*)::int as n from sessions where workspace_id = $1', [
      CORPUS_WORKSPACE_ID,
    ])) as [{ n: number }];
    expect(list.body.data.total).toBe(n);
    expect(list.body.data.sessions.map((s: any) => s.id)).toContain(session.id);

    expect((await h.request<any>('GET', `/sessions/${session.id}`, { key: other.admin.key })).status).toBe(404);
    expect((await h.request<any>('DELETE', `/sessions/${session.id}`, { key: other.admin.key })).status).toBe(404);
    const read = await h.request<any>('GET', `/sessions/${session.id}`, { key: ws.viewer.key });
    expect(read.body.data.session).toEqual(session);

    const deleted = await h.request<any>('DELETE', `/sessions/${session.id}`, { key: ws.admin.key });
    expect(deleted.body.data).toEqual({ deleted: true });
    expect(await sql('select 1 from sessions where id = $1', [session.id])).toHaveLength(0);
    expect((await h.request<any>('DELETE', `/sessions/${session.id}`, { key: ws.admin.key })).status).toBe(404);

    const bad = await post('/sessions', { name: 'n'.repeat(201) });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('name');
  });
});

describe('over MCP', () => {
  it('remembers and searches through the SDK client, with the same results as REST', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': ws.admin.key } },
    });
    const client = new Client({ name: 'knowledge-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      const names = tools.tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['memory', 'context', 'sessions']));
      const remembered = (await client.callTool({
        name: 'memory',
        arguments: { action: 'remember', text: 'Quixotic onboarding checklist requested by buyers (mcp test).' },
      })) as { isError?: boolean; structuredContent?: any };
      expect(remembered.isError ?? false).toBe(false);
      const id = remembered.structuredContent.evidenceId ?? remembered.structuredContent.data?.evidenceId;
      const [row] = await sql<{ origin: string }>('select origin from memory_evidence where id = $1', [id]);
      expect(row?.origin).toBe('mcp');
      const found = (await client.callTool({
        name: 'context',
        arguments: { action: 'search', query: 'quixotic onboarding', mode: 'keyword' },
      })) as { structuredContent?: any };
      const results = found.structuredContent.results ?? found.structuredContent.data?.results;
      expect(results.map((r: any) => r.id)).toContain(id);
    } finally {
      await client.close();
    }
  });
});
