import { createHash } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../functions/identity/api-keys.js';
import { ensureMembership, ensureUser, removeMembership } from '../functions/identity/members.js';
import { revokeAccessToken } from '../functions/identity/oauth-tokens.js';
import { lastUsedRecorder } from '../functions/identity/credential-cache.js';
import { BUNDLE_TABLE, BUNDLES, DEFAULT_BUNDLE, SCOPES, type Scope } from '../functions/identity/scopes.js';
import { allOperations } from '../functions/modules.js';
import { defineOperation } from '../functions/registry.js';
import { ManualClock } from '../platform/clock.js';
import { queryRows } from '../platform/db/port.js';
import { ApiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { apiKeys } from '../schema/index.js';
import type { Role } from '../schema/tenancy.js';
import { sql } from 'drizzle-orm';
import { startFakeServer, type FakeServer } from './support/fake-http-server.js';
import {
  createHarness,
  type Harness,
  type Member,
  type RequestOptions,
  type SeededWorkspace,
} from './support/harness.js';
import { expectError, hsIdpSigner, idpEnv } from './support/security-suite.js';

/** The credential paths in depth: API keys, OAuth access tokens, identity-provider JWTs, bundles. */

const clock = new ManualClock('2026-04-07T09:00:00.000Z');
const idp = hsIdpSigner({
  issuer: 'https://idp.auth.test',
  audience: 'cip-auth-tests',
  secret: 'idp-hs256-secret-for-the-auth-tests-0001',
  clock,
});

/** Stands in for starting a Chat (spec, Authentication 5 and 7: needs conversations:write). */
const chatStartProbe = defineOperation({
  id: 'auth_probe.start_chat',
  method: 'post',
  path: '/auth-probe/chat',
  summary: 'Start a chat (probe)',
  tags: ['Probe'],
  scopes: ['conversations:write'],
  minRole: 'viewer',
  stability: 'stable',
  visibility: 'public',
  output: z.object({ started: z.boolean() }),
  successStatus: 202,
  async handler() {
    return { started: true };
  },
});

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ clock, env: idpEnv(idp), operations: [...allOperations, chatStartProbe] });
  ws = await h.seedWorkspace('Auth Co');
  other = await h.seedWorkspace('Other Co');
});
afterAll(async () => h?.close());

const status = (auth: RequestOptions) => h.request('GET', '/setup/status', auth);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A fresh member of `ws` with the given role, so tests that change memberships touch no one else. */
async function freshMember(role: Role, workspace: SeededWorkspace = ws): Promise<Member> {
  const email = `fresh-${newId().slice(-12)}@auth.test`;
  const userId = await ensureUser(h.database.db, email);
  await ensureMembership(h.database.db, workspace.id, userId, role);
  const bundle = role === 'admin' ? 'full_admin' : 'customer_agent';
  const { key } = await createApiKey(h.database.db, {
    workspaceId: workspace.id,
    userId,
    name: 'fresh',
    bundle,
    role,
    expiresAt: null,
  });
  return { userId, email, role, key };
}

