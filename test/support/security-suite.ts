import { eq, sql } from 'drizzle-orm';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../functions/http/body-limit.js';
import { API_PREFIX } from '../../functions/http/env.js';
import { createApiKey } from '../../functions/identity/api-keys.js';
import { ensureMembership, ensureUser, removeMembership } from '../../functions/identity/members.js';
import { SCOPES, type Bundle, type Scope } from '../../functions/identity/scopes.js';
import type { Operation } from '../../functions/registry.js';
import type { ManualClock } from '../../platform/clock.js';
import { MAX_JSON_DEPTH } from '../../platform/json-depth.js';
import { fieldsReadingDates } from '../../platform/validation.js';
import { loadRun } from '../../queues/run-store.js';
import { LocalTransport } from '../../queues/transport/local.js';
import { apiKeys, oauthTokens } from '../../schema/index.js';
import type { Role } from '../../schema/tenancy.js';
import { docxDeclaredZipBomb } from './bombs.js';
import type { Harness, Member, RequestOptions, SeededWorkspace, TestResponse } from './harness.js';

/**
 * The one security suite every operation runs (conventions: "one shared suite that every route runs
 * for the security cases"). test/security.test.ts drives it from the registry, so an operation
 * without an entry in test/security-fixtures/ (one file per surface, merged in index.ts) fails the build.
 *
 * A fixture only says how to build a valid request for an operation in a given workspace and how
 * the operation relates to tenants; the suite derives every refusal from the declaration itself
 * (scopes, minRole, visibility, MCP binding).
 */

