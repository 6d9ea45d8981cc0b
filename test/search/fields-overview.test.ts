import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { API_PREFIX } from '../../functions/http/env.js';
import { SURFACE_VOCABULARY, type FieldType } from '../../functions/search/fields.js';
import {
  FILTER_OPERATORS,
  METRIC_FUNCTIONS,
  SEARCH_LIMITS,
  type FilterOperator,
} from '../../functions/search/request.js';
import { ManualClock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import {
  dealQualification,
  deals,
  excludedInteractions,
  interactions,
  themes,
  utterances,
  utteranceVectors,
} from '../../schema/index.js';
import { textHash } from '../../platform/text-hash.js';
import { WAREHOUSE_SURFACES, type WarehouseSurface } from '../../schema/warehouse-settings.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { failingDb, searchClient } from '../support/search-client.js';

/**
 * GET /search/fields and GET /search/overview through the real app, over REST and MCP.
 *
 * The field catalog is checked against the vocabulary it is derived from (functions/search/fields.ts)
 * and, from the outside, against the filter compiler behind POST /search/query: every pair the
 * catalog lists is accepted and runs, every pair it does not list is refused, and value shapes and
 * group_by / metric eligibility agree. The overview is checked against independent SQL on the demo
 * corpus, an empty workspace and a second tenant, and with stores that fail to read.
 */

const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let corpus: SeededWorkspace;
/** A workspace with nothing synced. */
let empty: SeededWorkspace;
/** Another tenant with a handful of rows of its own, dated outside the corpus's span. */
let tenantB: SeededWorkspace;
const OTHER_EMBEDDER = 'test:other-embedder-v0';
/** POST /search/query as the corpus viewer (search-client.ts keeps the rate limit out of the way). */
let query: ReturnType<typeof searchClient>['search'];

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  corpus = await h.corpusWorkspace();
  query = searchClient(h, clock, () => corpus.viewer.key).search;
  empty = await h.seedWorkspace('Empty overview workspace');
  tenantB = await h.seedWorkspace('Tenant B overview workspace');
  await seedTenantB(h.database.db, tenantB.id);
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

/** Tenant B's rows (times with milliseconds, to catch any rounding of the span). */
const B = {
  early: new Date('2020-02-03T04:05:06.789Z'),
  late: new Date('2031-07-08T09:10:11.123Z'),
  deal: new Date('2021-03-04T05:06:07.008Z'),
  assessed: new Date('2022-04-05T06:07:08.009Z'),
  themeFirst: new Date('2019-01-01T00:00:00.001Z'),
  themeLast: new Date('2032-12-31T23:59:59.999Z'),
};
const oneHot = (i: number): number[] => Array.from({ length: 384 }, (_, j) => (j === i ? 1 : 0));

async function seedTenantB(db: Database, workspaceId: string): Promise<void> {
  const [kept, excluded, dealId] = [newId(), newId(), newId()];
  await db.insert(interactions).values([
    { id: kept, workspaceId, kind: 'call', title: 'B call', occurredAt: B.early, source: 'gong', durationSeconds: 60 },
    {
      id: excluded,
      workspaceId,
      kind: 'email',
      title: 'B excluded email',
      occurredAt: B.late,
      source: 'gmail',
      direction: 'inbound',
      body: 'private',
    },
  ]);
  await db.insert(excludedInteractions).values({ workspaceId, interactionId: excluded, reason: 'personal' });
  await db
    .insert(deals)
    .values({ id: dealId, workspaceId, name: 'B deal', stage: 'proposal', occurredAt: B.deal, updatedAt: B.deal });
  await db.insert(dealQualification).values({
    id: newId(),
    workspaceId,
    dealId,
    criterion: 'champion',
    status: 'validated',
    score: 3,
    occurredAt: B.assessed,
  });
  const utterance = (i: number, side: 'external' | 'internal', embedder: string | null, occurredAt: Date) => ({
    id: newId(),
    workspaceId,
    interactionId: kept,
    utteranceIndex: i,
    side,
    text: `B utterance ${i}`,
    embedder,
    occurredAt,
  });
  // Only the first is in the semantic lane's store: external, embedded, by the configured embedder.
  await db
    .insert(utterances)
    .values([
      utterance(0, 'external', h.services.embedder.id, B.early),
      utterance(1, 'external', OTHER_EMBEDDER, B.late),
      utterance(2, 'internal', null, B.late),
      utterance(3, 'external', null, B.late),
    ]);
  await db.insert(utteranceVectors).values([
    { workspaceId, embedder: h.services.embedder.id, textHash: textHash('B utterance 0'), embedding: oneHot(0) },
    { workspaceId, embedder: OTHER_EMBEDDER, textHash: textHash('B utterance 1'), embedding: oneHot(1) },
  ]);
  const theme = (label: string, embedder: string, first: Date, last: Date) => ({
    id: newId(),
    workspaceId,
    label,
    summary: `${label} summary`,
    embedding: oneHot(7),
    embedder,
    memberCount: 1,
    interactionCount: 1,
    firstSeenAt: first,
    lastSeenAt: last,
  });
  await db
    .insert(themes)
    .values([
      theme('B theme', h.services.embedder.id, B.deal, B.assessed),
      theme('B stale theme', OTHER_EMBEDDER, B.themeFirst, B.themeLast),
    ]);
}

// ---------------------------------------------------------------------------------------------
// Calls

const get = async (path: string, key: string) => {
  const res = await h.request('GET', path, { key });
  expect(res.status, res.text.slice(0, 600)).toBe(200);
  expect(Object.keys(res.body)).toEqual(['data']);
  return res.body.data;
};
const fieldsOf = (key = corpus.viewer.key) => get('/search/fields', key);
const overviewOf = (key: string) => get('/search/overview', key);

/** The problems of a 400 invalid_argument. */
async function refused(body: Record<string, unknown>): Promise<{ field: string; code: string; allowed?: unknown[] }[]> {
  const res = await query(body);
  expect(res.status, res.text.slice(0, 600)).toBe(400);
  expect(res.body.error.code).toBe('invalid_argument');
  return res.body.error.details.fields;
}

/** A 200 from the filter lane whose read ran (the compiled SQL is valid, not just accepted). */
async function accepted(body: Record<string, unknown>): Promise<any> {
  const res = await query({ mode: 'filter', limit: 1, ...body });
  expect(res.status, res.text.slice(0, 1200)).toBe(200);
  expect(res.body.data.mode_ran).toBe('filter');
  expect(res.body.data.corpus.empty_reason, res.body.data.detail.message).not.toBe('read_failed');
  return res.body.data;
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

// ---------------------------------------------------------------------------------------------
// Values of the right (and wrong) shape, per field type and operator value shape

type Shape = 'scalar' | 'array' | 'range' | 'none';
type Scalar = string | number | boolean;
/** A field as GET /search/fields lists it. */
interface ListedField {
  name: string;
  type: FieldType;
  operators: FilterOperator[];
  nullable: boolean;
  values?: string[];
  groupable: boolean;
  metrics: string[];
}
/** The fields GET /search/fields lists for a surface (the first test pins them to the vocabulary). */
const listed = (catalog: any, surface: WarehouseSurface): ListedField[] => catalog.surfaces[surface].fields;

const UUID_VALUE = '00000000-0000-4000-8000-000000000000';

/** A valid value of the field's type, and a second one not below it (for ranges). */
function scalars(field: ListedField): [Scalar, Scalar] {
  switch (field.type) {
    case 'string':
    case 'text':
      return ['a', 'b'];
    case 'enum':
      return [field.values![0]!, field.values![0]!];
    case 'number':
      return [1.5, 2.5];
    case 'integer':
      return [1, 2];
    case 'timestamp':
      return ['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'];
    case 'date':
      return ['2026-01-01', '2026-02-01'];
    case 'boolean':
      return [true, true];
    case 'uuid':
      return [UUID_VALUE, UUID_VALUE];
  }
}

function filterOf(
  field: ListedField,
  op: FilterOperator,
  shape: Shape,
): { field: string; op: FilterOperator; value?: Scalar | Scalar[] } {
  const [low, high] = scalars(field);
  if (shape === 'none') return { field: field.name, op };
  if (shape === 'array' || shape === 'range') return { field: field.name, op, value: [low, high] };
  return { field: field.name, op, value: low };
}

/** The same operator with a value of the wrong shape. */
function misshapen(
  field: ListedField,
  op: FilterOperator,
  shape: Shape,
): { field: string; op: FilterOperator; value: Scalar | Scalar[] } {
  const [low] = scalars(field);
  return { field: field.name, op, value: shape === 'scalar' ? [low] : low };
}

// ---------------------------------------------------------------------------------------------

describe('GET /search/fields', () => {
  it('lists exactly the three surfaces, each field with the type, operators and eligibility of the vocabulary', async () => {
    const data = await fieldsOf();
    expect(Object.keys(data).sort()).toEqual(['limits', 'metric_functions', 'operators', 'semantic', 'surfaces']);
    expect(Object.keys(data.surfaces)).toEqual([...WAREHOUSE_SURFACES]);
    for (const surface of WAREHOUSE_SURFACES) {
      const shown = data.surfaces[surface];
      expect(shown.event_time_field).toBe(SURFACE_VOCABULARY[surface].eventTimeField);
      expect(shown.default_order).toBe('occurred_at desc, id asc');
      expect(shown.fields).toEqual(
        SURFACE_VOCABULARY[surface].fields.map((f) => ({
          name: f.name,
          type: f.type,
          operators: [...f.operators],
          nullable: f.nullable,
          description: f.description,
          ...(f.values ? { values: [...f.values] } : {}),
          groupable: f.groupable,
          metrics: [...f.metrics],
        })),
      );
      // Internal details of the vocabulary (SQL expressions, joins) never leave.
      expect(JSON.stringify(shown)).not.toMatch(/"column"|"join"|\bt\.occurred_at\b/);
      for (const field of shown.fields) {
        expect(new Set(field.operators).size, `${surface}.${field.name}`).toBe(field.operators.length);
        expect(field.operators.includes('is_null'), `${surface}.${field.name}`).toBe(field.nullable);
        expect(field.operators.includes('not_null'), `${surface}.${field.name}`).toBe(field.nullable);
        expect(field.values !== undefined, `${surface}.${field.name}`).toBe(field.type === 'enum');
      }
      expect(shown.fields.some((f: { name: string }) => f.name === shown.event_time_field)).toBe(true);
    }
    // The semantic lane's filters: the interactions fields plus the utterance's side and speaker, unaggregated.
    const semanticNames = data.semantic.fields.map((f: { name: string }) => f.name);
    expect(semanticNames).toEqual([...SURFACE_VOCABULARY.interactions.fields.map((f) => f.name), 'side', 'speaker']);
    for (const field of data.semantic.fields) expect(field).toMatchObject({ groupable: false, metrics: [] });
    expect(JSON.stringify(data.semantic)).not.toMatch(/"column"|"join"|u\.side/);
    expect(data.operators.map((o: { op: string }) => o.op)).toEqual([...FILTER_OPERATORS]);
    expect(data.metric_functions.map((m: { fn: string }) => m.fn)).toEqual([...METRIC_FUNCTIONS]);
    expect(data.limits).toEqual({
      filters: SEARCH_LIMITS.filters,
      in_values: SEARCH_LIMITS.inValues,
      group_by: SEARCH_LIMITS.groupBy,
      metrics: SEARCH_LIMITS.metrics,
      limit: SEARCH_LIMITS.limit,
    });
  });

  it('is the same catalog in every workspace, data or none', async () => {
    expect(await fieldsOf(empty.viewer.key)).toEqual(await fieldsOf());
  });

  it('every listed field and operator is accepted by the filter lane with a value of the listed shape, and its SQL runs', async () => {
    const data = await fieldsOf();
    const shapes = new Map<FilterOperator, Shape>(
      data.operators.map((o: { op: FilterOperator; value: Shape }) => [o.op, o.value]),
    );
    let pairs = 0;
    for (const surface of WAREHOUSE_SURFACES) {
      const filters = listed(data, surface).flatMap((f) => f.operators.map((op) => filterOf(f, op, shapes.get(op)!)));
      pairs += filters.length;
      // Filters are ANDed and the compiler names every refused one, so a batch proves each pair.
      for (const batch of chunks(filters, SEARCH_LIMITS.filters)) {
        const data = await accepted({ surface, filters: batch });
        expect(data.corpus.filters_applied).toBe(true);
      }
    }
    expect(pairs).toBeGreaterThan(100);
  });

  it('an operator not listed for a field is refused: 400 invalid_argument naming filters.<i>.op and the listed operators', async () => {
    const data = await fieldsOf();
    const shapes = new Map<FilterOperator, Shape>(
      data.operators.map((o: { op: FilterOperator; value: Shape }) => [o.op, o.value]),
    );
    for (const surface of WAREHOUSE_SURFACES) {
      const unlisted = listed(data, surface).flatMap((f) =>
        FILTER_OPERATORS.filter((op) => !f.operators.includes(op)).map((op) => ({ f, op })),
      );
      expect(unlisted.length, surface).toBeGreaterThan(0);
      for (const batch of chunks(unlisted, SEARCH_LIMITS.filters)) {
        const problems = await refused({
          mode: 'filter',
          surface,
          filters: batch.map(({ f, op }) => filterOf(f, op, shapes.get(op)!)),
        });
        // One problem per filter, each about the operator (the value had the operator's own shape).
        expect(problems).toEqual(
          batch.map(({ f }, i) =>
            expect.objectContaining({
              field: `filters.${i}.op`,
              code: 'unsupported_operator',
              allowed: [...f.operators],
            }),
          ),
        );
      }
    }
    // And alone, as a client would send it.
    const alone = await refused({ surface: 'deals', filters: [{ field: 'is_won', op: 'gt', value: true }] });
    expect(alone).toEqual([expect.objectContaining({ field: 'filters.0.op', allowed: ['eq', 'neq'] })]);
  });

  it('each operator’s listed value shape is the one the compiler demands', async () => {
    const data = await fieldsOf();
    const shapes = new Map<FilterOperator, Shape>(
      data.operators.map((o: { op: FilterOperator; value: Shape }) => [o.op, o.value]),
    );
    for (const surface of WAREHOUSE_SURFACES) {
      const pairs = listed(data, surface).flatMap((f) => f.operators.map((op) => ({ f, op })));
      for (const batch of chunks(pairs, SEARCH_LIMITS.filters)) {
        const problems = await refused({
          mode: 'filter',
          surface,
          filters: batch.map(({ f, op }) => misshapen(f, op, shapes.get(op)!)),
        });
        expect(problems).toEqual(
          batch.map(({ op }, i) =>
            expect.objectContaining({
              field: `filters.${i}.value`,
              code: shapes.get(op) === 'none' ? 'unexpected_value' : 'invalid_value_shape',
            }),
          ),
        );
      }
    }
  });

  it('an unknown field is refused with exactly the listed field names as the allowed set', async () => {
    const data = await fieldsOf();
    for (const surface of WAREHOUSE_SURFACES) {
      const problems = await refused({ surface, filters: [{ field: 'no_such_field', op: 'eq', value: 'x' }] });
      expect(problems).toEqual([
        expect.objectContaining({
          field: 'filters.0.field',
          code: 'unknown_field',
          allowed: data.surfaces[surface].fields.map((f: { name: string }) => f.name),
        }),
      ]);
    }
  });

  it('groupable and metrics agree with what group_by and metrics accept', async () => {
    const data = await fieldsOf();
    for (const surface of WAREHOUSE_SURFACES) {
      const fields = listed(data, surface);
      const groupable = fields.filter((f) => f.groupable).map((f) => f.name);
      const notGroupable = fields.filter((f) => !f.groupable).map((f) => f.name);
      for (const batch of chunks(groupable, SEARCH_LIMITS.groupBy))
        await accepted({ surface, group_by: batch, metrics: [{ fn: 'count' }] });
      for (const batch of chunks(notGroupable, SEARCH_LIMITS.groupBy)) {
        const problems = await refused({ surface, group_by: batch, metrics: [{ fn: 'count' }] });
        expect(problems).toEqual(
          batch.map((_, i) => expect.objectContaining({ field: `group_by.${i}`, allowed: groupable })),
        );
      }
      const offered = fields.flatMap((f) => f.metrics.map((fn) => ({ fn, field: f.name })));
      const notOffered = fields.flatMap((f) =>
        METRIC_FUNCTIONS.filter((fn) => !f.metrics.includes(fn)).map((fn) => ({ fn, field: f.name })),
      );
      const accepting = (fn: string) => fields.filter((f) => f.metrics.includes(fn)).map((f) => f.name);
      for (const batch of chunks(offered, SEARCH_LIMITS.metrics)) await accepted({ surface, metrics: batch });
      for (const batch of chunks(notOffered, SEARCH_LIMITS.metrics)) {
        const problems = await refused({ surface, metrics: batch });
        expect(problems).toEqual(
          batch.map(({ fn }, i) => expect.objectContaining({ field: `metrics.${i}.field`, allowed: accepting(fn) })),
        );
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------

interface Span {
  row_count: number;
  earliest_event_at: string | null;
  latest_event_at: string | null;
}

/** Count and event span by independent SQL (epoch ms, so no driver or format is shared with the code). */
async function spanBySql(
  from: string,
  params: unknown[],
  earliest = 'occurred_at',
  latest = 'occurred_at',
): Promise<Span> {
  const { rows } = await h.pglite.client.query<{ n: number; lo: number | null; hi: number | null }>(
    `select count(*)::int as n, (extract(epoch from min(${earliest})) * 1000)::float8 as lo, (extract(epoch from max(${latest})) * 1000)::float8 as hi from ${from}`,
    params,
  );
  const row = rows[0]!;
  const iso = (ms: number | null) => (ms === null ? null : new Date(Math.round(ms)).toISOString());
  return { row_count: row.n, earliest_event_at: iso(row.lo), latest_event_at: iso(row.hi) };
}

/** The whole overview a workspace should get, by SQL: tenant-scoped counts, excluded interactions included (overview.ts). */
async function expectedOverview(workspaceId: string) {
  const embedder = h.services.embedder.id;
  const surfaces = Object.fromEntries(
    await Promise.all(
      WAREHOUSE_SURFACES.map(
        async (s) =>
          [s, await spanBySql(`${SURFACE_VOCABULARY[s].table} where workspace_id = $1`, [workspaceId])] as const,
      ),
    ),
  ) as Record<WarehouseSurface, Span>;
  return {
    surfaces,
    semantic: {
      utterances_external: await spanBySql(
        "utterances where workspace_id = $1 and side = 'external' and embedder is not null and embedder = $2",
        [workspaceId, embedder],
      ),
      themes: await spanBySql(
        'themes where workspace_id = $1 and embedding is not null and embedder = $2',
        [workspaceId, embedder],
        'first_seen_at',
        'last_seen_at',
      ),
      embedder,
    },
  };
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /search/overview', () => {
  it('on the corpus: row counts equal SQL counts and the event span equals min/max occurred_at, per surface', async () => {
    const data = await overviewOf(corpus.viewer.key);
    expect(data).toEqual(await expectedOverview(CORPUS_WORKSPACE_ID));
    for (const surface of WAREHOUSE_SURFACES) {
      const s = data.surfaces[surface];
      expect(s.row_count, surface).toBeGreaterThan(0);
      expect(s.earliest_event_at).toMatch(ISO_MS);
      expect(s.latest_event_at).toMatch(ISO_MS);
      expect(Date.parse(s.earliest_event_at)).toBeLessThanOrEqual(Date.parse(s.latest_event_at));
    }
    expect(data.surfaces.interactions.row_count).toBe(1000);
    expect(data.semantic.utterances_external.row_count).toBeGreaterThan(0);
    expect(data.semantic.themes.row_count).toBeGreaterThan(0);
  });

  it('counts what the workspace holds: excluded interactions included, as detail.coverage.total_rows does; the filter lane sees the rest', async () => {
    const data = await overviewOf(corpus.viewer.key);
    const { rows } = await h.pglite.client.query<{ n: number }>(
      'select count(*)::int as n from excluded_interactions where workspace_id = $1',
      [CORPUS_WORKSPACE_ID],
    );
    const excluded = rows[0]!.n;
    expect(excluded).toBeGreaterThan(0);
    for (const surface of WAREHOUSE_SURFACES) {
      const lane = await accepted({ surface, metrics: [{ fn: 'count' }] });
      expect(lane.results[0].count, surface).toBe(
        data.surfaces[surface].row_count - (surface === 'interactions' ? excluded : 0),
      );
      expect(lane.detail.coverage.total_rows, surface).toBe(data.surfaces[surface].row_count);
      expect(lane.detail.coverage.latest_event_at, surface).toBe(data.surfaces[surface].latest_event_at);
    }
  });

  it('an empty workspace gets zeros and null times on every surface and store, never null surfaces', async () => {
    const none = { row_count: 0, earliest_event_at: null, latest_event_at: null };
    expect(await overviewOf(empty.viewer.key)).toEqual({
      surfaces: { interactions: none, deals: none, deal_qualification: none },
      semantic: { utterances_external: none, themes: none, embedder: h.services.embedder.id },
    });
  });

  it('another workspace’s rows never count: each tenant sees exactly its own', async () => {
    const theirs = await overviewOf(tenantB.viewer.key);
    expect(theirs).toEqual({
      surfaces: {
        interactions: { row_count: 2, earliest_event_at: B.early.toISOString(), latest_event_at: B.late.toISOString() },
        deals: { row_count: 1, earliest_event_at: B.deal.toISOString(), latest_event_at: B.deal.toISOString() },
        deal_qualification: {
          row_count: 1,
          earliest_event_at: B.assessed.toISOString(),
          latest_event_at: B.assessed.toISOString(),
        },
      },
      semantic: {
        // Only vectors and themes of the configured embedder: the lane never reads the others.
        utterances_external: {
          row_count: 1,
          earliest_event_at: B.early.toISOString(),
          latest_event_at: B.early.toISOString(),
        },
        themes: { row_count: 1, earliest_event_at: B.deal.toISOString(), latest_event_at: B.assessed.toISOString() },
        embedder: h.services.embedder.id,
      },
    });
    expect(theirs).toEqual(await expectedOverview(tenantB.id));
    // Tenant B's rows lie outside the corpus's span on every surface, so a leak would move it.
    const mine = await overviewOf(corpus.viewer.key);
    expect(mine).toEqual(await expectedOverview(CORPUS_WORKSPACE_ID));
    for (const surface of WAREHOUSE_SURFACES) {
      const all = await spanBySql(SURFACE_VOCABULARY[surface].table, []);
      expect(all.row_count, surface).toBeGreaterThan(mine.surfaces[surface].row_count);
      expect(all.earliest_event_at, surface).not.toBe(mine.surfaces[surface].earliest_event_at);
    }
  });

  it('a store whose read fails reports null, never 0, and the others still answer', async () => {
    const expected = await expectedOverview(CORPUS_WORKSPACE_ID);
    const stores = [
      ...WAREHOUSE_SURFACES.map((name) => ({ group: 'surfaces', name, fails: new RegExp(`from "${name}"`) })),
      { group: 'semantic', name: 'utterances_external', fails: /from utterances\b/ },
      { group: 'semantic', name: 'themes', fails: /from themes\b/ },
    ] as const;
    for (const store of stores) {
      const want: any = structuredClone(expected);
      want[store.group][store.name] = null;
      expect(await overviewWith(failingDb(h.database.db, (text) => store.fails.test(text))), store.name).toEqual(want);
    }
    // Every read down: still 200, every store null, none 0.
    expect(
      await overviewWith(failingDb(h.database.db, (text) => stores.some((store) => store.fails.test(text)))),
    ).toEqual({
      surfaces: { interactions: null, deals: null, deal_qualification: null },
      semantic: { utterances_external: null, themes: null, embedder: h.services.embedder.id },
    });
  });
});

/** GET /search/overview on an app over the given database (same services otherwise). */
async function overviewWith(db: Database): Promise<unknown> {
  const { app } = createApp({ services: { ...h.services, db } });
  const res = await app.fetch(
    new Request(`${h.services.config.publicUrl}${API_PREFIX}/search/overview`, {
      headers: { 'x-api-key': corpus.viewer.key },
    }),
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown }).data;
}

// ---------------------------------------------------------------------------------------------

describe('over MCP', () => {
  async function connect(key: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: async (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': key } },
    });
    const client = new Client({ name: 'fields-overview-test', version: '0.0.1' });
    await client.connect(transport);
    return client;
  }
  type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };

  it('the search tool’s fields and overview actions return the REST data', async () => {
    const client = await connect(corpus.viewer.key);
    try {
      for (const [action, path] of [
        ['fields', '/search/fields'],
        ['overview', '/search/overview'],
      ] as const) {
        const result = (await client.callTool({ name: 'search', arguments: { action } })) as ToolResult;
        expect(result.isError, action).toBeFalsy();
        const rest = await get(path, corpus.viewer.key);
        expect(result.structuredContent, action).toEqual(rest);
        expect(JSON.parse(result.content.find((c) => c.type === 'text')?.text ?? '')).toEqual(rest);
      }
    } finally {
      await client.close();
    }
  });

  it('the resource search_overview://current reads the caller’s own overview', async () => {
    for (const ws of [corpus, tenantB, empty]) {
      const client = await connect(ws.viewer.key);
      try {
        const { resources } = await client.listResources();
        expect(resources).toContainEqual(
          expect.objectContaining({
            uri: 'search_overview://current',
            name: 'search.overview',
            mimeType: 'application/json',
          }),
        );
        const { contents } = await client.readResource({ uri: 'search_overview://current' });
        expect(contents).toEqual([
          expect.objectContaining({ uri: 'search_overview://current', mimeType: 'application/json' }),
        ]);
        const overview = JSON.parse((contents[0] as { text: string }).text);
        expect(overview).toEqual(await overviewOf(ws.viewer.key));
        expect(overview).toEqual(await expectedOverview(ws.id));
      } finally {
        await client.close();
      }
    }
  });
});
