import { z } from '@hono/zod-openapi';
import { allOperations } from '../../functions/modules.js';
import { defineOperation, type Operation } from '../../functions/registry.js';
import { pagingQuery, uuidParam } from '../../functions/schemas.js';
import { ApiError, ERROR_CODES } from '../../platform/errors.js';
import { deepFreeze } from '../../platform/static-value.js';

/**
 * Test-only operations that exercise the transports' conventions: a strict body with an enum and
 * an array of objects, path params, query coercion, a crash, secrets in details, every error code,
 * a scope and a role gate, MCP resources (fixed and templated), in-process delegation, a per-user
 * limit, a console-only and a coming-soon operation. Pass `withTestOperations` to createHarness.
 */

const ItemSchema = z.object({ label: z.string().min(1), weight: z.number().optional() }).strict();

const EchoBody = z
  .object({
    name: z.string().min(1).max(50),
    kind: z.enum(['alpha', 'beta']),
    items: z.array(ItemSchema).max(5).optional(),
    note: z.string().optional(),
  })
  .strict();

const ThingSchema = z.object({ id: z.string(), label: z.string() });

/** A frozen answer whose checked form differs from it (a schema default fills `label`). */
const STATIC_CATALOG = deepFreeze({ kinds: [{ name: 'call', label: 'Call' }, { name: 'email' }] });
const STATIC_BAD_OUTPUT = deepFreeze({ count: 'not a number' });

export const THING_IDS = ['0193a1b2-0000-7000-8000-000000000001', '0193a1b2-0000-7000-8000-000000000002'] as const;