describe('API keys', () => {
  it('work in X-API-Key and as Authorization: Bearer, with the scheme name in any case', async () => {
    for (const auth of [
      { key: ws.editor.key },
      { bearer: ws.editor.key },
      { headers: { authorization: `bearer ${ws.editor.key}` } },
      { headers: { authorization: `BEARER ${ws.editor.key}` } },
      { headers: { authorization: `BeArEr   ${ws.editor.key}  ` } },
    ] satisfies RequestOptions[]) {
      const res = await status(auth);
      expect(res.status, JSON.stringify(auth)).toBe(200);
      expect(res.body.data).toMatchObject({
        auth_method: 'api_key',
        workspace: { id: ws.id },
        caller: { email: ws.editor.email, role: 'editor', bundle: 'customer_agent' },
      });
    }
  });

  it('are stored only as a SHA-256 hash: no column of any table holds the plaintext', async () => {
    const { key, keyId } = await ws.keyFor(ws.viewer, 'read_only', { name: 'hash check' });
    const [row] = await queryRows<Record<string, unknown>>(
      h.database.db,
      sql`select * from api_keys where id = ${keyId}`,
    );
    expect(row?.key_hash).toBe(sha256(key));
    expect(row?.prefix).toBe(key.slice(0, 12));
    const body = key.slice('cip_'.length);
    const tables = await queryRows<{ table_name: string }>(
      h.database.db,
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    expect(tables.map((t) => t.table_name)).toContain('api_keys');
    for (const { table_name } of tables) {
      const rows = await queryRows<Record<string, unknown>>(
        h.database.db,
        sql`select * from ${sql.identifier(table_name)}`,
      );
      const dump = JSON.stringify(rows);
      expect(dump.includes(key), `${table_name} holds the key`).toBe(false);
      // Only the display prefix (8 characters of the body) is kept in clear.
      expect(dump.includes(body.slice(0, 16)), `${table_name} holds part of the key beyond its display prefix`).toBe(
        false,
      );
    }
  });

  it('record last_used_at on use, refreshed at most once a minute', async () => {
    const { key, keyId } = await ws.keyFor(ws.viewer, 'customer_agent');
    // Written behind the response: wait for the background write before reading.
    const lastUsed = async () => {
      await lastUsedRecorder.settled();
      return (
        (await h.database.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, keyId)))[0]?.at ??
        null
      );
    };
    expect(await lastUsed()).toBeNull();
    const first = clock.now();
    expect((await status({ key })).status).toBe(200);
    expect((await lastUsed())?.toISOString()).toBe(first.toISOString());
    await clock.advance(30_000);
    expect((await status({ key })).status).toBe(200);
    expect((await lastUsed())?.toISOString()).toBe(first.toISOString());
    await clock.advance(31_000);
    expect((await status({ bearer: key })).status).toBe(200);
    expect((await lastUsed())?.toISOString()).toBe(clock.now().toISOString());
  });

  it('follow the owner’s membership on every request: a role change shows at once, removal is 403 forbidden', async () => {
    const member = await freshMember('editor');
    expect((await status({ key: member.key })).body.data.caller.role).toBe('editor');
    await ensureMembership(h.database.db, ws.id, member.userId, 'viewer');
    const res = await status({ key: member.key });
    expect(res.body.data.caller.role).toBe('viewer');
    expect(res.body.data.optimize.blocker).toBe('role_too_low');
    await removeMembership(h.database.db, ws.id, member.userId);
    expectError(await status({ key: member.key }), 403, 'forbidden', 'removed member');
  });
});

describe('OAuth access tokens issued by the service', () => {
  const oauth = () => h.services.credentials.oauth;
  /** Sign a token like the service does, with overrides, for a real token row. */
  async function forge(over: {
    secret?: string;
    issuer?: string;
    audience?: string;
    jti: string;
    sub: string;
  }): Promise<string> {
    const iat = Math.floor(clock.now().getTime() / 1000);
    return new SignJWT({ business_id: ws.id, scope: SCOPES.join(' ') })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(over.issuer ?? oauth().issuer)
      .setAudience(over.audience ?? oauth().audience)
      .setSubject(over.sub)
      .setJti(over.jti)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(over.secret ? new TextEncoder().encode(over.secret) : oauth().secret);
  }

  it('work, with exactly the scopes they were issued with', async () => {
    const token = await ws.tokenFor(ws.editor, ['data:read', 'messages:execute']);
    const res = await status({ bearer: token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      auth_method: 'oauth',
      caller: { role: 'editor', scopes: ['data:read', 'messages:execute'], bundle: null },
      optimize: { allowed: true },
    });
  });

  it('are refused once revoked (401 invalid_token)', async () => {
    const token = await ws.tokenFor(ws.editor, ['data:read']);
    expect((await status({ bearer: token })).status).toBe(200);
    await revokeAccessToken(h.database.db, decodeJwt(token).jti as string, clock.now());
    expectError(await status({ bearer: token }), 401, 'invalid_token', 'revoked');
  });

  it('are refused when expired (401 expired_token)', async () => {
    const token = await ws.tokenFor(ws.editor, ['data:read'], { ttlSeconds: 60 });
    expect((await status({ bearer: token })).status).toBe(200);
    await clock.advance(61_000);
    expectError(await status({ bearer: token }), 401, 'expired_token', 'expired');
  });

  it('are refused with a wrong signature, audience or issuer, or unsigned (401 invalid_token)', async () => {
    const token = await ws.tokenFor(ws.admin, SCOPES);
    const { jti, sub } = decodeJwt(token) as { jti: string; sub: string };
    // The control: the same claims signed properly are accepted, so each refusal below is about one thing.
    expect((await status({ bearer: await forge({ jti, sub }) })).status).toBe(200);
    expectError(
      await status({ bearer: await forge({ jti, sub, secret: 'not-the-service-secret-not-the-service' }) }),
      401,
      'invalid_token',
      'signature',
    );
    expectError(
      await status({ bearer: await forge({ jti, sub, audience: 'https://another.api/v1' }) }),
      401,
      'invalid_token',
      'audience',
    );
    expectError(
      await status({ bearer: await forge({ jti, sub, issuer: 'https://evil.example' }) }),
      401,
      'invalid_token',
      'issuer',
    );
    const unsigned = new UnsecuredJWT({ business_id: ws.id, scope: 'data:read' })
      .setIssuer(oauth().issuer)
      .setAudience(oauth().audience)
      .setSubject(sub)
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime('10m')
      .encode();
    expectError(await status({ bearer: unsigned }), 401, 'invalid_token', 'alg none');
    expectError(
      await status({ bearer: await forge({ jti: newId(), sub }) }),
      401,
      'invalid_token',
      'well signed, unknown token id',
    );
    // A flipped character in the signature.
    const tampered = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1);
    expectError(await status({ bearer: tampered }), 401, 'invalid_token', 'tampered');
  });

  it('re-check membership per request: the role seen follows the membership, removal is 403 forbidden', async () => {
    const member = await freshMember('editor');
    const token = await ws.tokenFor(member, ['messages:execute']);
    expect((await status({ bearer: token })).body.data).toMatchObject({
      caller: { role: 'editor' },
      optimize: { allowed: true },
    });
    await ensureMembership(h.database.db, ws.id, member.userId, 'admin');
    expect((await status({ bearer: token })).body.data.caller.role).toBe('admin');
    await ensureMembership(h.database.db, ws.id, member.userId, 'viewer');
    expect((await status({ bearer: token })).body.data).toMatchObject({
      caller: { role: 'viewer' },
      optimize: { allowed: false, blocker: 'role_too_low' },
    });
    await removeMembership(h.database.db, ws.id, member.userId);
    expectError(await status({ bearer: token }), 403, 'forbidden', 'removed member');
  });
});

