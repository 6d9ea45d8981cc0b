import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleResponse } from '../../functions/search/assemble.js';
import { runFuzzyLane } from '../../functions/search/fuzzy-lane.js';
import { SEARCH_JOB_KIND } from '../../functions/search/jobs.js';
import type { SearchRequest } from '../../functions/search/request.js';
import { SearchResponseSchema } from '../../functions/search/response.js';
import { resolveSearch } from '../../functions/search/validate.js';
import type { Services } from '../../functions/services.js';
import { ManualClock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import type { ModelProvider } from '../../platform/model/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { accounts, excludedInteractions, interactions, transcriptTurns } from '../../schema/index.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { failingDb, searchClient } from '../support/search-client.js';

/**
 * The fuzzy lane end to end over the deterministic demo corpus: planning, full-text and trigram
 * matching, the data scope, every empty_reason, the corpus block, the async job round trip, and
 * tenant isolation. Figures are checked against independent SQL on the same database.
 */

const DAY_MS = 86_400_000;
const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;
let empty: SeededWorkspace;
let tenantB: SeededWorkspace;
let client: ReturnType<typeof searchClient>;

/** Words that occur nowhere in the generated corpus. */
const VISIBLE_WORD = 'plumbago';
const EXCLUDED_WORD = 'quillwort';
const TENANT_B_WORD = 'zqvortex';

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  ws = await h.corpusWorkspace();
  empty = await h.seedWorkspace('Empty fuzzy workspace');
  tenantB = await h.seedWorkspace('Tenant B fuzzy workspace');
  client = searchClient(h, clock, () => ws.viewer.key);

  const at = new Date(CORPUS_NOW.getTime() - 3 * DAY_MS);
  const visible = newId();
  const excluded = newId();
  await h.database.db.insert(interactions).values([
    {
      id: visible,
      workspaceId: ws.id,
      kind: 'call',
      title: 'Roadmap sync',
      occurredAt: at,
      source: 'gong',
      durationSeconds: 900,
    },
    {
      id: excluded,
      workspaceId: ws.id,
      kind: 'email',
      title: `About ${EXCLUDED_WORD}`,
      body: `The ${EXCLUDED_WORD} plan.`,
      occurredAt: at,
      source: 'gmail',
      direction: 'inbound',
    },
  ]);
  await h.database.db.insert(transcriptTurns).values({
    id: newId(),
    workspaceId: ws.id,
    interactionId: visible,
    turnIndex: 0,
    side: 'external',
    speakerName: 'Buyer',
    text: `Our ${VISIBLE_WORD} rollout starts next month.`,
    occurredAt: at,
  });
  await h.database.db
    .insert(excludedInteractions)
    .values({ workspaceId: ws.id, interactionId: excluded, reason: 'legal_hold' });

  // Tenant B: one account and one call with its own word, 200 days old (its data is behind).
  const bAt = new Date(CORPUS_NOW.getTime() - 200 * DAY_MS);
  const bAccount = newId();
  const bCall = newId();
  await h.database.db
    .insert(accounts)
    .values({ id: bAccount, workspaceId: tenantB.id, name: 'Acme Tenant B', type: 'customer' });
  await h.database.db.insert(interactions).values({
    id: bCall,
    workspaceId: tenantB.id,
    kind: 'call',
    title: `Pricing ${TENANT_B_WORD}`,
    accountId: bAccount,
    occurredAt: bAt,
    source: 'gong',
  });
  await h.database.db.insert(transcriptTurns).values({
    id: newId(),
    workspaceId: tenantB.id,
    interactionId: bCall,
    turnIndex: 0,
    side: 'external',
    text: `The ${TENANT_B_WORD} pricing is too high.`,
    occurredAt: bAt,
  });
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const sqlRows = async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
  (await h.pglite.client.query<T>(text, params)).rows;
const IN_SCOPE =
  'not exists (select 1 from excluded_interactions x where x.workspace_id = i.workspace_id and x.interaction_id = i.id)';

/** Independent: in-scope interactions whose text or turns match the full-text query, or whose title is close to the words. */
async function independentMatches(words: string, extra = 'true', params: unknown[] = []): Promise<Set<string>> {
  const each = words.includes(' or ') ? 'bool_or' : 'bool_and';
  const rows = await sqlRows<{ id: string }>(
    `select i.id from interactions i
     where i.workspace_id = $1 and ${IN_SCOPE} and (${extra}) and (
       i.search_tsv @@ websearch_to_tsquery('english', $2)
       or exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.search_tsv @@ websearch_to_tsquery('english', $2))
       or (word_similarity(regexp_replace($2, ' or ', ' ', 'g'), i.title) >= 0.3 and (select ${each}(exists (
             select 1 from regexp_split_to_table(lower(i.title), '[^[:alnum:]]+') w where similarity(w, term) >= 0.25))
           from unnest(regexp_split_to_array(regexp_replace($2, ' or ', ' ', 'g'), ' ')) as term)))`,
    [CORPUS_WORKSPACE_ID, words, ...params],
  );
  return new Set(rows.map((r) => r.id));
}

/** The lane and the assembler without HTTP, on any services (a failing database, a failing model). */
async function runDirect(request: SearchRequest, services: Services = h.services) {
  const { search, ignored } = await resolveSearch(request, services.model);
  const now = services.clock.now();
  const outcome = await runFuzzyLane({
    services,
    workspaceId: ws.id,
    search,
    now,
    signal: new AbortController().signal,
  });
  return SearchResponseSchema.parse(await assembleResponse(services, ws.id, search, outcome, ignored, now));
}

describe('routing and matching', () => {
  it('routes lookup wording in auto mode to the fuzzy lane, planned into subqueries it reports', async () => {
    const data = await client.ok({ query: 'calls with Acme about pricing last quarter' });
    expect(data.mode_ran).toBe('fuzzy');
    const plan = data.detail.internal.plan!;
    expect(plan.planner).toBe('local');
    expect(plan.date_phrase).toBe('last quarter');
    expect(plan.accounts.map((a) => a.asked)).toEqual(['Acme']);
    expect(plan.accounts[0]!.matched.map((a) => a.name)).toEqual(['Acme Health', 'Acme Logistics']);
    expect(plan.subqueries).toEqual([
      {
        terms: ['pricing'],
        match: 'all',
        phrases: [],
        accounts: ['Acme'],
        kinds: ['call'],
        fields: [],
        since: '2026-07-01T00:00:00.000Z',
        until: '2026-10-01T00:00:00.000Z',
        matched: data.corpus.match_count,
      },
    ]);

    const acme = plan.accounts[0]!.matched.map((a) => a.id);
    const expected = await independentMatches(
      'pricing',
      `i.kind = 'call' and i.account_id = any($3::uuid[]) and i.occurred_at >= '2026-07-01' and i.occurred_at < '2026-10-01'`,
      [acme],
    );
    expect(expected.size).toBeGreaterThan(0);
    expect(new Set(data.results.map((r) => r.id))).toEqual(expected);
    for (const row of data.results) {
      expect(row).toMatchObject({ kind: 'call' });
      expect(acme).toContain(row.account_id);
      expect(String(row.account_name)).toMatch(/^Acme /);
    }
  });

  it('returns full interaction rows, best score first, with the turns that matched', async () => {
    const data = await client.ok({ query: 'security review and SOC 2 report', mode: 'fuzzy', limit: 20 });
    expect(data.results).toHaveLength(20);
    const scores = data.results.map((r) => r.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const top = data.results[0]!;
    expect(Object.keys(top).sort()).toEqual(
      [
        'id',
        'kind',
        'title',
        'occurred_at',
        'duration_seconds',
        'direction',
        'source',
        'thread_id',
        'summary',
        'body',
        'participant_count',
        'external_participant_count',
        'account_id',
        'account_name',
        'account_type',
        'deal_id',
        'deal_name',
        'deal_stage',
        'score',
        'matched_subqueries',
        'matching_turns',
      ].sort(),
    );
    // A row answering every facet ranks above rows answering one.
    expect(top.matched_subqueries).toEqual([1, 2, 3]);
    for (const row of data.results) {
      const turns = row.matching_turns as { turn_id: string; text: string; turn_index: number; side: string }[];
      if (row.kind === 'email') expect(turns).toEqual([]);
      expect(turns.length).toBeLessThanOrEqual(3);
      for (const t of turns) expect(t.text.toLowerCase()).toMatch(/secur|review|soc|report/);
      // Each matching turn names its transcript turn, so a quote from it can cite (and be checked against) the turn.
      for (const t of turns)
        expect(Object.keys(t).sort()).toEqual(['side', 'speaker_name', 'text', 'turn_id', 'turn_index']);
    }
    expect(data.corpus).toMatchObject({
      store: 'warehouse',
      grain: 'row',
      content: 'full',
      filters_applied: false,
      audience_applied: false,
      truncated: true,
    });
    expect(data.corpus.surface).toBeUndefined();
    const union = new Set([
      ...(await independentMatches('security review')),
      ...(await independentMatches('soc report')),
      ...(await independentMatches('security or review')),
    ]);
    expect(data.corpus.match_count).toBe(union.size);
    expect(data.detail.internal.rows).toBe(union.size);
  });

  it('reads field restrictions from the wording and applies them as bound predicates', async () => {
    const cases: {
      query: string;
      field: Record<string, unknown>;
      holds: (row: Record<string, unknown>) => boolean;
      sql: string;
    }[] = [
      {
        query: 'inbound emails about pricing',
        field: { field: 'direction', op: 'eq', value: 'inbound' },
        holds: (r) => r.direction === 'inbound' && r.kind === 'email',
        sql: `i.direction = 'inbound' and i.kind = 'email'`,
      },
      {
        query: 'calls longer than 45 minutes about the security review',
        field: { field: 'duration_seconds', op: 'gt', value: 2700 },
        holds: (r) => Number(r.duration_seconds) > 2700,
        sql: `i.duration_seconds > 2700 and i.kind = 'call'`,
      },
      {
        query: 'meetings on zoom about onboarding',
        field: { field: 'source', op: 'eq', value: 'zoom' },
        holds: (r) => r.source === 'zoom',
        sql: `i.source = 'zoom' and i.kind = 'meeting'`,
      },
      {
        query: 'pricing calls for deals in negotiation',
        field: { field: 'deal_stage', op: 'eq', value: 'negotiation' },
        holds: (r) => r.deal_stage === 'negotiation',
        sql: `i.kind = 'call' and exists (select 1 from deals d where d.id = i.deal_id and d.stage = 'negotiation')`,
      },
      {
        query: 'calls with investors about growth',
        field: { field: 'account_type', op: 'eq', value: 'investor' },
        holds: (r) => r.account_type === 'investor',
        sql: `i.kind = 'call' and exists (select 1 from accounts a where a.id = i.account_id and a.type = 'investor')`,
      },
    ];
    for (const c of cases) {
      const data = await client.ok({ query: c.query, mode: 'fuzzy', limit: 1000 });
      const sq = data.detail.internal.plan!.subqueries[0]!;
      expect(sq.fields, c.query).toEqual([c.field]);
      expect(data.results.length, c.query).toBeGreaterThan(0);
      for (const row of data.results)
        expect(c.holds(row), `${c.query}: ${JSON.stringify(row).slice(0, 200)}`).toBe(true);
      const words = sq.terms.join(sq.match === 'all' ? ' ' : ' or ');
      const expected = await independentMatches(words, c.sql);
      const ids = new Set(data.results.filter((r) => (r.matched_subqueries as number[]).includes(1)).map((r) => r.id));
      expect(ids, c.query).toEqual(expected);
    }
  });

  it('matches a title through typos by trigram similarity', async () => {
    const data = await client.ok({ query: 'secuirty reveiw', mode: 'fuzzy' });
    expect(data.results.length).toBeGreaterThan(0);
    for (const row of data.results) expect(String(row.title)).toMatch(/Security review/);
  });

  it('resolves each company named to its own accounts only: exact name, whole words, or the closest misspelling', async () => {
    const resolve = async (query: string) =>
      (await client.ok({ query, mode: 'fuzzy', limit: 1000 })).detail.internal.plan!.accounts.map((a) => [
        a.asked,
        a.matched.map((m) => m.name),
      ]);
    expect(await resolve('calls with Acme Logistics about pricing')).toEqual([['Acme Logistics', ['Acme Logistics']]]);
    expect(await resolve('calls with Acme about pricing')).toEqual([['Acme', ['Acme Health', 'Acme Logistics']]]);
    expect(await resolve('calls with Acme Logistcs about pricing')).toEqual([['Acme Logistcs', ['Acme Logistics']]]);
    expect(await resolve('renewal discussions with Acme Health or Tidewater Logistics')).toEqual([
      ['Acme Health', ['Acme Health']],
      ['Tidewater Logistics', ['Tidewater Logistics']],
    ]);
    const both = await client.ok({
      query: 'renewal discussions with Acme Health or Tidewater Logistics',
      mode: 'fuzzy',
      limit: 1000,
    });
    expect(both.results.length).toBeGreaterThan(0);
    for (const row of both.results) expect(['Acme Health', 'Tidewater Logistics']).toContain(row.account_name);
  });

  it('searches a company that is no account as words, and quoted phrases exactly', async () => {
    const sf = await client.ok({ query: 'Salesforce sync duplicates', mode: 'fuzzy', max_subqueries: 1 });
    expect(sf.detail.internal.plan!.accounts).toEqual([{ asked: 'Salesforce', matched: [] }]);
    expect(sf.detail.message).toContain('No account is named like "Salesforce", so its words were searched as text.');
    expect(sf.detail.internal.plan!.subqueries[0]!.terms).toEqual(['salesforce', 'sync', 'duplicates']);
    expect(new Set(sf.results.map((r) => r.id))).toEqual(await independentMatches('salesforce sync duplicates'));

    const phrase = await client.ok({ query: '"budget freeze" emails', mode: 'fuzzy', limit: 1000 });
    const expected = await sqlRows<{ id: string }>(
      `select i.id from interactions i where i.workspace_id = $1 and ${IN_SCOPE} and i.kind = 'email' and i.search_tsv @@ phraseto_tsquery('english', 'budget freeze')`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(new Set(phrase.results.map((r) => r.id))).toEqual(new Set(expected.map((r) => r.id)));
  });

  it('an ask without words lists the kind and window asked for, newest first', async () => {
    const data = await client.ok({ query: 'meetings in may 2026', mode: 'fuzzy', limit: 1000 });
    const expected = await sqlRows<{ id: string }>(
      `select i.id from interactions i where i.workspace_id = $1 and ${IN_SCOPE} and i.kind = 'meeting' and i.occurred_at >= '2026-05-01' and i.occurred_at < '2026-06-01' order by i.occurred_at desc, i.id`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(data.results.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    expect(data.corpus.coverage).toMatchObject({
      basis: 'matched_set',
      dated_row_count: expected.length,
      min_timestamp: expect.stringMatching(/^2026-05/),
      max_timestamp: expect.stringMatching(/^2026-05/),
    });
  });

  it('treats SQL in the query as data', async () => {
    const data = await client.ok({ query: "pricing'; drop table interactions; --", mode: 'fuzzy' });
    expect(data.success).toBe(true);
    expect(
      (
        await sqlRows<{ n: number }>('select count(*)::int as n from interactions where workspace_id = $1', [
          CORPUS_WORKSPACE_ID,
        ])
      )[0]!.n,
    ).toBeGreaterThan(1000);
  });
});

describe('validation and ignored params', () => {
  it('refuses customer_voice, too many subqueries without async, and a fuzzy ask without a query', async () => {
    expect(
      (await client.rejects({ query: 'pricing', mode: 'fuzzy', audience: 'customer_voice' }, 'audience')).code,
    ).toBe('unsupported');
    expect((await client.rejects({ query: 'pricing', mode: 'fuzzy', max_subqueries: 6 }, 'max_subqueries')).code).toBe(
      'too_big',
    );
    await client.rejects({ query: 'pricing', mode: 'fuzzy', async: true, max_subqueries: 13 }, 'max_subqueries');
    await client.rejects({ mode: 'fuzzy', filters: [{ field: 'kind', op: 'eq', value: 'call' }] }, 'query');
  });

  it('lists surface, filters and hydrate as ignored, and never applies filters', async () => {
    const data = await client.ok({
      query: 'pricing',
      mode: 'fuzzy',
      surface: 'deals',
      hydrate: true,
      filters: [{ field: 'kind', op: 'eq', value: 'email' }],
      limit: 5,
    });
    expect(data.corpus.ignored_params).toEqual(['filters', 'hydrate', 'surface']);
    expect(data.corpus.filters_applied).toBe(false);
    expect(data.results.some((r) => r.kind !== 'email')).toBe(true);
  });
});

describe('data scope and empty_reason', () => {
  it('drops excluded interactions; when only those match, the answer is scope_disjoint', async () => {
    const visible = await client.ok({ query: VISIBLE_WORD, mode: 'fuzzy' });
    expect(visible.results.map((r) => r.title)).toEqual(['Roadmap sync']);
    expect((visible.results[0]!.matching_turns as { text: string }[])[0]!.text).toContain(VISIBLE_WORD);

    const excluded = await client.ok({ query: EXCLUDED_WORD, mode: 'fuzzy' });
    expect(excluded.results).toEqual([]);
    expect(excluded.corpus.empty_reason).toBe('scope_disjoint');
    expect(excluded.detail.internal.status).toBe('empty');
  });

  it('no_match when the data covers the ask and nothing matches', async () => {
    const data = await client.ok({ query: 'xylophonequartzite', mode: 'fuzzy' });
    expect(data.results).toEqual([]);
    expect(data.corpus.empty_reason).toBe('no_match');
    expect(data.corpus.coverage).toMatchObject({
      basis: 'unavailable',
      basis_reason: 'no_rows',
      dated_row_count: 0,
      max_timestamp: null,
    });
    expect(data.detail.message).toMatch(/No rows matched/);
    expect(data.detail.message).toContain('Searched calls, meetings, emails and posts for [xylophonequartzite].');
  });

  it('no_match without reading anything when the query names nothing to search for', async () => {
    for (const query of ['the', '??? !!!', 'show me all of them']) {
      const data = await client.ok({ query, mode: 'fuzzy' });
      expect(data.results, query).toEqual([]);
      expect(data.corpus.empty_reason).toBe('no_match');
      expect(data.detail.message).toMatch(/names nothing to search for/);
    }
  });

  it('scope_disjoint when the asked window lies outside the data’s span', async () => {
    const data = await client.ok({ query: 'pricing calls with Acme in 2019', mode: 'fuzzy' });
    expect(data.corpus.empty_reason).toBe('scope_disjoint');
    expect(data.detail.message).toContain(
      'Searched calls with Acme Health, Acme Logistics from 2019-01-01 to before 2020-01-01 for [pricing].',
    );
  });

  it('not_synced in an empty workspace, with success and an empty coverage', async () => {
    const data = await client.ok({ query: 'pricing objections', mode: 'fuzzy' }, empty.viewer.key);
    expect(data.corpus.empty_reason).toBe('not_synced');
    expect(data.detail.coverage).toMatchObject({ total_rows: 0, latest_event_at: null });
  });

  it('read_failed (never a 500) when the warehouse read fails', async () => {
    const services = { ...h.services, db: failingDb(h.database.db, (text) => text.includes('websearch_to_tsquery')) };
    const data = await runDirect({ query: 'pricing objections', mode: 'fuzzy' }, services);
    expect(data.results).toEqual([]);
    expect(data.corpus.empty_reason).toBe('read_failed');
    expect(data.detail.internal.status).toBe('read_failed');
    expect(data.detail.message).toMatch(/not an empty result/);
  });

  it('says the data may be behind when a recent-window ask is empty', async () => {
    const data = await client.ok({ query: `${TENANT_B_WORD} calls this month`, mode: 'fuzzy' }, tenantB.viewer.key);
    expect(data.results).toEqual([]);
    expect(data.corpus.empty_reason).toBe('scope_disjoint');
    expect(data.detail.message).toMatch(/may be behind/);
    expect(data.detail.coverage?.is_stale).toBe(true);
  });
});

describe('the corpus block', () => {
  it('truncated: returned_rows/truncated, match_count over the whole match, buckets over the returned rows', async () => {
    const data = await client.ok({ query: 'pricing', mode: 'fuzzy', limit: 3 });
    expect(data.corpus).toMatchObject({ row_count: 3, truncated: true });
    expect(data.corpus.match_count).toBeGreaterThan(3);
    expect(data.corpus.coverage).toMatchObject({
      basis: 'returned_rows',
      basis_reason: 'truncated',
      dated_row_count: 3,
    });
    const buckets = Object.values(data.corpus.coverage.age_buckets).reduce((n, b) => n + b.row_count, 0);
    expect(buckets).toBe(3);
  });

  it('gaps against the interactions baseline with coverage: true', async () => {
    const data = await client.ok({ query: 'champion left', mode: 'fuzzy', limit: 1000, coverage: true });
    expect(data.corpus.coverage.gaps_status).toBe('ok');
    expect(data.corpus.coverage.gaps_baseline).toBe('interactions');
    expect(Array.isArray(data.corpus.coverage.gaps)).toBe(true);
    for (const gap of data.corpus.coverage.gaps!) {
      expect(gap.corpus_row_count).toBeGreaterThan(0);
      const inGap = data.results.filter((r) => String(r.occurred_at) >= gap.start && String(r.occurred_at) < gap.end);
      expect(inGap).toEqual([]);
    }
  });
});

describe('tenant isolation', () => {
  it('another workspace’s rows never appear, in either direction', async () => {
    const fromCorpus = await client.ok({ query: TENANT_B_WORD, mode: 'fuzzy' });
    expect(fromCorpus.results).toEqual([]);
    const fromB = await client.ok(
      { query: `${TENANT_B_WORD} pricing`, mode: 'fuzzy', limit: 1000 },
      tenantB.viewer.key,
    );
    expect(fromB.results.map((r) => r.title)).toEqual([`Pricing ${TENANT_B_WORD}`]);
    // "Acme" resolves to tenant B's own account only.
    const acme = await client.ok({ query: 'pricing with Acme', mode: 'fuzzy' }, tenantB.viewer.key);
    expect(acme.detail.internal.plan!.accounts[0]!.matched.map((a) => a.name)).toEqual(['Acme Tenant B']);
    const corpusPricing = await client.ok({ query: 'pricing', mode: 'fuzzy', limit: 1000 }, tenantB.viewer.key);
    expect(corpusPricing.results).toHaveLength(1);
  });
});

describe('a configured model that fails', () => {
  it('falls back to the local planner and router, and says so', async () => {
    const broken: ModelProvider = {
      id: 'openai:test-model',
      run: async () => {
        throw new Error('upstream 502');
      },
      step: async () => {
        throw new Error('upstream 502');
      },
    };
    const data = await runDirect({ query: 'calls with Acme about pricing' }, { ...h.services, model: broken });
    expect(data.mode_ran).toBe('fuzzy');
    expect(data.detail.internal.plan!.planner).toBe('local');
    expect(data.detail.message).toMatch(/openai:test-model planner failed/);
    expect(data.results.length).toBeGreaterThan(0);
  });
});

describe('async jobs', () => {
  const transport = () => h.services.queue as LocalTransport;

  it('returns a handle without corpus, and the collected job carries the full response', async () => {
    const request = {
      query: 'pricing, security, integrations, churn, competitors, onboarding, renewal, discount',
      mode: 'fuzzy',
      async: true,
      max_subqueries: 8,
      limit: 10,
    };
    const handle = await client.ok(request);
    expect(handle).toEqual({
      success: true,
      mode_ran: 'fuzzy',
      job: { job_id: expect.any(String), status: 'queued', poll: expect.any(String) },
    });
    expect((handle as Record<string, unknown>).corpus).toBeUndefined();

    await transport().drain();
    const done = await client.ok({ job_id: handle.job!.job_id });
    expect(done.job).toEqual({ job_id: handle.job!.job_id, status: 'complete' });
    expect(done.mode_ran).toBe('fuzzy');
    expect(done.detail.internal.plan!.subqueries).toHaveLength(8);
    expect(done.results).toHaveLength(10);
    expect(done.corpus).toMatchObject({ store: 'warehouse', row_count: 10, filters_applied: false, truncated: true });

    // Collected again, the same answer: the job keeps its result.
    const again = await client.ok({ job_id: handle.job!.job_id });
    expect(again.results).toEqual(done.results);
  });

  it('streams a job’s run events with Accept: text/event-stream, ending after the terminal event', async () => {
    const handle = await client.ok({ query: 'pricing', mode: 'fuzzy', async: true });
    await clock.advance(120_000);
    const streaming = h.request('POST', '/search/query', {
      key: ws.viewer.key,
      body: { job_id: handle.job!.job_id },
      headers: { accept: 'text/event-stream' },
    });
    await transport().drain();
    const res = await streaming;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const types = [...res.text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(types[0]).toBe('run.queued');
    expect(types.at(-1)).toBe('run.completed');

    await clock.advance(120_000);
    const other = await h.request('POST', '/search/query', {
      key: tenantB.viewer.key,
      body: { job_id: handle.job!.job_id },
      headers: { accept: 'text/event-stream' },
    });
    expect(other.status).toBe(404);
    await clock.advance(120_000);
    const noJob = await h.request('POST', '/search/query', {
      key: ws.viewer.key,
      body: { query: 'pricing' },
      headers: { accept: 'text/event-stream' },
    });
    expect(noJob.status).toBe(400);
    expect(noJob.body.error.details.fields[0].field).toBe('job_id');
  });

  it('refuses job_id with other fields, and answers 404 for an unknown job or another workspace’s', async () => {
    const handle = await client.ok({ query: 'pricing', mode: 'fuzzy', async: true });
    await client.rejects({ job_id: handle.job!.job_id, query: 'pricing' }, 'query');
    const unknown = await client.search({ job_id: '00000000-0000-4000-8000-00000000abcd' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const cross = await client.search({ job_id: handle.job!.job_id }, tenantB.viewer.key);
    expect(cross.status).toBe(404);
    await transport().drain();
  });

  it('a job that failed is collected as an honest read_failed answer with status failed', async () => {
    // A stored input the stage cannot trust (as if written by an older version): the run fails at once.
    const { runId } = await h.services.engine.start({
      workspaceId: ws.id,
      kind: SEARCH_JOB_KIND,
      input: { search: { lane: 'fuzzy' }, ignored: [] },
    });
    await transport().drain();
    const data = await client.ok({ job_id: runId });
    expect(data.job).toEqual({ job_id: runId, status: 'failed' });
    expect(data.results).toEqual([]);
    expect(data.corpus.empty_reason).toBe('read_failed');
    expect(data.detail.internal.status).toBe('read_failed');
    expect(data.detail.message).toMatch(/failed/);
  });
});
