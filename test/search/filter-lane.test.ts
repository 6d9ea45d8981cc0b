import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { createApp } from '../../functions/app.js';
import { API_PREFIX } from '../../functions/http/env.js';
import { createApiKey } from '../../functions/identity/api-keys.js';
import { ensureMembership, ensureUser } from '../../functions/identity/members.js';
import { SURFACE_VOCABULARY } from '../../functions/search/fields.js';
import type { Database } from '../../platform/db/port.js';
import { ManualClock } from '../../platform/clock.js';
import { newId, randomBase62 } from '../../platform/ids.js';
import { accounts, dealQualification, deals, interactions } from '../../schema/index.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import {
  createHarness,
  openCorpusDatabase,
  type Harness,
  type SeededWorkspace,
  type TestResponse,
} from '../support/harness.js';

/**
 * The filter lane end to end, through the real app, over the deterministic demo corpus (test/corpus-
 * fixture.ts). Every figure is checked against an independent SQL count on the same database.
 */

const DAY_MS = 86_400_000;
const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let _corpus: SeededWorkspace;
/** An empty workspace (nothing synced). */
let empty: SeededWorkspace;
/** Another tenant holding a few rows of its own. */
let tenantB: SeededWorkspace;
const MARKER = 'Tenant-B marker zq7';

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  _corpus = await h.corpusWorkspace();
  empty = await h.seedWorkspace('Empty search workspace');
  tenantB = await h.seedWorkspace('Tenant B search workspace');
  await seedTenantB(h.database.db, tenantB.id);
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

async function seedTenantB(db: Database, workspaceId: string): Promise<void> {
  const accountId = newId();
  const dealId = newId();
  const at = new Date(CORPUS_NOW.getTime() - 10 * DAY_MS);
  await db.insert(accounts).values({ id: accountId, workspaceId, name: `${MARKER} account`, type: 'customer' });
  await db.insert(deals).values({
    id: dealId,
    workspaceId,
    accountId,
    name: `${MARKER} deal`,
    stage: 'proposal',
    amount: 123456,
    occurredAt: at,
    updatedAt: at,
  });
  await db
    .insert(dealQualification)
    .values({ id: newId(), workspaceId, dealId, criterion: 'champion', status: 'validated', score: 3, occurredAt: at });
  await db.insert(interactions).values([
    {
      id: newId(),
      workspaceId,
      kind: 'call',
      title: `${MARKER} call`,
      accountId,
      dealId,
      occurredAt: at,
      source: 'gong',
      durationSeconds: 600,
    },
    {
      id: newId(),
      workspaceId,
      kind: 'email',
      title: `${MARKER} email`,
      accountId,
      occurredAt: at,
      source: 'gmail',
      direction: 'inbound',
      body: 'hello',
    },
  ]);
}

/**
 * search.query allows 10 calls a minute per user and the test clock stands still, so each call takes
 * a key from a pool that mints a fresh viewer every 10 calls (the per-user limit has its own test).
 */
const pools = new Map<string, { key: string; uses: number }>();
async function freshKey(workspaceId: string): Promise<string> {
  const email = `searcher-${randomBase62(10).toLowerCase()}@filter-lane.test`;
  const userId = await ensureUser(h.database.db, email);
  await ensureMembership(h.database.db, workspaceId, userId, 'viewer');
  return (
    await createApiKey(h.database.db, {
      workspaceId,
      userId,
      name: 'searcher',
      bundle: 'customer_agent',
      role: 'viewer',
      expiresAt: null,
    })
  ).key;
}
async function keyFor(workspaceId: string): Promise<string> {
  let pool = pools.get(workspaceId);
  if (!pool || pool.uses >= 10) {
    pool = { key: await freshKey(workspaceId), uses: 0 };
    pools.set(workspaceId, pool);
  }
  pool.uses++;
  return pool.key;
}

const search = async (body: unknown, workspaceId = CORPUS_WORKSPACE_ID): Promise<TestResponse<any>> =>
  h.request('POST', '/search/query', { key: await keyFor(workspaceId), body });

async function ok(body: unknown, workspaceId = CORPUS_WORKSPACE_ID): Promise<any> {
  const res = await search(body, workspaceId);
  expect(res.status, res.text.slice(0, 600)).toBe(200);
  expect(res.body.data.success).toBe(true);
  return res.body.data;
}

/** A 400 invalid_argument whose details name `field` (and, when given, exactly the allowed set). */
async function rejects(body: unknown, field: string, allowed?: readonly unknown[]): Promise<any> {
  const res = await search(body);
  expect(res.status, res.text.slice(0, 600)).toBe(400);
  expect(res.body.error.code).toBe('invalid_argument');
  const problem = res.body.error.details.fields.find((p: { field: string }) => p.field === field);
  expect(problem, `no problem named ${field} in ${res.text.slice(0, 600)}`).toBeDefined();
  if (allowed) expect(problem.allowed).toEqual(allowed);
  return problem;
}

const sqlOne = async <T = number>(text: string, params: unknown[] = []): Promise<T> => {
  const { rows } = await h.pglite.client.query<Record<string, unknown>>(text, params);
  return Object.values(rows[0] ?? {})[0] as T;
};
const sqlRows = async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
  (await h.pglite.client.query<T>(text, params)).rows;

/** Independent counts: in-scope rows of a surface (tenant; exclusions on interactions) meeting `where`. */
const IN_SCOPE =
  'not exists (select 1 from excluded_interactions x where x.workspace_id = i.workspace_id and x.interaction_id = i.id)';
const FROM: Record<string, string> = {
  interactions: `interactions i left join accounts a on a.id = i.account_id left join deals d on d.id = i.deal_id where i.workspace_id = $1 and ${IN_SCOPE}`,
  deals: 'deals i left join accounts a on a.id = i.account_id where i.workspace_id = $1',
  deal_qualification:
    'deal_qualification i join deals d on d.id = i.deal_id left join accounts a on a.id = d.account_id where i.workspace_id = $1',
};
const countWhere = (surface: string, where: string, workspaceId = CORPUS_WORKSPACE_ID) =>
  sqlOne<number>(`select count(*)::int from ${FROM[surface]} and (${where})`, [workspaceId]);

const ALL = { field: 'occurred_at', op: 'gte', value: '2000-01-01' } as const;
const CUSTOMER_VOICE_SQL = `(i.account_id is null or a.type is null or a.type in ('customer', 'sales_target') or exists (
  select 1 from participants p left join contacts c on c.id = p.contact_id
  where p.interaction_id = i.id and p.side = 'external'
    and (p.role in ('champion', 'economic_buyer', 'technical_evaluator', 'end_user', 'procurement', 'legal') or coalesce(c.is_buyer, false))))`;