describe('identity-provider JWTs (HS256 shared secret)', () => {
  it('work for a member, with auth_method identity_provider and the role from our membership table', async () => {
    const token = await idp.sign({ workspaceId: ws.id, email: ws.editor.email, extra: { role: 'admin' } });
    const res = await status({ bearer: token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      auth_method: 'identity_provider',
      workspace: { id: ws.id, name: 'Auth Co' },
      caller: { user_id: ws.editor.userId, email: ws.editor.email, role: 'editor', bundle: null },
    });
  });

  it('match the email claim case-insensitively', async () => {
    const res = await status({ bearer: await idp.sign({ workspaceId: ws.id, email: ws.viewer.email.toUpperCase() }) });
    expect(res.status).toBe(200);
    expect(res.body.data.caller.user_id).toBe(ws.viewer.userId);
  });

  it('narrow scopes to the scope claim (unknown scopes ignored); no claim means the Customer agent bundle', async () => {
    const narrowed = await status({
      bearer: await idp.sign({
        workspaceId: ws.id,
        email: ws.editor.email,
        scope: 'messages:execute data:read made:up',
      }),
    });
    expect(narrowed.body.data.caller.scopes).toEqual(['data:read', 'messages:execute']);
    const none = await status({ bearer: await idp.sign({ workspaceId: ws.id, email: ws.editor.email, scope: '' }) });
    expect(none.body.data.caller.scopes).toEqual([]);
    const absent = await status({ bearer: await idp.sign({ workspaceId: ws.id, email: ws.editor.email }) });
    expect(absent.body.data.caller.scopes).toEqual([...BUNDLE_TABLE[DEFAULT_BUNDLE].scopes].sort());
    expect(DEFAULT_BUNDLE).toBe('customer_agent');
  });

  it('are 403 forbidden for someone who is not a member of the workspace the token names', async () => {
    expectError(
      await status({ bearer: await idp.sign({ workspaceId: ws.id, email: other.admin.email }) }),
      403,
      'forbidden',
      'member elsewhere',
    );
    expectError(
      await status({ bearer: await idp.sign({ workspaceId: ws.id, email: 'stranger@nowhere.test' }) }),
      403,
      'forbidden',
      'unknown user',
    );
    expectError(
      await status({ bearer: await idp.sign({ workspaceId: newId(), email: ws.admin.email }) }),
      403,
      'forbidden',
      'unknown workspace',
    );
  });

  it('re-check membership per request like the other credentials', async () => {
    const member = await freshMember('viewer');
    const token = await idp.sign({ workspaceId: ws.id, email: member.email });
    expect((await status({ bearer: token })).body.data.caller.role).toBe('viewer');
    await ensureMembership(h.database.db, ws.id, member.userId, 'editor');
    expect((await status({ bearer: token })).body.data.caller.role).toBe('editor');
    await removeMembership(h.database.db, ws.id, member.userId);
    expectError(await status({ bearer: token }), 403, 'forbidden', 'removed member');
  });

  it('are 401 with a wrong audience or secret, when expired, or without a valid workspace or email claim', async () => {
    const claims = { workspaceId: ws.id, email: ws.admin.email };
    expectError(
      await status({ bearer: await idp.sign(claims, { audience: 'someone-else' }) }),
      401,
      'invalid_token',
      'audience',
    );
    expectError(
      await status({ bearer: await idp.sign(claims, { secret: 'a-different-secret-a-different-secret' }) }),
      401,
      'invalid_token',
      'secret',
    );
    expectError(
      await status({
        bearer: await idp.sign(claims, { now: new Date(clock.now().getTime() - 7200_000), ttlSeconds: 600 }),
      }),
      401,
      'expired_token',
      'expired',
    );
    expectError(
      await status({ bearer: await idp.sign({ email: ws.admin.email }) }),
      401,
      'invalid_token',
      'no workspace claim',
    );
    expectError(
      await status({ bearer: await idp.sign({ workspaceId: 'acme', email: ws.admin.email }) }),
      401,
      'invalid_token',
      'workspace claim not a uuid',
    );
    expectError(
      await status({ bearer: await idp.sign({ workspaceId: ws.id }) }),
      401,
      'invalid_token',
      'no email claim',
    );
  });
});