export interface OperationRequest {
  /** Values for the `{placeholders}` of the operation's path. */
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

export interface FixtureContext {
  h: Harness;
  /** The workspace the request must address (the caller's, or the other tenant's for `foreign`). */
  ws: SeededWorkspace;
}

export type Tenancy =
  /** The operation addresses one resource by id: another tenant's resource must be 404 not_found. */
  | {
      kind: 'by_id';
      /** Create a resource in `ctx.ws` and return a request addressing it (the suite calls it with the other tenant). */
      foreign(ctx: FixtureContext): Promise<OperationRequest>;
    }
  /**
   * The operation reads one resource by id but answers an unknown or another tenant's id with
   * `data: null` (the spec's eval-run reads), never with that tenant's data.
   */
  | {
      kind: 'by_id_null';
      foreign(ctx: FixtureContext): Promise<OperationRequest>;
    }
  /** The operation reads or writes the caller's workspace as a whole: its answer shows only that workspace. */
  | {
      kind: 'workspace';
      /** Further checks on a successful response's `data` for the caller's workspace `ws` (the suite already checks `other` never appears). */
      assertOwn?(data: any, ctx: { ws: SeededWorkspace; other: SeededWorkspace }): void;
    };

export interface SecurityFixture {
  /** A valid request in `ctx.ws`. Called for every probe, so it may create the resource it addresses. */
  request(ctx: FixtureContext): OperationRequest | Promise<OperationRequest>;
  tenancy: Tenancy;
  /** Status an authorized caller gets for the valid request; default the operation's successStatus, else 200. */
  okStatus?: number;
  /** The body field of an operation that runs SQL the caller writes: it gets every form of escaping the workspace. */
  callerSql?: { field: string };
}

/**
 * Ways out of a workspace through caller SQL, each seen work against a parser guard at some point: a function
 * written as an attribute (`(expr).fn`, `rel.fn`), functions that run SQL or read files, the tables under the
 * views, the catalogs, settings that switch the role or outlive the request, and a sleep that holds the server.
 */
export const CALLER_SQL_ESCAPES = [
  "select (select 'secrets.json').pg_read_file as f",
  'select a.pg_read_file from (select name from accounts) a',
  "select (select 'select name from accounts').query_to_xml as x",
  "select * from ts_stat('select to_tsvector(name) from public.accounts')",
  'select name from public.accounts',
  'select rolname, rolpassword from pg_catalog.pg_authid',
  "select set_config('role', 'postgres', false)",
  "select (select 'role').set_config as s",
  'select pg_sleep(30)',
  "select pg_read_file('secrets.json')",
] as const;

/**
 * Statements a parser guard accepts that Postgres refuses while planning them (SQLSTATE class 42: a column,
 * table or function signature the views lack, a syntax rule of analysis, types that do not match, a type it
 * cannot infer). The caller's text decides each, so each is the caller's 400 naming the field, never a 500.
 */
export const CALLER_SQL_MISTAKES = [
  'select no_such_column from accounts',
  'select * from (with c as (select 1 as x) select * from c) a, c',
  'select lower(1) as l',
  'select 1 as a union select 1, 2',
  'select name from accounts where name',
  'select array[] as a',
] as const;

export const CREDENTIAL_KINDS = ['api_key', 'oauth', 'identity_provider'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** The credential kinds an operation accepts (`authMethods`; all of them when it does not say). */
export const acceptedKinds = (op: Operation): CredentialKind[] =>
  CREDENTIAL_KINDS.filter((k) => !op.authMethods || op.authMethods.includes(k));

/** Signs identity-provider JWTs the way an external IdP configured with IDP_JWT_SECRET (HS256) would. */
export interface IdpSigner {
  issuer: string;
  audience: string;
  secret: string;
  sign(claims: IdpClaims, options?: IdpSignOptions): Promise<string>;
}

export interface IdpClaims {
  /** Goes in the `business_id` claim (the default IDP_WORKSPACE_CLAIM). */
  workspaceId?: string;
  email?: string;
  /** Space-separated; omitted means the token carries no scope claim. */
  scope?: string;
  sub?: string;
  /** Any other claims. */
  extra?: Record<string, unknown>;
}

export interface IdpSignOptions {
  now?: Date;
  ttlSeconds?: number;
  issuer?: string;
  audience?: string;
  /** Sign with another secret (a forged token). */
  secret?: string;
}

export function hsIdpSigner(config: {
  issuer: string;
  audience: string;
  secret: string;
  clock: { now(): Date };
}): IdpSigner {
  return {
    issuer: config.issuer,
    audience: config.audience,
    secret: config.secret,
    async sign(claims, options = {}) {
      const iat = Math.floor((options.now ?? config.clock.now()).getTime() / 1000);
      const payload: Record<string, unknown> = { ...claims.extra };
      if (claims.workspaceId !== undefined) payload.business_id = claims.workspaceId;
      if (claims.email !== undefined) payload.email = claims.email;
      if (claims.scope !== undefined) payload.scope = claims.scope;
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(options.issuer ?? config.issuer)
        .setAudience(options.audience ?? config.audience)
        .setSubject(claims.sub ?? `idp|${claims.email ?? 'anonymous'}`)
        .setIssuedAt(iat)
        .setExpirationTime(iat + (options.ttlSeconds ?? 3600))
        .sign(new TextEncoder().encode(options.secret ?? config.secret));
    },
  };
}

/** The environment a harness needs so its IdP accepts what `hsIdpSigner` signs. */
export const idpEnv = (signer: Pick<IdpSigner, 'issuer' | 'audience' | 'secret'>): Record<string, string> => ({
  IDP_ISSUER: signer.issuer,
  IDP_AUDIENCE: signer.audience,
  IDP_JWT_SECRET: signer.secret,
});

export interface SecurityContext {
  h: Harness;
  /** The harness clock (expired credentials are minted by moving it back). */
  clock: ManualClock;
  ws: SeededWorkspace;
  /** Another tenant, with the same members. */
  other: SeededWorkspace;
  idp: IdpSigner;
  /** Credentials (one per kind, all scopes) of an admin who was removed from `ws` after they were issued. */
  removed: Record<CredentialKind, RequestOptions>;
}

/** Seed two tenants and a removed member: once per test file, shared by every operation. */
export async function createSecurityContext(h: Harness, clock: ManualClock, idp: IdpSigner): Promise<SecurityContext> {
  const ws = await h.seedWorkspace();
  const other = await h.seedWorkspace();
  const email = `removed-${ws.id.slice(0, 8)}@leavers.test`;
  const userId = await ensureUser(h.database.db, email);
  await ensureMembership(h.database.db, ws.id, userId, 'admin');
  const { key } = await createApiKey(h.database.db, {
    workspaceId: ws.id,
    userId,
    name: 'leaver',
    bundle: 'full_admin',
    role: 'admin',
    expiresAt: null,
  });
  const leaver: Member = { userId, email, role: 'admin', key };
  const removed: Record<CredentialKind, RequestOptions> = {
    api_key: { key },
    oauth: { bearer: await ws.tokenFor(leaver, SCOPES) },
    identity_provider: { bearer: await idp.sign({ workspaceId: ws.id, email, scope: SCOPES.join(' ') }) },
  };
  await removeMembership(h.database.db, ws.id, userId);
  return { h, clock, ws, other, idp, removed };
}

const KEY_BUNDLE_FOR_ROLE: Record<Role, Bundle> = {
  admin: 'full_admin',
  editor: 'internal_agent',
  viewer: 'customer_agent',
};

/**
 * A credential of `member` (of `ws`) carrying exactly `scopes`. API keys get their scopes from a
 * bundle; to test an arbitrary set the suite mints a key and then narrows its stored scopes.
 */
export async function credentialWith(
  ctx: SecurityContext,
  kind: CredentialKind,
  member: Member,
  scopes: readonly Scope[],
  ws: SeededWorkspace = ctx.ws,
): Promise<RequestOptions> {
  switch (kind) {
    case 'api_key': {
      const { key, keyId } = await ws.keyFor(member, KEY_BUNDLE_FOR_ROLE[member.role]);
      await ctx.h.database.db
        .update(apiKeys)
        .set({ scopes: [...scopes] })
        .where(eq(apiKeys.id, keyId));
      return { key };
    }
    case 'oauth':
      return { bearer: await ws.tokenFor(member, scopes) };
    case 'identity_provider':
      return { bearer: await ctx.idp.sign({ workspaceId: ws.id, email: member.email, scope: scopes.join(' ') }) };
  }
}

/** Assert the error envelope `{error: {code, message, details?}}`, its status and the correlation id. */
export function expectError(res: TestResponse, status: number, code: string, label = ''): void {
  const where = `${label}: got ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, where).toBe(status);
  expect(res.headers.get('x-correlation-id'), where).toMatch(/\S/);
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  const body = res.body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  expect(Object.keys(body ?? {}), where).toEqual(['error']);
  expect(body?.error?.code, where).toBe(code);
  expect(typeof body?.error?.message === 'string' && body.error.message.length > 0, where).toBe(true);
  for (const key of Object.keys(body?.error ?? {})) expect(['code', 'message', 'details'], where).toContain(key);
  if (body?.error?.details !== undefined) expect(typeof body.error.details, where).toBe('object');
}

export function expectOk(res: TestResponse, status: number, label = ''): void {
  expect(res.status, `${label}: got ${res.status} ${res.text.slice(0, 400)}`).toBe(status);
  expect(res.headers.get('x-correlation-id'), label).toMatch(/\S/);
}

/** Malformed credentials: each must be 401 invalid_token. */
export const MALFORMED_CREDENTIALS: { label: string; headers: Record<string, string> }[] = [
  { label: "X-API-Key 'nope'", headers: { 'x-api-key': 'nope' } },
  { label: "X-API-Key 'cip_short'", headers: { 'x-api-key': 'cip_short' } },
  { label: 'X-API-Key of the right shape that was never issued', headers: { 'x-api-key': `cip_${'A'.repeat(40)}` } },
  { label: "Authorization 'Basic abc'", headers: { authorization: 'Basic abc' } },
  { label: "Authorization 'Bearer not.a.jwt'", headers: { authorization: 'Bearer not.a.jwt' } },
  { label: "Authorization 'Bearer cip_short'", headers: { authorization: 'Bearer cip_short' } },
  { label: 'Authorization Bearer with no value', headers: { authorization: 'Bearer ' } },
];

const ROLE_BELOW: Record<Role, Role[]> = { viewer: [], editor: ['viewer'], admin: ['viewer', 'editor'] };

export function pathFor(op: Operation, params: Record<string, string> | undefined): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined)
      throw new Error(`security fixture for ${op.id} gives no value for path parameter "${name}"`);
    return encodeURIComponent(value);
  });
}

export function sendOperation(
  h: Harness,
  op: Operation,
  req: OperationRequest,
  auth: RequestOptions,
): Promise<TestResponse<any>> {
  return h.request(op.method.toUpperCase(), pathFor(op, req.params), {
    ...auth,
    ...(req.query ? { query: req.query } : {}),
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
}

/** A request the operation could never accept: junk path values, an unknown query field, a body that is not JSON. */
function garbageRequest(op: Operation): OperationRequest {
  const params = Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1] as string, 'garbage']));
  return { params, query: { __garbage__: 'x' }, ...(op.body ? { body: '{"not json' } : {}) };
}

export interface McpToolResult {
  status: number;
  isError: boolean;
  /** The error code of a tool error, or undefined. */
  code: string | undefined;
  text: string;
}

/** Call an operation's MCP tool (stateless Streamable HTTP, JSON response). */
export async function callMcpTool(
  h: Harness,
  op: Operation,
  req: OperationRequest,
  auth: RequestOptions,
): Promise<McpToolResult> {
  if (!op.mcp) throw new Error(`${op.id} has no MCP binding`);
  const args = {
    ...req.params,
    ...req.query,
    ...(req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {}),
    action: op.mcp.action,
  };
  const res = await h.request('POST', '/mcp', {
    ...auth,
    headers: { accept: 'application/json, text/event-stream', ...auth.headers },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: op.mcp.tool, arguments: args } },
  });
  const result = (
    res.body as { result?: { isError?: boolean; structuredContent?: { error?: { code?: string } } } } | undefined
  )?.result;
  return {
    status: res.status,
    isError: result?.isError === true,
    code: result?.structuredContent?.error?.code,
    text: res.text,
  };
}

/** The size of each chunk an over-long body is streamed in, and so how far past the limit a reader may look. */
const BODY_CHUNK_BYTES = 64 * 1024;
/** Far past the body limit: an operation that reads the whole body before judging its size reads all of this. */
const STREAMED_BODY_BYTES = 8 * MAX_BODY_BYTES;

/**
 * The operation's valid JSON body made endless: its fields, then one more string field that never
 * closes, streamed in chunks with no Content-Length (nothing to refuse it by unread), counting what is pulled.
 */
export function endlessJsonBody(valid: unknown): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const encoder = new TextEncoder();
  const fields = valid && typeof valid === 'object' && !Array.isArray(valid) ? valid : {};
  const open = JSON.stringify({ ...fields, padding: '' });
  const prefix = encoder.encode(open.slice(0, -2));
  const filler = encoder.encode('a'.repeat(BODY_CHUNK_BYTES));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= STREAMED_BODY_BYTES) return controller.close();
        const chunk = sent === 0 ? prefix : filler;
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => sent };
}

/** The number of rows in every table of the public schema: a refused request must leave all of them as they were. */
export async function rowCounts(h: Harness): Promise<Record<string, number>> {
  const db = h.services.db;
  const tables = (await db.execute(
    sql`select tablename from pg_tables where schemaname = 'public' order by tablename`,
  )) as unknown as { rows: { tablename: string }[] };
  const names = tables.rows.map((r) => r.tablename);
  if (names.length === 0) return {};
  const counts = (await db.execute(
    sql.raw(`select ${names.map((n, i) => `(select count(*) from public."${n}") as c${i}`).join(', ')}`),
  )) as unknown as { rows: Record<string, number | string>[] };
  const row = counts.rows[0] ?? {};
  return Object.fromEntries(names.map((n, i) => [n, Number(row[`c${i}`])]));
}

/** Dates that look like dates and name no day: every field that reads a date refuses each. */
export const IMPOSSIBLE_DATES = ['9999-99-99', '2026-02-30', '2026-13-01'] as const;

/** The fields of an operation's body and query that the service reads dates from (declared with readsDates). */
export const fieldsThatReadDates = (op: Operation): { name: string; where: 'body' | 'query' }[] => [
  ...fieldsReadingDates(op.body).map((name) => ({ name, where: 'body' as const })),
  ...fieldsReadingDates(op.query).map((name) => ({ name, where: 'query' as const })),
];

/** Exposed over MCP: public and live (the security suite runs with every launch switch on). */
const mcpExposes = (op: Operation): boolean =>
  Boolean(op.mcp) && op.visibility === 'public' && (op.stability !== 'coming_soon' || op.launchSwitch !== undefined);

/**
 * Register the security cases of one operation. `get` returns the file's shared context (built in
 * beforeAll, so it is read lazily).
 */
export function describeSecurity(op: Operation, fixture: SecurityFixture, get: () => SecurityContext): void {
  const okStatus = fixture.okStatus ?? op.successStatus ?? 200;
  const consoleOnly = op.visibility === 'console';
  const label = `${op.id} (${op.method.toUpperCase()} ${op.path}; scopes [${op.scopes.join(', ')}], role ≥ ${op.minRole}${consoleOnly ? ', console only' : ''})`;

  const valid = async (ws?: SeededWorkspace): Promise<OperationRequest> => {
    const ctx = get();
    return fixture.request({ h: ctx.h, ws: ws ?? ctx.ws });
  };
  const send = async (auth: RequestOptions, req?: OperationRequest): Promise<TestResponse<any>> =>
    sendOperation(get().h, op, req ?? (await valid()), auth);
  /**
   * The sender of a case whose every request must be refused: one valid request, built on first use
   * and sent with each of the case's credentials. A refused request changes nothing it addresses, so
   * each credential meets the same resource, where building one per send (some fixtures finish a chat
   * run to have a paused one) was most of the suite's time. A credential wrongly accepted still fails
   * its own assertion.
   */
  const refusedSender = () => {
    let req: Promise<OperationRequest> | undefined;
    return async (auth: RequestOptions): Promise<TestResponse<any>> => {
      req ??= valid();
      return send(auth, await req);
    };
  };
  /** Every scope the service knows except those listed. */
  const allScopesBut = (missing: readonly Scope[]): Scope[] => SCOPES.filter((s) => !missing.includes(s));

  describe(label, () => {
    it('401 unauthenticated without a credential', async () => {
      const refuse = refusedSender();
      expectError(await refuse({}), 401, 'unauthenticated', 'no credential');
      expectError(await refuse({ headers: { 'x-api-key': '   ' } }), 401, 'unauthenticated', 'blank X-API-Key');
    });

    it('401 invalid_token for a malformed or unknown credential', async () => {
      const refuse = refusedSender();
      const ctx = get();
      for (const { label: l, headers } of MALFORMED_CREDENTIALS)
        expectError(await refuse({ headers }), 401, 'invalid_token', l);
      const foreignIssuer = await ctx.idp.sign(
        { workspaceId: ctx.ws.id, email: ctx.ws.admin.email },
        { issuer: 'https://someone-else.example' },
      );
      expectError(await refuse({ bearer: foreignIssuer }), 401, 'invalid_token', 'JWT from an unconfigured issuer');
      const forged = await ctx.idp.sign(
        { workspaceId: ctx.ws.id, email: ctx.ws.admin.email, scope: SCOPES.join(' ') },
        { secret: 'forged-secret-forged-secret-forged-1234' },
      );
      expectError(await refuse({ bearer: forged }), 401, 'invalid_token', 'IdP JWT with a forged signature');
    });

    it('401 expired_token for an expired API key, OAuth token and IdP token', async () => {
      const refuse = refusedSender();
      const { ws, clock, idp } = get();
      const now = clock.now();
      const { key } = await ws.keyFor(ws.admin, 'full_admin', { expiresAt: new Date(now.getTime() - 1000) });
      expectError(await refuse({ key }), 401, 'expired_token', 'expired API key');
      expectError(await refuse({ bearer: key }), 401, 'expired_token', 'expired API key as bearer');

      clock.set(new Date(now.getTime() - 2 * 3600_000));
      let token: string;
      try {
        token = await ws.tokenFor(ws.admin, SCOPES, { ttlSeconds: 60 });
      } finally {
        clock.set(now);
      }
      expectError(await refuse({ bearer: token }), 401, 'expired_token', 'expired OAuth token');

      const idpToken = await idp.sign(
        { workspaceId: ws.id, email: ws.admin.email, scope: SCOPES.join(' ') },
        { now: new Date(now.getTime() - 2 * 3600_000), ttlSeconds: 60 },
      );
      expectError(await refuse({ bearer: idpToken }), 401, 'expired_token', 'expired IdP token');
    });

    it('401 invalid_token for a revoked API key and a revoked OAuth token', async () => {
      const refuse = refusedSender();
      const { h, ws, clock } = get();
      const { key, keyId } = await ws.keyFor(ws.admin, 'full_admin');
      await h.revokeKey(keyId);
      expectError(await refuse({ key }), 401, 'invalid_token', 'revoked API key');
      const token = await ws.tokenFor(ws.admin, SCOPES);
      await h.database.db
        .update(oauthTokens)
        .set({ revokedAt: clock.now() })
        .where(eq(oauthTokens.id, decodeJwt(token).jti as string));
      expectError(await refuse({ bearer: token }), 401, 'invalid_token', 'revoked OAuth token');
    });

    it('403 forbidden once the credential owner is no longer a member (API key, OAuth, IdP alike)', async () => {
      const refuse = refusedSender();
      const { removed } = get();
      for (const kind of CREDENTIAL_KINDS)
        expectError(await refuse(removed[kind]), 403, 'forbidden', `removed member, ${kind}`);
    });

    it('judges the caller before the input: a refused caller with a garbage payload gets 401/403, never 400', async () => {
      const ctx = get();
      const garbage = garbageRequest(op);
      expectError(await send({}, garbage), 401, 'unauthenticated', 'no credential, garbage input');
      expectError(await send(ctx.removed.oauth, garbage), 403, 'forbidden', 'removed member, garbage input');
      if (consoleOnly) {
        expectError(
          await send({ key: ctx.ws.admin.key }, garbage),
          403,
          'not_on_public_api',
          'console only, garbage input',
        );
      } else if (op.scopes.length > 0) {
        const auth = await credentialWith(ctx, 'oauth', ctx.ws.admin, allScopesBut(op.scopes));
        expectError(await send(auth, garbage), 403, 'scope_denied', 'missing scope, garbage input');
      } else if (op.minRole !== 'viewer') {
        const auth = await credentialWith(ctx, 'oauth', ctx.ws.viewer, SCOPES);
        expectError(await send(auth, garbage), 403, 'insufficient_role', 'low role, garbage input');
      }
    });

    if (consoleOnly) {
      it('403 not_on_public_api for every credential, even a full admin', async () => {
        const refuse = refusedSender();
        const ctx = get();
        expectError(await refuse({ key: ctx.ws.admin.key }), 403, 'not_on_public_api', 'full_admin key');
        for (const kind of CREDENTIAL_KINDS) {
          expectError(
            await refuse(await credentialWith(ctx, kind, ctx.ws.admin, SCOPES)),
            403,
            'not_on_public_api',
            `${kind}, all scopes`,
          );
        }
      });
      if (op.mcp) {
        it('is not offered over MCP', async () => {
          const ctx = get();
          const result = await callMcpTool(ctx.h, op, await valid(), { key: ctx.ws.admin.key });
          expect(result.isError, result.text).toBe(true);
          expect(['not_on_public_api', 'invalid_argument'], result.text).toContain(result.code);
        });
      }
      return;
    }

    it(`accepts the least-privileged caller: a ${op.minRole} holding exactly [${op.scopes.join(', ') || 'no scopes'}], with each credential kind it accepts`, async () => {
      const ctx = get();
      const member = ctx.ws[op.minRole];
      for (const kind of acceptedKinds(op)) {
        const res = await send(await credentialWith(ctx, kind, member, op.scopes));
        expectOk(res, okStatus, `${kind} as ${op.minRole} with [${op.scopes.join(', ')}]`);
      }
      if (acceptedKinds(op).includes('api_key')) {
        const viaBearerKey = await credentialWith(ctx, 'api_key', member, op.scopes);
        expectOk(await send({ bearer: viaBearerKey.key as string }), okStatus, 'API key as Authorization: Bearer');
      }
    });

    if (op.upload) {
      it('answers a compression bomb in its file without inflating it: refused, or stored, or ingested to a failure, with the limit named', async () => {
        const ctx = get();
        const req = await valid();
        const body = req.body as Record<string, unknown> | undefined;
        if (typeof body?.content_base64 !== 'string')
          throw new Error(`security fixture for ${op.id} must send its file as content_base64`);
        const bomb = Buffer.from(docxDeclaredZipBomb()).toString('base64');
        const res = await sendOperation(
          ctx.h,
          op,
          { ...req, body: { ...body, content_base64: bomb, filename: 'bomb.docx' } },
          { key: ctx.ws.admin.key },
        );
        expect(res.status, res.text).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.body.error.details?.reason, res.text).toBe('decompressed_size_exceeded');
          return;
        }
        // Accepted: stored as it is, or handed to a run that must end failed with the limit's code.
        const runId = res.body.data?.run_id as string | undefined;
        if (!runId) return;
        for (let round = 0; ; round++) {
          await (ctx.h.services.queue as LocalTransport).drain();
          const run = await loadRun(ctx.h.services.db, runId);
          if (run && ['complete', 'failed', 'canceled'].includes(run.status)) {
            expect(run.status).toBe('failed');
            expect(run.error?.code).toBe('decompressed_size_exceeded');
            return;
          }
          if (round > 200) throw new Error(`the run ${runId} of ${op.id} did not end`);
          await new Promise((r) => setTimeout(r, 25));
        }
      });
    }

    if (op.authMethods) {
      it(`403 forbidden for the credential kinds it does not accept (it takes ${op.authMethods.join(', ')}), even a full admin with every scope`, async () => {
        const refuse = refusedSender();
        const ctx = get();
        const refused = CREDENTIAL_KINDS.filter((k) => !acceptedKinds(op).includes(k));
        expect(refused.length).toBeGreaterThan(0);
        for (const kind of refused) {
          const res = await refuse(await credentialWith(ctx, kind, ctx.ws.admin, SCOPES));
          expectError(res, 403, 'forbidden', `${kind}, full admin`);
          expect(res.body.error.details).toMatchObject({
            auth_method: kind,
            allowed_auth_methods: [...op.authMethods!],
          });
        }
        if (!acceptedKinds(op).includes('api_key'))
          expectError(await refuse({ bearer: ctx.ws.admin.key }), 403, 'forbidden', 'full_admin API key as bearer');
      });
    }

    if (op.scopes.length > 0) {
      it('403 scope_denied when any one required scope is missing, even with every other scope', async () => {
        const refuse = refusedSender();
        const ctx = get();
        for (const scope of op.scopes) {
          const res = await refuse(await credentialWith(ctx, 'oauth', ctx.ws.admin, allScopesBut([scope])));
          expectError(res, 403, 'scope_denied', `OAuth without ${scope}`);
          expect(res.body.error.details?.missing_scopes).toEqual([scope]);
        }
        for (const kind of CREDENTIAL_KINDS) {
          expectError(
            await refuse(await credentialWith(ctx, kind, ctx.ws.admin, allScopesBut(op.scopes))),
            403,
            'scope_denied',
            `${kind} without [${op.scopes.join(', ')}]`,
          );
        }
      });
    }

    if (op.minRole !== 'viewer') {
      it(`403 insufficient_role for a role below ${op.minRole}, even holding every scope`, async () => {
        const refuse = refusedSender();
        const ctx = get();
        for (const role of ROLE_BELOW[op.minRole]) {
          for (const kind of CREDENTIAL_KINDS) {
            const res = await refuse(await credentialWith(ctx, kind, ctx.ws[role], SCOPES));
            expectError(res, 403, 'insufficient_role', `${kind} as ${role}`);
            expect(res.body.error.details).toMatchObject({ required_role: op.minRole, role });
          }
        }
      });
    }

    if (op.idempotent) {
      it('replays a stored response (same Idempotency-Key) only to a caller a fresh call would accept: a weaker credential, a lower role or a removed member of the same user gets the fresh call\u2019s refusal', async () => {
        const ctx = get();
        const db = ctx.h.database.db;
        const req = await valid();
        const idempotencyKey = `replay-${crypto.randomUUID()}`;
        const withKey = (auth: RequestOptions): RequestOptions => ({
          ...auth,
          headers: { ...auth.headers, 'idempotency-key': idempotencyKey },
        });
        // A member of its own, so its role can be lowered and its membership removed without touching the shared ones.
        const email = `${idempotencyKey}@replays.test`;
        const member: Member = { userId: await ensureUser(db, email), email, role: 'admin', key: '' };
        await ensureMembership(db, ctx.ws.id, member.userId, member.role);
        const full = await credentialWith(ctx, 'oauth', member, SCOPES);
        const first = await send(withKey(full), req);
        expectOk(first, okStatus, 'first call');
        const own = await send(withKey(full), req);
        expectOk(own, okStatus, 'own replay');
        expect(own.headers.get('idempotent-replayed'), 'own replay').toBe('true');
        expect(own.body, 'own replay').toEqual(first.body);

        const expectSameRefusal = async (auth: RequestOptions, status: number, code: string, label: string) => {
          const fresh = await send(auth, req);
          expectError(fresh, status, code, `${label}, fresh call`);
          const replay = await send(withKey(auth), req);
          expectError(replay, status, code, `${label}, replay`);
          expect(replay.headers.get('idempotent-replayed'), `${label}, replay`).toBeNull();
        };
        if (op.scopes.length > 0)
          for (const kind of acceptedKinds(op))
            await expectSameRefusal(
              await credentialWith(ctx, kind, member, allScopesBut(op.scopes)),
              403,
              'scope_denied',
              `${kind} without [${op.scopes.join(', ')}]`,
            );
        for (const role of ROLE_BELOW[op.minRole].slice(-1)) {
          await ensureMembership(db, ctx.ws.id, member.userId, role);
          await expectSameRefusal(full, 403, 'insufficient_role', `the same token after a demotion to ${role}`);
        }
        await removeMembership(db, ctx.ws.id, member.userId);
        await expectSameRefusal(full, 403, 'forbidden', 'the same token after the member was removed');
      });
    }

    const dateFields = fieldsThatReadDates(op);
    if (dateFields.length > 0) {
      it(`400 invalid_argument naming the field for a date that does not exist in ${dateFields.map((f) => f.name).join(', ')}`, async () => {
        const ctx = get();
        const auth = await credentialWith(ctx, 'oauth', ctx.ws.admin, SCOPES);
        for (const { name, where } of dateFields) {
          for (const date of IMPOSSIBLE_DATES) {
            const req = await valid();
            const text = `what did customers say since ${date}`;
            const sent =
              where === 'body'
                ? { ...req, body: { ...(req.body as Record<string, unknown>), [name]: text } }
                : { ...req, query: { ...req.query, [name]: text } };
            const res = await send(auth, sent);
            expectError(res, 400, 'invalid_argument', `${name} = "${text}"`);
            expect(res.body.error.details.fields, `${name} = "${text}"`).toContainEqual(
              expect.objectContaining({ field: name, code: 'invalid_date' }),
            );
          }
        }
      });
    }

    const tenancy = fixture.tenancy;
    if (tenancy.kind === 'by_id') {
      it("404 not_found for another workspace's resource, for a full admin of the caller's workspace", async () => {
        const ctx = get();
        const foreign = await tenancy.foreign({ h: ctx.h, ws: ctx.other });
        for (const kind of acceptedKinds(op)) {
          const res = await send(await credentialWith(ctx, kind, ctx.ws.admin, SCOPES), foreign);
          expectError(res, 404, 'not_found', `${kind}, other tenant's resource`);
          expect(res.text).not.toContain(ctx.other.name);
        }
        // The owner still reaches it: the 404 is about the tenant, not a broken fixture.
        expectOk(
          await send(await credentialWith(ctx, 'oauth', ctx.other.admin, SCOPES, ctx.other), foreign),
          okStatus,
          'owner of the resource',
        );
      });
    } else if (tenancy.kind === 'by_id_null') {
      it("answers another workspace's resource with data: null, for a full admin of the caller's workspace", async () => {
        const ctx = get();
        const foreign = await tenancy.foreign({ h: ctx.h, ws: ctx.other });
        for (const kind of acceptedKinds(op)) {
          const res = await send(await credentialWith(ctx, kind, ctx.ws.admin, SCOPES), foreign);
          expectOk(res, 200, `${kind}, other tenant's resource`);
          expect(res.body.data, `${kind}, other tenant's resource`).toBeNull();
          expect(res.text).not.toContain(ctx.other.name);
        }
        const owner = await send(await credentialWith(ctx, 'oauth', ctx.other.admin, SCOPES, ctx.other), foreign);
        expectOk(owner, okStatus, 'owner of the resource');
        expect(owner.body.data, 'owner of the resource').not.toBeNull();
      });
    } else {
      it('shows only the caller’s workspace', async () => {
        const ctx = get();
        for (const [mine, theirs] of [
          [ctx.ws, ctx.other],
          [ctx.other, ctx.ws],
        ] as const) {
          const res = await sendOperation(
            ctx.h,
            op,
            await valid(mine),
            await credentialWith(ctx, 'oauth', mine.admin, SCOPES, mine),
          );
          expectOk(res, okStatus, `admin of ${mine.name}`);
          expect(res.text).not.toContain(theirs.id);
          expect(res.text).not.toContain(theirs.name);
          tenancy.assertOwn?.(res.body?.data, { ws: mine, other: theirs });
        }
      });
    }

    if (op.body && !op.upload) {
      it(`400 invalid_argument (too_deep) for a body nested past ${MAX_JSON_DEPTH} levels, before anything walks it`, async () => {
        const ctx = get();
        const base = await valid();
        // Far past the limit yet small: a recursive walk over this shape at 80 KB holds the server for minutes.
        let deep: unknown = [];
        for (let i = 0; i < 4 * MAX_JSON_DEPTH; i++) deep = [deep];
        const res = await send(await credentialWith(ctx, 'oauth', ctx.ws.admin, SCOPES), {
          ...base,
          body: { ...(base.body as Record<string, unknown>), nested: deep },
        });
        expectError(res, 400, 'invalid_argument', 'deeply nested body');
        expect(res.body.error.details).toMatchObject({ reason: 'too_deep', max_depth: MAX_JSON_DEPTH });
      });
    }

    if (op.body && !op.upload) {
      it(`400 invalid_argument (body too_large) for a body streamed past ${MAX_BODY_BYTES} bytes: read no further than the limit, nothing written`, async () => {
        const ctx = get();
        const base = await valid();
        const auth = await credentialWith(ctx, 'oauth', ctx.ws.admin, SCOPES);
        const headers: Record<string, string> = { ...auth.headers, 'content-type': 'application/json' };
        if (auth.key) headers['x-api-key'] = auth.key;
        if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
        const query = base.query
          ? `?${new URLSearchParams(
              Object.entries(base.query)
                .filter((e): e is [string, string | number | boolean] => e[1] !== undefined)
                .map(([k, v]) => [k, String(v)]),
            )}`
          : '';
        // Work the valid request's set-up started (a run on the local queue) finishes first: its writes are not the probe's.
        const settled = async () => {
          if (ctx.h.services.queue instanceof LocalTransport) await ctx.h.services.queue.drain();
          return rowCounts(ctx.h);
        };
        const before = await settled();
        const { body, pulled } = endlessJsonBody(base.body);
        const res = await ctx.h.fetch(
          new Request(`${ctx.h.services.config.publicUrl}${API_PREFIX}${pathFor(op, base.params)}${query}`, {
            method: op.method.toUpperCase(),
            headers,
            body,
            duplex: 'half',
          } as RequestInit),
        );
        const text = await res.text();
        expect(res.status, text.slice(0, 400)).toBe(400);
        expect(JSON.parse(text)).toMatchObject({
          error: { code: 'invalid_argument', details: { body: 'too_large', max_bytes: MAX_BODY_BYTES } },
        });
        // It read up to the limit (it judged the body), and stopped within a chunk or two of it.
        expect(pulled()).toBeGreaterThan(MAX_BODY_BYTES);
        expect(pulled()).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * BODY_CHUNK_BYTES);
        expect(await settled()).toEqual(before);
      });
    }

    if (fixture.callerSql) {
      const field = fixture.callerSql.field;
      /** The operation's valid request with the caller's SQL in its field, as the workspace's admin. */
      const sendingSql = async (ctx: ReturnType<typeof get>) => {
        const credential = await credentialWith(ctx, 'oauth', ctx.ws.admin, SCOPES);
        const base = await valid(ctx.ws);
        return (text: string) =>
          sendOperation(
            ctx.h,
            op,
            { ...base, body: { ...(base.body as Record<string, unknown>), [field]: text } },
            credential,
          );
      };

      it('refuses every form of caller SQL that reaches past the workspace (400), revealing nothing of another', async () => {
        const ctx = get();
        const send = await sendingSql(ctx);
        for (const text of CALLER_SQL_ESCAPES) {
          const res = await send(text);
          expectError(res, 400, 'invalid_argument', text);
          expect(res.body.error.details?.field, text).toBe(field);
          expect(res.text).not.toContain(ctx.other.name);
        }
      });

      it('answers a statement Postgres refuses while planning it (SQLSTATE class 42) as 400 naming the field, never 500', async () => {
        const send = await sendingSql(get());
        for (const text of CALLER_SQL_MISTAKES) {
          const res = await send(text);
          expectError(res, 400, 'invalid_argument', text);
          expect(res.body.error.details, text).toMatchObject({ field, sqlstate: expect.stringMatching(/^42/) });
        }
      });
    }

    if (op.stream) {
      it('the event-stream form (Accept: text/event-stream) refuses the same callers with the same JSON errors', async () => {
        const ctx = get();
        const sse = (auth: RequestOptions): RequestOptions => ({
          ...auth,
          headers: { accept: 'text/event-stream', ...auth.headers },
        });
        expectError(await send(sse({})), 401, 'unauthenticated', 'stream, no credential');
        expectError(await send(sse(ctx.removed.oauth)), 403, 'forbidden', 'stream, removed member');
        if (op.scopes.length > 0) {
          expectError(
            await send(sse(await credentialWith(ctx, 'oauth', ctx.ws.admin, allScopesBut(op.scopes)))),
            403,
            'scope_denied',
            'stream, missing scope',
          );
        }
        for (const role of ROLE_BELOW[op.minRole]) {
          expectError(
            await send(sse(await credentialWith(ctx, 'oauth', ctx.ws[role], SCOPES))),
            403,
            'insufficient_role',
            `stream, ${role}`,
          );
        }
        if (tenancy.kind === 'by_id') {
          const foreign = await tenancy.foreign({ h: ctx.h, ws: ctx.other });
          expectError(
            await send(sse(await credentialWith(ctx, 'oauth', ctx.ws.admin, SCOPES)), foreign),
            404,
            'not_found',
            'stream, other tenant',
          );
        }
      });
    }

    if (mcpExposes(op)) {
      it(`MCP (${op.mcp?.tool}.${op.mcp?.action}) refuses the same callers with the same codes`, async () => {
        const ctx = get();
        const noCredential = await callMcpTool(ctx.h, op, await valid(), {});
        expect(noCredential.status, noCredential.text).toBe(401);
        const ok = await callMcpTool(
          ctx.h,
          op,
          await valid(),
          await credentialWith(ctx, 'oauth', ctx.ws[op.minRole], op.scopes),
        );
        expect(ok.isError, ok.text).toBe(false);
        if (op.scopes.length > 0) {
          const res = await callMcpTool(
            ctx.h,
            op,
            await valid(),
            await credentialWith(ctx, 'oauth', ctx.ws.admin, allScopesBut(op.scopes)),
          );
          expect(res.code, res.text).toBe('scope_denied');
        }
        for (const role of ROLE_BELOW[op.minRole]) {
          const res = await callMcpTool(
            ctx.h,
            op,
            await valid(),
            await credentialWith(ctx, 'oauth', ctx.ws[role], SCOPES),
          );
          expect(res.code, res.text).toBe('insufficient_role');
        }
        if (!acceptedKinds(op).includes('api_key')) {
          const res = await callMcpTool(ctx.h, op, await valid(), { key: ctx.ws.admin.key });
          expect(res.code, res.text).toBe('forbidden');
        }
        if (tenancy.kind === 'by_id') {
          const foreign = await tenancy.foreign({ h: ctx.h, ws: ctx.other });
          const res = await callMcpTool(ctx.h, op, foreign, await credentialWith(ctx, 'oauth', ctx.ws.admin, SCOPES));
          expect(res.code, res.text).toBe('not_found');
        }
      });
    }
  });
}