describe('operators: every operator, each count checked against SQL', () => {
  const cases: {
    surface: 'interactions' | 'deals' | 'deal_qualification';
    filter: Record<string, unknown>;
    where: string;
  }[] = [
    { surface: 'interactions', filter: { field: 'kind', op: 'eq', value: 'call' }, where: "i.kind = 'call'" },
    {
      surface: 'interactions',
      filter: { field: 'direction', op: 'neq', value: 'inbound' },
      where: "i.direction is distinct from 'inbound'",
    },
    {
      surface: 'interactions',
      filter: { field: 'duration_seconds', op: 'gt', value: 1800 },
      where: 'i.duration_seconds > 1800',
    },
    {
      surface: 'interactions',
      filter: { field: 'participant_count', op: 'gte', value: 4 },
      where: 'i.participant_count >= 4',
    },
    {
      surface: 'interactions',
      filter: { field: 'duration_seconds', op: 'lt', value: 1800 },
      where: 'i.duration_seconds < 1800',
    },
    {
      surface: 'interactions',
      filter: { field: 'external_participant_count', op: 'lte', value: 1 },
      where: 'i.external_participant_count <= 1',
    },
    {
      surface: 'interactions',
      filter: { field: 'title', op: 'contains', value: 'RENEWAL' },
      where: "i.title ilike '%renewal%'",
    },
    {
      surface: 'interactions',
      filter: { field: 'source', op: 'in', value: ['gong', 'zoom'] },
      where: "i.source in ('gong', 'zoom')",
    },
    {
      surface: 'interactions',
      filter: { field: 'account_type', op: 'not_in', value: ['customer', 'sales_target'] },
      where: "a.type is null or a.type not in ('customer', 'sales_target')",
    },
    {
      surface: 'interactions',
      filter: { field: 'occurred_at', op: 'between', value: ['2026-01-01', '2026-03-31T23:59:59Z'] },
      where: "i.occurred_at between '2026-01-01T00:00:00Z' and '2026-03-31T23:59:59Z'",
    },
    { surface: 'interactions', filter: { field: 'deal_id', op: 'is_null' }, where: 'i.deal_id is null' },
    { surface: 'interactions', filter: { field: 'summary', op: 'not_null' }, where: 'i.summary is not null' },
    {
      surface: 'interactions',
      filter: { field: 'deal_stage', op: 'eq', value: 'closed_won' },
      where: "d.stage = 'closed_won'",
    },
    {
      surface: 'interactions',
      filter: { field: 'occurred_at', op: 'lt', value: '2025-09-01T00:00:00+02:00' },
      where: "i.occurred_at < '2025-08-31T22:00:00Z'",
    },
    { surface: 'deals', filter: { field: 'amount', op: 'gt', value: 50000 }, where: 'i.amount > 50000' },
    { surface: 'deals', filter: { field: 'is_won', op: 'eq', value: true }, where: 'i.is_won' },
    {
      surface: 'deals',
      filter: { field: 'close_date', op: 'between', value: ['2026-01-01', '2026-06-30'] },
      where: "i.close_date between '2026-01-01' and '2026-06-30'",
    },
    {
      surface: 'deals',
      filter: { field: 'stage', op: 'in', value: ['proposal', 'negotiation'] },
      where: "i.stage in ('proposal', 'negotiation')",
    },
    { surface: 'deals', filter: { field: 'probability', op: 'lte', value: 20 }, where: 'i.probability <= 20' },
    { surface: 'deals', filter: { field: 'account_type', op: 'eq', value: 'customer' }, where: "a.type = 'customer'" },
    {
      surface: 'deals',
      filter: { field: 'currency', op: 'neq', value: 'USD' },
      where: "i.currency is distinct from 'USD'",
    },
    {
      surface: 'deal_qualification',
      filter: { field: 'criterion', op: 'in', value: ['champion', 'economic_buyer'] },
      where: "i.criterion in ('champion', 'economic_buyer')",
    },
    { surface: 'deal_qualification', filter: { field: 'score', op: 'gte', value: 2 }, where: 'i.score >= 2' },
    {
      surface: 'deal_qualification',
      filter: { field: 'status', op: 'not_in', value: ['unknown'] },
      where: "i.status <> 'unknown'",
    },
    {
      surface: 'deal_qualification',
      filter: { field: 'deal_stage', op: 'eq', value: 'negotiation' },
      where: "d.stage = 'negotiation'",
    },
    {
      surface: 'deal_qualification',
      filter: { field: 'account_name', op: 'contains', value: 'logist' },
      where: "a.name ilike '%logist%'",
    },
  ];
  for (const c of cases) {
    it(`${c.surface}: ${c.filter.field} ${c.filter.op} ${JSON.stringify(c.filter.value ?? null)}`, async () => {
      const expected = await countWhere(c.surface, c.where);
      expect(expected, 'the case should select some rows but not all').toBeGreaterThan(0);
      const data = await ok({ surface: c.surface, filters: [c.filter], limit: 5 });
      expect(data.mode_ran).toBe('filter');
      expect(data.corpus.match_count).toBe(expected);
      expect(data.detail.internal.rows).toBe(expected);
      expect(data.corpus.row_count).toBe(Math.min(5, expected));
      expect(data.corpus.truncated).toBe(expected > 5 ? true : undefined);
      expect(data.corpus.filters_applied).toBe(true);
      expect(data.corpus.surface).toBe(c.surface);
    });
  }

  it('returns the first rows in the default order (occurred_at desc, id asc), every vocabulary field typed', async () => {
    const data = await ok({ filters: [{ field: 'kind', op: 'eq', value: 'email' }], limit: 7 });
    const ids = await sqlRows<{ id: string }>(
      `select i.id from ${FROM.interactions} and i.kind = 'email' order by i.occurred_at desc, i.id asc limit 7`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(data.results.map((r: { id: string }) => r.id)).toEqual(ids.map((r) => r.id));
    const names = SURFACE_VOCABULARY.interactions.fields.map((f) => f.name);
    for (const row of data.results) {
      expect(Object.keys(row)).toEqual(names);
      expect(row.kind).toBe('email');
      expect(row.occurred_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(row.duration_seconds).toBeNull();
      expect(typeof row.body).toBe('string');
    }
    const deal = (
      await ok({
        surface: 'deals',
        filters: [{ field: 'amount', op: 'not_null' }],
        order_by: { field: 'amount', dir: 'desc' },
        limit: 3,
      })
    ).results;
    const top = await sqlRows<{ amount_text: string }>(
      'select d.amount::text as amount_text from deals d where d.workspace_id = $1 and d.amount is not null order by d.amount desc, d.id asc limit 3',
      [CORPUS_WORKSPACE_ID],
    );
    expect(deal.map((r: { amount: number }) => r.amount)).toEqual(top.map((r) => Number(r.amount_text)));
    expect(typeof deal[0].amount).toBe('number');
    expect(typeof deal[0].is_won).toBe('boolean');
    expect(deal[0].close_date === null || /^\d{4}-\d{2}-\d{2}$/.test(deal[0].close_date)).toBe(true);
  });

  it('ANDs several filters and reads joined fields', async () => {
    const expected = await countWhere(
      'interactions',
      "i.kind = 'call' and a.type = 'customer' and i.duration_seconds >= 1500",
    );
    const data = await ok({
      filters: [
        { field: 'kind', op: 'eq', value: 'call' },
        { field: 'account_type', op: 'eq', value: 'customer' },
        { field: 'duration_seconds', op: 'gte', value: 1500 },
      ],
      limit: 1000,
    });
    expect(data.corpus.match_count).toBe(expected);
    expect(
      data.results.every((r: any) => r.kind === 'call' && r.account_type === 'customer' && r.duration_seconds >= 1500),
    ).toBe(true);
    expect(data.compiled.sql).toBe(
      "SELECT * FROM interactions WHERE kind = 'call' AND account_type = 'customer' AND duration_seconds >= 1500 ORDER BY occurred_at DESC, id ASC LIMIT 1000",
    );
  });

  it('contains is a case-insensitive substring match where % and _ match only themselves', async () => {
    const percent = await ok({ filters: [{ field: 'title', op: 'contains', value: '%' }] });
    expect(percent.corpus.match_count).toBe(await countWhere('interactions', "strpos(i.title, '%') > 0"));
    expect(percent.corpus.match_count).toBeLessThan(1000);
    const underscore = await ok({ filters: [{ field: 'title', op: 'contains', value: '_' }] });
    expect(underscore.corpus.match_count).toBe(await countWhere('interactions', "strpos(i.title, '_') > 0"));
    expect(percent.compiled.sql).toContain("title ILIKE '%\\%%'");
  });
});

describe('said_or_written', () => {
  it('contains finds what a title, summary, email body or any one transcript turn holds, in this workspace only', async () => {
    const saidWhere = (needle: string) =>
      `(i.title ilike '%${needle}%' or i.summary ilike '%${needle}%' or i.body ilike '%${needle}%' or exists (
         select 1 from transcript_turns t where t.interaction_id = i.id and t.text ilike '%${needle}%'))`;
    const rival = await ok({
      filters: [{ field: 'said_or_written', op: 'contains', value: 'pipewell' }],
      metrics: [{ fn: 'count' }],
    });
    const expected = await countWhere('interactions', saidWhere('pipewell'));
    expect(expected).toBeGreaterThan(0);
    expect(rival.results[0].count).toBe(expected);
    // Another tenant's words are not found from here, and are found from there.
    const here = await ok({ filters: [{ field: 'said_or_written', op: 'contains', value: MARKER }], limit: 10 });
    expect(here.results).toEqual([]);
    const there = await ok(
      { filters: [{ field: 'said_or_written', op: 'contains', value: MARKER }], metrics: [{ fn: 'count' }] },
      tenantB.id,
    );
    expect(there.results[0].count).toBe(await countWhere('interactions', saidWhere(MARKER), tenantB.id));
  });
});

describe('validation: value shapes, types, unknown names → 400 invalid_argument naming the problem', () => {
  it('refuses the wrong value shape for an operator', async () => {
    await rejects({ filters: [{ field: 'kind', op: 'eq', value: ['call'] }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'kind', op: 'eq' }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'kind', op: 'in', value: 'call' }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'kind', op: 'in', value: [] }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'duration_seconds', op: 'between', value: [1, 2, 3] }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'duration_seconds', op: 'between', value: [900, 100] }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'deal_id', op: 'is_null', value: 'x' }] }, 'filters.0.value');
    await rejects({ filters: [ALL, { field: 'title', op: 'contains', value: 3 }] }, 'filters.1.value');
  });

  it('refuses values of the wrong type for the field', async () => {
    await rejects({ filters: [{ field: 'duration_seconds', op: 'gt', value: 'ten' }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'duration_seconds', op: 'gt', value: 10.5 }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'occurred_at', op: 'gte', value: 'yesterday' }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'occurred_at', op: 'gte', value: '2026-02-30' }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'occurred_at', op: 'gte', value: 1735689600 }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'id', op: 'eq', value: 'not-a-uuid' }] }, 'filters.0.value');
    await rejects({ filters: [{ field: 'title', op: 'eq', value: 'a\u0000b' }] }, 'filters.0.value');
    await rejects({ surface: 'deals', filters: [{ field: 'is_won', op: 'eq', value: 'true' }] }, 'filters.0.value');
    await rejects(
      { surface: 'deals', filters: [{ field: 'close_date', op: 'eq', value: '2026-13-01' }] },
      'filters.0.value',
    );
    await rejects({ surface: 'deals', filters: [{ field: 'amount', op: 'in', value: [1, 'two'] }] }, 'filters.0.value');
    const problem = await rejects({ filters: [{ field: 'kind', op: 'eq', value: 'fax' }] }, 'filters.0.value');
    expect(problem.problem).toContain('call, meeting, email');
  });

  it('names the allowed set for an unknown field on each surface', async () => {
    for (const surface of ['interactions', 'deals', 'deal_qualification'] as const) {
      const allowed = SURFACE_VOCABULARY[surface].fields.map((f) => f.name);
      const problem = await rejects(
        { surface, filters: [{ field: 'secret_column', op: 'eq', value: 'x' }] },
        'filters.0.field',
        allowed,
      );
      expect(problem.problem).toContain('allowed: ');
    }
    // A field of another surface is unknown here.
    await rejects({ filters: [{ field: 'amount', op: 'gt', value: 1 }] }, 'filters.0.field');
  });

  it('refuses an unknown operator, and an operator the field does not take, naming the allowed ones', async () => {
    await rejects({ filters: [{ field: 'kind', op: 'like', value: 'c%' }] }, 'filters.0.op');
    await rejects({ filters: [{ field: 'kind', op: 'gt', value: 'call' }] }, 'filters.0.op', [
      'eq',
      'neq',
      'in',
      'not_in',
    ]);
    await rejects({ filters: [{ field: 'kind', op: 'is_null' }] }, 'filters.0.op');
    await rejects({ filters: [{ field: 'occurred_at', op: 'contains', value: '2026' }] }, 'filters.0.op');
  });

  it('refuses unknown order_by, group_by and metric fields, naming the allowed set', async () => {
    await rejects(
      { filters: [ALL], order_by: { field: 'nope', dir: 'asc' } },
      'order_by.field',
      SURFACE_VOCABULARY.interactions.fields.map((f) => f.name),
    );
    await rejects(
      { filters: [ALL], group_by: ['kind'], metrics: [{ fn: 'count' }], order_by: { field: 'title', dir: 'asc' } },
      'order_by.field',
      ['kind', 'count'],
    );
    const groupable = SURFACE_VOCABULARY.interactions.fields.filter((f) => f.groupable).map((f) => f.name);
    await rejects({ group_by: ['nope'], metrics: [{ fn: 'count' }] }, 'group_by.0', groupable);
    await rejects({ group_by: ['title'], metrics: [{ fn: 'count' }] }, 'group_by.0', groupable);
    await rejects({ group_by: ['kind', 'kind'], metrics: [{ fn: 'count' }] }, 'group_by.1');
    const numeric = SURFACE_VOCABULARY.deals.fields
      .filter((f) => f.type === 'number' || f.type === 'integer')
      .map((f) => f.name);
    await rejects({ surface: 'deals', metrics: [{ fn: 'sum', field: 'stage' }] }, 'metrics.0.field', numeric);
    await rejects({ surface: 'deals', metrics: [{ fn: 'avg' }] }, 'metrics.0.field');
    await rejects({ surface: 'deals', metrics: [{ fn: 'max', field: 'nope' }] }, 'metrics.0.field');
    await rejects({ surface: 'deals', metrics: [{ fn: 'median', field: 'amount' }] }, 'metrics.0.fn');
    await rejects({ surface: 'deals', metrics: [{ fn: 'count' }, { fn: 'count' }] }, 'metrics.1');
  });

  it('refuses the empty request, group_by without metrics, and customer_voice off interactions', async () => {
    const res = await search({});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_argument');
    expect(res.body.error.message).toContain('empty request');
    await rejects({ filters: [] }, '');
    await rejects({ group_by: ['kind'] }, 'group_by');
    await rejects(
      { surface: 'deals', audience: 'customer_voice', filters: [{ field: 'stage', op: 'eq', value: 'proposal' }] },
      'audience',
    );
  });

  it('enforces every limit of the spec, and accepts each at its maximum', async () => {
    await rejects({ query: 'x'.repeat(2001) }, 'query');
    const filters = (n: number) =>
      Array.from({ length: n }, () => ({ field: 'duration_seconds', op: 'gte', value: 0 }));
    await rejects({ filters: filters(33) }, 'filters');
    expect((await ok({ filters: filters(32), limit: 1 })).corpus.match_count).toBe(
      await countWhere('interactions', 'i.duration_seconds >= 0'),
    );
    const values = (n: number) => Array.from({ length: n }, (_, i) => `source-${i}`);
    await rejects({ filters: [{ field: 'source', op: 'in', value: values(201) }] }, 'filters.0.value');
    expect(
      (await ok({ filters: [{ field: 'source', op: 'in', value: [...values(199), 'gong'] }], limit: 1 })).corpus
        .match_count,
    ).toBe(await countWhere('interactions', "i.source = 'gong'"));
    const groupBy = [
      'kind',
      'source',
      'direction',
      'account_type',
      'deal_stage',
      'account_name',
      'deal_name',
      'participant_count',
      'external_participant_count',
    ];
    await rejects({ group_by: groupBy, metrics: [{ fn: 'count' }] }, 'group_by');
    expect(
      (await ok({ group_by: groupBy.slice(0, 8), metrics: [{ fn: 'count' }], limit: 1000 })).corpus.row_count,
    ).toBeGreaterThan(0);
    const metrics = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'].map((fn) => ({ fn, field: 'amount' }));
    const nine = [...metrics, { fn: 'count' }, { fn: 'min', field: 'close_date' }, { fn: 'max', field: 'close_date' }];
    await rejects({ surface: 'deals', metrics: nine }, 'metrics');
    expect(Object.keys((await ok({ surface: 'deals', metrics: nine.slice(0, 8) })).results[0])).toHaveLength(8);
    await rejects({ filters: [ALL], limit: 1001 }, 'limit');
    await rejects({ filters: [ALL], limit: 0 }, 'limit');
    const max = await ok({ filters: [ALL], limit: 1000 });
    expect(max.corpus.row_count).toBe(await countWhere('interactions', 'true'));
  });

  it('treats SQL in a value as data', async () => {
    const evil = "'); drop table interactions; --";
    for (const filter of [
      { field: 'title', op: 'eq', value: evil },
      { field: 'title', op: 'contains', value: evil },
      { field: 'source', op: 'in', value: [evil, "x' or '1'='1"] },
      { field: 'account_name', op: 'neq', value: evil },
    ]) {
      const data = await ok({ filters: [filter], limit: 1 });
      if (filter.op === 'neq') expect(data.corpus.match_count).toBe(await countWhere('interactions', 'true'));
      else expect(data.corpus).toMatchObject({ match_count: 0, empty_reason: 'no_match' });
    }
    expect(
      await sqlOne<number>('select count(*)::int from interactions where workspace_id = $1', [CORPUS_WORKSPACE_ID]),
    ).toBe(1000);
    const data = await ok({ filters: [{ field: 'title', op: 'eq', value: evil }] });
    expect(data.compiled.sql).toContain("title = '''); drop table interactions; --'");
  });
});