describe('identity-provider JWTs (RS256 from a JWKS URL)', () => {
  let server: FakeServer | undefined;
  let jwksUrl: string;
  let jwks: { keys: JWK[] } = { keys: [] };
  let jwksHits = 0;
  let privateKey: CryptoKey;
  let strangerKey: CryptoKey;
  let hj: Harness;
  const ISSUER = 'https://idp.jwks.test';
  const AUDIENCE = 'cip-jwks-audience';

  const signRs = async (
    claims: Record<string, unknown>,
    o: { key?: CryptoKey; kid?: string; audience?: string; now?: Date; ttl?: number } = {},
  ) => {
    const iat = Math.floor((o.now ?? clock.now()).getTime() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: o.kid ?? 'k1' })
      .setIssuer(ISSUER)
      .setAudience(o.audience ?? AUDIENCE)
      .setSubject('idp-user')
      .setIssuedAt(iat)
      .setExpirationTime(iat + (o.ttl ?? 600))
      .sign(o.key ?? privateKey);
  };

  const harnessFor = (url: string) =>
    createHarness({
      database: h.database,
      clock,
      env: { IDP_ISSUER: ISSUER, IDP_AUDIENCE: AUDIENCE, IDP_JWKS_URL: url },
    });

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    strangerKey = (await generateKeyPair('RS256')).privateKey;
    jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
    server = await startFakeServer((req, res) => {
      if (req.url !== '/.well-known/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      jwksHits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    jwksUrl = `${server.url}/.well-known/jwks.json`;
    hj = await harnessFor(jwksUrl);
  });
  afterAll(async () => {
    await hj?.close();
    await server?.close();
  });

  it('accept a token signed by a key the JWKS publishes, fetching the key set once', async () => {
    const token = await signRs({ business_id: ws.id, email: ws.editor.email, scope: 'data:read' });
    for (let i = 0; i < 3; i++) {
      const res = await hj.request('GET', '/setup/status', { bearer: token });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject({
        auth_method: 'identity_provider',
        caller: { role: 'editor', scopes: ['data:read'] },
      });
    }
    expect(jwksHits).toBe(1);
  });

  it('refuse a token signed by another key, an HS256 token, a wrong audience (401 invalid_token) and an expired one (401 expired_token)', async () => {
    const claims = { business_id: ws.id, email: ws.editor.email };
    const send = async (bearer: string) => hj.request('GET', '/setup/status', { bearer });
    expectError(await send(await signRs(claims, { key: strangerKey })), 401, 'invalid_token', 'other key, same kid');
    expectError(
      await send(await signRs(claims, { key: strangerKey, kid: 'unknown-kid' })),
      401,
      'invalid_token',
      'unknown kid',
    );
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(JSON.stringify(jwks.keys[0])));
    expectError(await send(hs), 401, 'invalid_token', 'HS256 with the public key as secret');
    expectError(await send(await signRs(claims, { audience: 'nope' })), 401, 'invalid_token', 'audience');
    expectError(
      await send(await signRs(claims, { now: new Date(clock.now().getTime() - 7200_000) })),
      401,
      'expired_token',
      'expired',
    );
    expectError(await send(await signRs({ email: ws.editor.email })), 401, 'invalid_token', 'no workspace claim');
    expectError(
      await send(await signRs({ business_id: ws.id, email: other.admin.email })),
      403,
      'forbidden',
      'not a member',
    );
  });

  it('answer 503 dependency_unavailable, not 401, when the key set cannot be fetched', async () => {
    const down = await harnessFor('http://127.0.0.1:9/jwks.json');
    const broken = await harnessFor(jwksUrl.replace('/.well-known/jwks.json', '/missing.json'));
    try {
      const token = await signRs({ business_id: ws.id, email: ws.editor.email });
      const unreachable = await down.request('GET', '/setup/status', { bearer: token });
      expectError(unreachable, 503, 'dependency_unavailable', 'JWKS unreachable');
      const notFound = await broken.request('GET', '/setup/status', { bearer: token });
      expectError(notFound, 503, 'dependency_unavailable', 'JWKS answers 404');
    } finally {
      await down.close();
      await broken.close();
    }
  });
});