export const testOperations: Operation[] = [
  defineOperation({
    id: 'testing.echo',
    method: 'post',
    path: '/testing/echo',
    summary: 'Echo a validated body',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'echo' },
    body: EchoBody,
    output: z.object({ echoed: EchoBody }),
    successStatus: 201,
    async handler(_ctx, input) {
      return { echoed: input };
    },
  }),
  // Declared before the fixed `thing://list` on purpose: a fixed URI must win over a template that also matches it.
  defineOperation({
    id: 'testing.get_thing',
    method: 'get',
    path: '/testing/things/{id}',
    summary: 'Read one thing',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'stable',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'get_thing', resource: 'thing://{id}' },
    params: z.object({ id: uuidParam('id') }),
    output: ThingSchema,
    async handler(_ctx, input) {
      if (!(THING_IDS as readonly string[]).includes(input.id))
        throw new ApiError('not_found', `No thing ${input.id}.`, { id: input.id });
      return { id: input.id, label: `thing ${input.id.slice(-1)}` };
    },
  }),
  defineOperation({
    id: 'testing.list_things',
    method: 'get',
    path: '/testing/things',
    summary: 'List things',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'stable',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'list_things', resource: 'thing://list' },
    query: z.object({ ...pagingQuery, order: z.enum(['asc', 'desc']).optional() }),
    output: z.object({ rows: z.array(ThingSchema), limit: z.number(), offset: z.number(), total: z.number() }),
    async handler(_ctx, input) {
      const rows = THING_IDS.map((id) => ({ id, label: `thing ${id.slice(-1)}` }));
      if (input.order === 'desc') rows.reverse();
      return {
        rows: rows.slice(input.offset, input.offset + input.limit),
        limit: input.limit,
        offset: input.offset,
        total: rows.length,
      };
    },
  }),
  defineOperation({
    id: 'testing.crash',
    method: 'get',
    path: '/testing/crash',
    summary: 'Throw a plain Error',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'crash' },
    output: z.object({}),
    async handler() {
      throw new Error('connection to postgres://admin:hunter2@db.internal failed');
    },
  }),
  defineOperation({
    id: 'testing.bad_output',
    method: 'get',
    path: '/testing/bad-output',
    summary: 'Return a body that breaks its own schema',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    output: z.object({ count: z.number() }),
    async handler() {
      return { count: 'not a number' } as unknown as { count: number };
    },
  }),
  defineOperation({
    id: 'testing.static_catalog',
    method: 'get',
    path: '/testing/static-catalog',
    summary: 'Answer with the same frozen value every call (checked and serialized once)',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'static_catalog' },
    output: z.object({ kinds: z.array(z.object({ name: z.string(), label: z.string().default('unnamed') })) }),
    async handler() {
      return STATIC_CATALOG;
    },
  }),
  defineOperation({
    id: 'testing.static_bad_output',
    method: 'get',
    path: '/testing/static-bad-output',
    summary: 'Answer with a frozen value that breaks its own schema',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    output: z.object({ count: z.number() }),
    async handler() {
      return STATIC_BAD_OUTPUT as unknown as { count: number };
    },
  }),
  defineOperation({
    id: 'testing.secret',
    method: 'get',
    path: '/testing/secret',
    summary: 'Throw an error whose details hold secrets',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'secret' },
    output: z.object({}),
    async handler() {
      throw new ApiError('invalid_argument', 'x', {
        api_key: 'sk-123',
        nested: { client_secret: 'abc', visible: 'ok' },
        list: [{ password: 'p@ss' }],
        plain: 'kept',
      });
    },
  }),
  defineOperation({
    id: 'testing.fail',
    method: 'get',
    path: '/testing/fail/{code}',
    summary: 'Throw the given error code',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    params: z.object({ code: z.enum(ERROR_CODES) }),
    output: z.object({}),
    async handler(_ctx, input) {
      throw new ApiError(input.code, `forced ${input.code}`, { forced: input.code });
    },
  }),
  defineOperation({
    id: 'testing.needs_scope',
    method: 'get',
    path: '/testing/needs-scope',
    summary: 'Needs platform:write (not in the customer_agent bundle)',
    tags: ['Testing'],
    scopes: ['platform:write'],
    minRole: 'viewer',
    stability: 'stable',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'needs_scope' },
    output: z.object({ ok: z.boolean() }),
    async handler() {
      return { ok: true };
    },
  }),
  defineOperation({
    id: 'testing.admin_only',
    method: 'get',
    path: '/testing/admin-only',
    summary: 'Needs workspace role admin',
    tags: ['Testing'],
    scopes: ['data:read'],
    minRole: 'admin',
    stability: 'stable',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'admin_only' },
    output: z.object({ ok: z.boolean() }),
    async handler() {
      return { ok: true };
    },
  }),
  defineOperation({
    id: 'testing.delegate',
    method: 'post',
    path: '/testing/delegate',
    summary: 'Call another operation in-process as the same caller (the agents path)',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    body: z.object({ operation: z.string(), input: z.record(z.string(), z.unknown()).optional() }).strict(),
    output: z.object({ result: z.unknown() }),
    async handler(ctx, input) {
      return { result: await ctx.invoke(input.operation, input.input ?? {}) };
    },
  }),
  defineOperation({
    id: 'testing.limited',
    method: 'get',
    path: '/testing/limited',
    summary: 'One call per minute per user',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    rateLimit: { limit: 1, windowSeconds: 60 },
    output: z.object({ ok: z.boolean() }),
    async handler() {
      return { ok: true };
    },
  }),
  defineOperation({
    id: 'testing.console_only',
    method: 'get',
    path: '/testing/console-only',
    summary: 'Console-only',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'stable',
    visibility: 'console',
    mcp: { tool: 'testing', action: 'console_only' },
    output: z.object({ ok: z.boolean() }),
    async handler() {
      return { ok: true };
    },
  }),
  defineOperation({
    id: 'testing.coming_soon',
    method: 'post',
    path: '/testing/coming-soon',
    summary: 'Planned, not live',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'coming_soon',
    visibility: 'public',
    mcp: { tool: 'testing', action: 'coming_soon' },
    output: z.object({ ok: z.boolean() }),
    async handler() {
      return { ok: true };
    },
  }),
];

export const withTestOperations: Operation[] = [...allOperations, ...testOperations];