describe('group_by, metrics, order_by', () => {
  it('groups with metrics, orders by a metric alias, and matches SQL', async () => {
    const data = await ok({
      surface: 'deals',
      group_by: ['stage'],
      metrics: [
        { fn: 'count' },
        { fn: 'sum', field: 'amount' },
        { fn: 'avg', field: 'probability' },
        { fn: 'max', field: 'close_date' },
        { fn: 'count_distinct', field: 'account_id' },
      ],
      order_by: { field: 'sum_amount', dir: 'desc' },
      limit: 3,
    });
    const expected = await sqlRows<{
      stage: string;
      count: number;
      sum_amount: string | null;
      avg_probability: string | null;
      max_close_date: string | null;
      accounts: number;
    }>(
      `select stage, count(*)::int as count, sum(amount)::text as sum_amount, avg(probability)::text as avg_probability, max(close_date)::text as max_close_date, count(distinct account_id)::int as accounts
       from deals where workspace_id = $1 group by stage order by sum(amount) desc nulls last, stage asc limit 3`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(data.results).toEqual(
      expected.map((r) => ({
        stage: r.stage,
        count: r.count,
        sum_amount: r.sum_amount === null ? null : Number(r.sum_amount),
        avg_probability: r.avg_probability === null ? null : Number(r.avg_probability),
        max_close_date: r.max_close_date,
        count_distinct_account_id: r.accounts,
      })),
    );
    const stages = await sqlOne<number>('select count(distinct stage)::int from deals where workspace_id = $1', [
      CORPUS_WORKSPACE_ID,
    ]);
    expect(data.corpus).toMatchObject({ match_count: stages, row_count: 3, truncated: true });
    expect(data.corpus.coverage).toMatchObject({
      basis: 'unavailable',
      basis_reason: 'aggregate',
      max_timestamp: null,
      min_timestamp: null,
      dated_row_count: 0,
    });
    expect(data.compiled.sql).toBe(
      'SELECT stage, count(*) AS count, sum(amount) AS sum_amount, avg(probability) AS avg_probability, max(close_date) AS max_close_date, count(DISTINCT account_id) AS count_distinct_account_id FROM deals GROUP BY stage ORDER BY sum_amount DESC NULLS LAST, stage ASC NULLS LAST LIMIT 3',
    );
  });

  it('share: the percentage of rows where a flag holds (a win rate), by group, matching SQL', async () => {
    const data = await ok({
      surface: 'deals',
      filters: [{ field: 'is_closed', op: 'eq', value: true }],
      group_by: ['owner_email'],
      metrics: [{ fn: 'share', field: 'is_won' }, { fn: 'count' }],
      order_by: { field: 'share_is_won', dir: 'desc' },
    });
    const expected = await sqlRows<{ owner_email: string | null; share: string; count: number }>(
      `select owner_email, round(100.0 * avg(is_won::int), 1)::text as share, count(*)::int as count
       from deals where workspace_id = $1 and is_closed group by owner_email
       order by round(100.0 * avg(is_won::int), 1) desc nulls last, owner_email asc nulls last`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(expected.length).toBeGreaterThan(1);
    expect(data.results).toEqual(
      expected.map((r) => ({ owner_email: r.owner_email, share_is_won: Number(r.share), count: r.count })),
    );
    // A flag only: a share of a number or a text field is refused, naming the fields that take it.
    const refused = await search({ surface: 'deals', metrics: [{ fn: 'share', field: 'amount' }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.fields[0]).toMatchObject({ field: 'metrics.0.field' });
    expect(refused.body.error.details.fields[0].allowed).toEqual(expect.arrayContaining(['is_won', 'is_closed']));
    expect(refused.body.error.details.fields[0].allowed).not.toContain('amount');
  });

  it('weighted_amount: each deal amount × probability / 100, summed exactly as SQL sums it', async () => {
    const data = await ok({
      surface: 'deals',
      filters: [{ field: 'is_closed', op: 'eq', value: false }],
      metrics: [{ fn: 'sum', field: 'weighted_amount' }],
    });
    const expected = await sqlOne<string>(
      'select sum(amount * probability / 100.0)::text from deals where workspace_id = $1 and not is_closed',
      [CORPUS_WORKSPACE_ID],
    );
    expect(Number(expected)).toBeGreaterThan(0);
    expect(data.results).toEqual([{ sum_weighted_amount: Number(expected) }]);
  });

  it('fields: a row query returns only the fields asked for, in their order; aggregates and unknown names refused', async () => {
    const data = await ok({
      surface: 'deals',
      filters: [{ field: 'is_closed', op: 'eq', value: false }],
      order_by: { field: 'amount', dir: 'desc' },
      fields: ['name', 'amount', 'account_name'],
      limit: 5,
    });
    const expected = await sqlRows<{ name: string; amount: string | null; account_name: string | null }>(
      `select d.name, d.amount::text, a.name as account_name from deals d left join accounts a on a.id = d.account_id
       where d.workspace_id = $1 and not d.is_closed order by d.amount desc nulls last, d.id asc limit 5`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(data.results).toEqual(
      expected.map((r) => ({
        name: r.name,
        amount: r.amount === null ? null : Number(r.amount),
        account_name: r.account_name,
      })),
    );
    expect(Object.keys(data.results[0])).toEqual(['name', 'amount', 'account_name']);
    const unknown = await search({
      surface: 'deals',
      filters: [{ field: 'is_closed', op: 'eq', value: false }],
      fields: ['nope'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.fields[0]).toMatchObject({ field: 'fields.0', code: 'unknown_field' });
    const aggregate = await search({ surface: 'deals', metrics: [{ fn: 'count' }], fields: ['name'] });
    expect(aggregate.status).toBe(400);
    expect(aggregate.body.error.details.fields[0]).toMatchObject({ field: 'fields', code: 'unsupported' });
  });

  it('groups interactions by joined fields and honours the exclusions in counts', async () => {
    const data = await ok({
      group_by: ['kind', 'account_type'],
      metrics: [{ fn: 'count' }, { fn: 'max', field: 'occurred_at' }],
      limit: 1000,
    });
    const expected = await sqlRows<{ kind: string; type: string | null; n: number }>(
      `select i.kind, a.type, count(*)::int as n from ${FROM.interactions} group by 1, 2`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(data.results).toHaveLength(expected.length);
    for (const e of expected) {
      const row = data.results.find((r: any) => r.kind === e.kind && r.account_type === e.type);
      expect(row?.count).toBe(e.n);
      expect(row?.max_occurred_at).toMatch(/Z$/);
    }
    expect(data.results.reduce((s: number, r: { count: number }) => s + r.count, 0)).toBe(
      await countWhere('interactions', 'true'),
    );
    expect(data.corpus.truncated).toBeUndefined();
  });

  it('a bare aggregate over an empty population returns its one row with no_match', async () => {
    const data = await ok({
      surface: 'deals',
      filters: [{ field: 'name', op: 'eq', value: 'No such deal' }],
      metrics: [{ fn: 'count' }, { fn: 'max', field: 'amount' }],
    });
    expect(data.results).toEqual([{ count: 0, max_amount: null }]);
    expect(data.corpus).toMatchObject({ row_count: 1, match_count: 1, empty_reason: 'no_match' });
    expect(data.corpus.truncated).toBeUndefined();
    expect(data.detail.internal).toEqual({ status: 'empty', rows: 1, row_count: 1 });
    expect(data.corpus.coverage).toMatchObject({ basis: 'unavailable', basis_reason: 'aggregate' });
    // A bare aggregate over rows: no empty_reason.
    const full = await ok({ surface: 'deals', metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }] });
    expect(full.results[0].count).toBe(
      await sqlOne<number>('select count(*)::int from deals where workspace_id = $1', [CORPUS_WORKSPACE_ID]),
    );
    expect(full.corpus.empty_reason).toBeUndefined();
    expect(full.corpus.filters_applied).toBe(false);
  });
});

describe('empty_reason', () => {
  it('not_synced: nothing synced in the workspace; detail.coverage says the workspace is empty', async () => {
    for (const surface of ['interactions', 'deals', 'deal_qualification'] as const) {
      const data = await ok({ surface, filters: [{ field: 'occurred_at', op: 'gte', value: '2020-01-01' }] }, empty.id);
      expect(data.results).toEqual([]);
      expect(data.corpus).toMatchObject({ empty_reason: 'not_synced', row_count: 0, match_count: 0 });
      expect(data.detail.coverage).toMatchObject({
        total_rows: 0,
        latest_event_at: null,
        days_behind: null,
        is_stale: false,
      });
      expect(data.detail.internal.status).toBe('empty');
    }
  });

  it('scope_disjoint: the rows selected are all excluded interactions', async () => {
    const excluded = await sqlRows<{ id: string }>(
      'select interaction_id as id from excluded_interactions where workspace_id = $1',
      [CORPUS_WORKSPACE_ID],
    );
    expect(excluded.length).toBeGreaterThan(0);
    const data = await ok({ filters: [{ field: 'id', op: 'in', value: excluded.map((r) => r.id) }] });
    expect(data.corpus).toMatchObject({ empty_reason: 'scope_disjoint', row_count: 0 });
    expect(data.compiled.sql).not.toContain('excluded');
  });

  it('scope_disjoint: customer voice removes every row the filters select', async () => {
    const [account] = await sqlRows<{ name: string }>(
      `select a.name from accounts a join interactions i on i.account_id = a.id where a.workspace_id = $1 and a.type = 'investor'
       group by a.name having count(*) filter (where ${CUSTOMER_VOICE_SQL}) = 0 order by a.name limit 1`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(account).toBeDefined();
    const filters = [{ field: 'account_name', op: 'eq', value: account?.name }];
    expect((await ok({ filters })).corpus.row_count).toBeGreaterThan(0);
    const data = await ok({ filters, audience: 'customer_voice' });
    expect(data.corpus).toMatchObject({ empty_reason: 'scope_disjoint', audience_applied: true, row_count: 0 });
  });

  it('scope_disjoint: the asked time window lies outside the surface’s event span', async () => {
    const after = await ok({ surface: 'deals', filters: [{ field: 'occurred_at', op: 'gt', value: '2031-01-01' }] });
    expect(after.corpus.empty_reason).toBe('scope_disjoint');
    const before = await ok({
      filters: [{ field: 'occurred_at', op: 'between', value: ['2019-01-01', '2019-12-31'] }],
    });
    expect(before.corpus.empty_reason).toBe('scope_disjoint');
    expect(before.detail.message).toContain('does not overlap');
  });

  it('no_match: the data covers the ask and nothing matches', async () => {
    const data = await ok({
      filters: [
        { field: 'title', op: 'contains', value: 'qqzx-nothing' },
        { field: 'occurred_at', op: 'gte', value: '2026-01-01' },
      ],
    });
    expect(data.corpus).toMatchObject({ empty_reason: 'no_match', row_count: 0, match_count: 0 });
    expect(data.detail.internal).toEqual({ status: 'empty', rows: 0, row_count: 0 });
    expect(data.corpus.coverage).toMatchObject({ basis: 'unavailable', basis_reason: 'no_rows', dated_row_count: 0 });
    expect(data.detail.coverage.total_rows).toBe(1000);
    const grouped = await ok({
      group_by: ['kind'],
      metrics: [{ fn: 'count' }],
      filters: [{ field: 'title', op: 'contains', value: 'qqzx-nothing' }],
    });
    expect(grouped.corpus).toMatchObject({ empty_reason: 'no_match', row_count: 0 });
  });

  it('read_failed: a read that throws is a typed outcome, never a 500', async () => {
    const db = h.services.db;
    const dialect = new PgDialect();
    const failing = new Proxy(db, {
      get(target, prop) {
        // Every raw read fails except the quota's count (one raw statement too, run before the lane).
        if (prop === 'execute')
          return async (query: SQL) =>
            dialect.sqlToQuery(query).sql.includes('"usage_counters"')
              ? target.execute(query)
              : Promise.reject(new Error('simulated warehouse outage'));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const { app } = createApp({ services: { ...h.services, db: failing } });
    for (const body of [
      { filters: [{ field: 'kind', op: 'eq', value: 'call' }] },
      { surface: 'deals', metrics: [{ fn: 'count' }] },
    ]) {
      const key = await keyFor(CORPUS_WORKSPACE_ID);
      const res = await app.fetch(
        new Request(`${h.services.config.publicUrl}${API_PREFIX}/search/query`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as { data: any };
      expect(data.success).toBe(true);
      expect(data.results).toEqual([]);
      expect(data.corpus).toMatchObject({ empty_reason: 'read_failed', row_count: 0, match_count: 0 });
      expect(data.detail.internal.status).toBe('read_failed');
      expect(data.detail.coverage).toBeNull();
      expect(data.detail.message).toContain('not an empty result');
    }
  });
});

describe('corpus and coverage blocks', () => {
  it('the whole in-scope corpus: matched_set, all four age buckets, no gaps across the quiet stretch', async () => {
    const data = await ok({ filters: [ALL], limit: 1000, coverage: true });
    const total = await countWhere('interactions', 'true');
    expect(data.corpus).toEqual({
      store: 'warehouse',
      grain: 'row',
      surface: 'interactions',
      row_count: total,
      match_count: total,
      content: 'full',
      filters_applied: true,
      ignored_params: [],
      audience_applied: false,
      coverage: expect.any(Object),
    });
    const cov = data.corpus.coverage;
    const span = await sqlRows<{ min: string; max: string }>(
      `select min(i.occurred_at)::text as min, max(i.occurred_at)::text as max from ${FROM.interactions}`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(cov.basis).toBe('matched_set');
    expect(cov.basis_reason).toBeUndefined();
    expect(Date.parse(cov.min_timestamp)).toBe(Date.parse(span[0]?.min.replace(' ', 'T').replace(/\+00$/, 'Z') ?? ''));
    expect(Date.parse(cov.max_timestamp)).toBe(Date.parse(span[0]?.max.replace(' ', 'T').replace(/\+00$/, 'Z') ?? ''));
    expect(cov.dated_row_count).toBe(total);
    const now = CORPUS_NOW.toISOString();
    const bucket = (from: number | null, to: number) =>
      countWhere(
        'interactions',
        `i.occurred_at >= '${now}'::timestamptz - interval '${to} days'${from === null ? '' : ` and i.occurred_at < '${now}'::timestamptz - interval '${from} days'`}`,
      );
    const expected = {
      last_7d: { row_count: await bucket(null, 7) },
      last_30d: { row_count: await bucket(7, 30) },
      last_90d: { row_count: await bucket(30, 90) },
      older: { row_count: total - (await bucket(null, 90)) },
    };
    expect(cov.age_buckets).toEqual(expected);
    for (const b of Object.values(expected)) expect(b.row_count).toBeGreaterThan(0);
    expect(cov).toMatchObject({ gaps_status: 'ok', gaps: [], gaps_baseline: 'interactions' });

    // The corpus's quiet stretch (215 to 194 days before now) lies inside the result's span, holds no row, and is no gap.
    const quietStart = new Date(CORPUS_NOW.getTime() - 215 * DAY_MS).toISOString();
    const quietEnd = new Date(CORPUS_NOW.getTime() - 194 * DAY_MS).toISOString();
    expect(await countWhere('interactions', `i.occurred_at >= '${quietStart}' and i.occurred_at < '${quietEnd}'`)).toBe(
      0,
    );
    expect(cov.min_timestamp < quietStart && cov.max_timestamp > quietEnd).toBe(true);
  });

  it('gaps: an interior hole where the corpus held rows is reported; the quiet stretch is not', async () => {
    const data = await ok({ filters: [{ field: 'kind', op: 'eq', value: 'meeting' }], limit: 1000, coverage: true });
    const cov = data.corpus.coverage;
    expect(cov.gaps_status).toBe('ok');
    expect(cov.gaps_baseline).toBe('interactions');
    // Independently: the weeks between the first and last meeting in which the corpus had rows and no meeting.
    const weeks = await sqlRows<{ week: string; corpus: number }>(
      `with span as (select date_trunc('week', min(i.occurred_at) at time zone 'UTC') as lo, date_trunc('week', max(i.occurred_at) at time zone 'UTC') as hi from ${FROM.interactions} and i.kind = 'meeting')
       select to_char(date_trunc('week', i.occurred_at at time zone 'UTC'), 'YYYY-MM-DD') as week, count(*)::int as corpus
       from ${FROM.interactions} and date_trunc('week', i.occurred_at at time zone 'UTC') between (select lo from span) and (select hi from span)
       group by 1 having count(*) filter (where i.kind = 'meeting') = 0 order by 1`,
      [CORPUS_WORKSPACE_ID],
    );
    expect(weeks.length, 'the corpus should have weeks without meetings').toBeGreaterThan(0);
    const reported: { week: string; corpus: number }[] = [];
    for (const gap of cov.gaps as { start: string; end: string; corpus_row_count: number }[]) {
      let sum = 0;
      for (let w = Date.parse(gap.start); w < Date.parse(gap.end); w += 7 * DAY_MS) {
        const week = new Date(w).toISOString().slice(0, 10);
        const found = weeks.find((x) => x.week === week);
        if (found) {
          reported.push(found);
          sum += found.corpus;
        }
      }
      expect(gap.corpus_row_count).toBe(sum);
      expect(
        await countWhere(
          'interactions',
          `i.kind = 'meeting' and i.occurred_at >= '${gap.start}' and i.occurred_at < '${gap.end}'`,
        ),
      ).toBe(0);
    }
    expect(reported).toEqual(weeks);
    // No reported gap covers a week lying wholly inside the quiet stretch.
    const quietStart = CORPUS_NOW.getTime() - 215 * DAY_MS;
    const quietEnd = CORPUS_NOW.getTime() - 194 * DAY_MS;
    for (const gap of cov.gaps) {
      for (let w = Date.parse(gap.start); w < Date.parse(gap.end); w += 7 * DAY_MS)
        expect(w >= quietStart && w + 7 * DAY_MS <= quietEnd).toBe(false);
    }
  });

  it('truncated: returned_rows/truncated, figures over the returned rows only', async () => {
    const data = await ok({ filters: [ALL], limit: 10, coverage: true });
    expect(data.corpus.truncated).toBe(true);
    expect(data.corpus.row_count).toBe(10);
    const cov = data.corpus.coverage;
    expect(cov).toMatchObject({
      basis: 'returned_rows',
      basis_reason: 'truncated',
      dated_row_count: 10,
      gaps_status: 'ok',
    });
    expect(Object.values(cov.age_buckets).reduce((s: number, b: any) => s + b.row_count, 0)).toBe(10);
    expect(cov.max_timestamp).toBe(data.results[0].occurred_at);
    expect(cov.min_timestamp).toBe(data.results[9].occurred_at);
  });

  it('gap detection is unavailable for aggregates, empty results and surfaces without a baseline', async () => {
    const agg = await ok({ group_by: ['kind'], metrics: [{ fn: 'count' }], coverage: true });
    expect(agg.corpus.coverage).toMatchObject({
      basis: 'unavailable',
      basis_reason: 'aggregate',
      gaps_status: 'unavailable',
      gaps_reason: 'aggregate',
    });
    const none = await ok({ filters: [{ field: 'title', op: 'contains', value: 'qqzx' }], coverage: true });
    expect(none.corpus.coverage).toMatchObject({
      basis: 'unavailable',
      basis_reason: 'no_rows',
      gaps_status: 'unavailable',
    });
    const deals = await ok({
      surface: 'deals',
      filters: [{ field: 'stage', op: 'eq', value: 'closed_won' }],
      coverage: true,
      limit: 1000,
    });
    expect(deals.corpus.coverage).toMatchObject({
      basis: 'matched_set',
      gaps_status: 'unavailable',
      gaps_reason: 'baseline_unsupported_surface',
    });
    expect(deals.corpus.coverage.gaps).toBeUndefined();
    const plain = await ok({ filters: [ALL], limit: 5 });
    expect(plain.corpus.coverage.gaps_status).toBe('not_requested');
    expect(Object.keys(plain.corpus.coverage.age_buckets)).toEqual(['last_7d', 'last_30d', 'last_90d', 'older']);
  });

  it('ignored_params lists what the filter lane accepts but does not honour', async () => {
    const data = await ok({
      mode: 'filter',
      query: 'renewal',
      hydrate: false,
      filters: [{ field: 'kind', op: 'eq', value: 'call' }],
      limit: 1,
    });
    expect(data.mode_ran).toBe('filter');
    expect(data.corpus.ignored_params).toEqual(['hydrate', 'query']);
  });
});

describe('data scope', () => {
  it('customer_voice keeps customer, sales_target and untyped accounts, drops the rest, rescues genuine buyers', async () => {
    const data = await ok({ filters: [ALL], audience: 'customer_voice', limit: 1000 });
    expect(data.corpus.audience_applied).toBe(true);
    expect(data.corpus.match_count).toBe(await countWhere('interactions', CUSTOMER_VOICE_SQL));
    const kept = new Set(['customer', 'sales_target', null]);
    const rescued = data.results.filter((r: any) => !kept.has(r.account_type));
    expect(rescued.length).toBeGreaterThan(0);
    const buyers = new Set(
      (
        await sqlRows<{ id: string }>(
          `select distinct p.interaction_id as id from participants p left join contacts c on c.id = p.contact_id
           where p.workspace_id = $1 and p.side = 'external' and (p.role in ('champion', 'economic_buyer', 'technical_evaluator', 'end_user', 'procurement', 'legal') or coalesce(c.is_buyer, false))`,
          [CORPUS_WORKSPACE_ID],
        )
      ).map((r) => r.id),
    );
    for (const row of rescued)
      expect(buyers.has(row.id), `${row.account_type} row ${row.id} kept without a buyer`).toBe(true);
    const dropped = await countWhere('interactions', "a.type in ('investor', 'media', 'competitor')");
    const droppedKept = data.results.filter((r: any) =>
      ['investor', 'media', 'competitor'].includes(r.account_type),
    ).length;
    expect(droppedKept).toBeLessThan(dropped);
    const all = await ok({ filters: [ALL], limit: 1 });
    expect(all.corpus.audience_applied).toBe(false);
    expect(all.corpus.match_count).toBeGreaterThan(data.corpus.match_count);
  });

  it('excluded interactions never appear, in rows or in aggregates', async () => {
    const excluded = new Set(
      (
        await sqlRows<{ id: string }>(
          'select interaction_id as id from excluded_interactions where workspace_id = $1',
          [CORPUS_WORKSPACE_ID],
        )
      ).map((r) => r.id),
    );
    const rows = await ok({ filters: [ALL], limit: 1000 });
    expect(rows.results.some((r: { id: string }) => excluded.has(r.id))).toBe(false);
    expect(rows.corpus.match_count).toBe(1000 - excluded.size);
    const agg = await ok({ metrics: [{ fn: 'count' }] });
    expect(agg.results[0].count).toBe(1000 - excluded.size);
  });

  it('another workspace’s rows never appear, on any surface; its own caller sees only them', async () => {
    const mine = await ok({ filters: [{ field: 'title', op: 'contains', value: MARKER }] });
    expect(mine.corpus).toMatchObject({ row_count: 0, empty_reason: 'no_match' });
    for (const surface of ['deals', 'deal_qualification'] as const) {
      const data = await ok({ surface, filters: [{ field: 'account_name', op: 'contains', value: MARKER }], limit: 5 });
      expect(data.corpus.row_count).toBe(0);
    }
    const corpusCount = await ok({ surface: 'deals', metrics: [{ fn: 'count' }, { fn: 'max', field: 'amount' }] });
    expect(corpusCount.results[0].count).toBe(
      await sqlOne<number>('select count(*)::int from deals where workspace_id = $1', [CORPUS_WORKSPACE_ID]),
    );
    const theirs = await ok({ filters: [ALL], limit: 1000 }, tenantB.id);
    expect(theirs.results.map((r: { title: string }) => r.title).sort()).toEqual([`${MARKER} call`, `${MARKER} email`]);
    expect(theirs.detail.coverage.total_rows).toBe(2);
    const theirDeals = await ok(
      { surface: 'deal_qualification', metrics: [{ fn: 'count' }, { fn: 'max', field: 'score' }] },
      tenantB.id,
    );
    expect(theirDeals.results).toEqual([{ count: 1, max_score: 3 }]);
    const grouped = await ok({ group_by: ['account_name'], metrics: [{ fn: 'count' }] }, tenantB.id);
    expect(grouped.results).toEqual([{ account_name: `${MARKER} account`, count: 2 }]);
  });
});

describe('freshness and staleness', () => {
  it('says the data may be behind when a recent-window ask is empty', async () => {
    const later = new Date(CORPUS_NOW.getTime() + 120 * DAY_MS);
    clock.set(later);
    try {
      const since = new Date(later.getTime() - 30 * DAY_MS).toISOString();
      const data = await ok({ filters: [{ field: 'occurred_at', op: 'gte', value: since }] });
      expect(data.results).toEqual([]);
      expect(data.corpus.empty_reason).toBe('scope_disjoint');
      expect(data.detail.coverage).toMatchObject({ is_stale: true, days_behind: 120, total_rows: 1000 });
      expect(data.detail.message).toContain('may be behind');
      expect(data.detail.message).toContain(since.slice(0, 10));
    } finally {
      clock.set(CORPUS_NOW);
    }
    // At the corpus's own now the same kind of ask finds rows and no staleness is claimed.
    const fresh = await ok({
      filters: [{ field: 'occurred_at', op: 'gte', value: new Date(CORPUS_NOW.getTime() - 30 * DAY_MS).toISOString() }],
    });
    expect(fresh.corpus.row_count).toBeGreaterThan(0);
    expect(fresh.detail.coverage.is_stale).toBe(false);
    expect(fresh.detail.message).not.toContain('behind');
  });
});

describe('limits and transports', () => {
  it('allows 10 queries a minute per user: the 11th is 429 rate_limited', async () => {
    const key = await freshKey(CORPUS_WORKSPACE_ID);
    const body = { surface: 'deals', metrics: [{ fn: 'count' }] };
    for (let i = 0; i < 10; i++) {
      const res = await h.request('POST', '/search/query', { key, body });
      expect(res.status, res.text).toBe(200);
    }
    const res = await h.request('POST', '/search/query', { key, body });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(res.body.error.details).toMatchObject({ limit: 10, window_seconds: 60 });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another user is not affected.
    expect((await search(body)).status).toBe(200);
  });

  it('runs the same query over MCP (search tool, action query) with the same answer', async () => {
    const key = await keyFor(CORPUS_WORKSPACE_ID);
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: async (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': key } },
    });
    const client = new Client({ name: 'filter-lane-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      const args = {
        surface: 'deals',
        filters: [{ field: 'stage', op: 'eq', value: 'closed_won' }],
        order_by: { field: 'amount', dir: 'desc' },
        limit: 3,
      };
      const result = (await client.callTool({ name: 'search', arguments: { action: 'query', ...args } })) as {
        isError?: boolean;
        structuredContent?: any;
      };
      expect(result.isError).toBeFalsy();
      const rest = await ok(args);
      expect(result.structuredContent).toEqual(rest);
      expect(result.structuredContent.corpus.match_count).toBe(
        await sqlOne<number>("select count(*)::int from deals where workspace_id = $1 and stage = 'closed_won'", [
          CORPUS_WORKSPACE_ID,
        ]),
      );
      const bad = (await client.callTool({
        name: 'search',
        arguments: { action: 'query', filters: [{ field: 'nope', op: 'eq', value: 1 }] },
      })) as { isError?: boolean; structuredContent?: any };
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent.error.code).toBe('invalid_argument');
    } finally {
      await client.close();
    }
  });
});