describe('permission bundles', () => {
  it('read_only has exactly data:read', async () => {
    expect(BUNDLE_TABLE.read_only.scopes).toEqual(['data:read']);
    const { key } = await ws.keyFor(ws.admin, 'read_only');
    expect((await status({ key })).body.data.caller).toMatchObject({ scopes: ['data:read'], bundle: 'read_only' });
  });

  it('customer_agent, the default, covers search, chat, research, evals, optimizer, agents and routines', () => {
    const scopes = BUNDLE_TABLE.customer_agent.scopes;
    const needed: Record<string, Scope[]> = {
      search: ['data:read'],
      chat: ['conversations:write', 'conversations:read', 'workflows:write'],
      research: ['conversations:write', 'conversations:read'],
      evals: ['evals:execute', 'evals:read'],
      optimizer: ['messages:execute'],
      agents: ['agents:read', 'agents:write'],
      routines: ['routines:read', 'routines:write'],
    };
    for (const [surface, list] of Object.entries(needed)) expect(scopes, surface).toEqual(expect.arrayContaining(list));
    // Connection lifecycle writes authorize on OAuth tokens, not on this bundle (spec, Authentication 9).
    expect(scopes).not.toContain('connections:write');
    expect(scopes).not.toContain('connections:delete');
    expect(DEFAULT_BUNDLE).toBe('customer_agent');
  });

  it('every bundle grants only known scopes, and each is a superset of the one below it', () => {
    for (const bundle of BUNDLES)
      for (const s of BUNDLE_TABLE[bundle].scopes) expect(SCOPES, `${bundle}: ${s}`).toContain(s);
    const chain = ['read_only', 'customer_agent', 'internal_agent', 'full_admin'] as const;
    for (let i = 1; i < chain.length; i++) {
      expect(BUNDLE_TABLE[chain[i] as (typeof chain)[number]].scopes).toEqual(
        expect.arrayContaining([...BUNDLE_TABLE[chain[i - 1] as (typeof chain)[number]].scopes]),
      );
    }
    expect([...BUNDLE_TABLE.full_admin.scopes].sort()).toEqual([...SCOPES].sort());
  });

  it('full_admin can only be given by an admin, internal_agent by an editor or above', async () => {
    const mint = (member: Member, bundle: 'full_admin' | 'internal_agent') => ws.keyFor(member, bundle);
    await expect(mint(ws.editor, 'full_admin')).rejects.toMatchObject({
      code: 'insufficient_role',
      details: { required_role: 'admin', role: 'editor' },
    });
    await expect(mint(ws.viewer, 'full_admin')).rejects.toBeInstanceOf(ApiError);
    await expect(mint(ws.viewer, 'internal_agent')).rejects.toMatchObject({ code: 'insufficient_role' });
    await expect(mint(ws.editor, 'internal_agent')).resolves.toHaveProperty('key');
    const { key } = await mint(ws.admin, 'full_admin');
    expect((await status({ key })).body.data.caller).toMatchObject({ role: 'admin', bundle: 'full_admin' });
  });

  it('a read-only key cannot start a Chat (no conversations:write); a Customer agent key can', async () => {
    const { key } = await ws.keyFor(ws.viewer, 'read_only');
    const refused = await h.request('POST', '/auth-probe/chat', { key });
    expectError(refused, 403, 'scope_denied', 'read_only');
    expect(refused.body.error.details.missing_scopes).toEqual(['conversations:write']);
    const accepted = await h.request('POST', '/auth-probe/chat', { key: ws.viewer.key });
    expect(accepted.status, accepted.text).toBe(202);
  });
});
