import { createConnection, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { neonConfig } from '@neondatabase/serverless';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { authenticateApiKey, createApiKey } from '../../functions/identity/api-keys.js';
import { lastUsedRecorder } from '../../functions/identity/credential-cache.js';
import { createWorkspace, ensureMembership, ensureUser, findMembership } from '../../functions/identity/members.js';
import { consumeQuota, readQuota } from '../../functions/limits/quota.js';
import { openNodeDatabase } from '../../functions/embedded/open-database.js';
import { createWorker } from '../../functions/worker.js';
import { startRelay as startEdgeRelay } from '../../edge/relay.js';
import { loadConfig } from '../../platform/config.js';
import { migrateDatabase } from '../../platform/db/migrate.js';
import { openNeon, type NeonHandle } from '../../platform/db/neon.js';
import { wrapPglite, type PgliteHandle } from '../../platform/db/pglite.js';
import { openEmptyDatabase } from '../support/harness.js';
import { queryRows } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { apiKeys, workspaces } from '../../schema/index.js';

/**
 * The Neon adapter's real query path, offline: @neondatabase/serverless's Pool speaks the Postgres
 * wire protocol over a WebSocket to a proxy. Here the "proxy" is a tiny WebSocket→TCP relay and the
 * "Postgres" is a PGlite database served over TCP by @electric-sql/pglite-socket. Everything binds
 * to 127.0.0.1; nothing leaves the machine.
 */

interface Relay {
  port: number;
  /** host:port the driver asked for on each connection (what `wsProxy` produced). */
  addresses: string[];
  close(): Promise<void>;
}

/** Pipe each WebSocket's binary frames to a TCP connection to `?address=host:port` and back (loopback only). */
async function startRelay(): Promise<Relay> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const addresses: string[] = [];
  const sockets = new Set<Socket>();
  wss.on('connection', (ws, req) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    const address = url.searchParams.get('address') ?? '';
    addresses.push(`${url.pathname}?address=${address}`);
    const match = /^(localhost|127\.0\.0\.1):(\d+)$/.exec(address);
    if (!match) {
      ws.close(1008, 'loopback only');
      return;
    }
    const tcp = createConnection({ host: '127.0.0.1', port: Number(match[2]) });
    sockets.add(tcp);
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      tcp.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
    });
    tcp.on('data', (chunk) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(chunk, { binary: true });
    });
    tcp.on('close', () => {
      sockets.delete(tcp);
      ws.close();
    });
    tcp.on('error', () => ws.terminate());
    ws.on('close', () => tcp.end());
    ws.on('error', () => tcp.destroy());
  });
  return {
    port: (wss.address() as AddressInfo).port,
    addresses,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

let server: PglitePostgres;
let relay: Relay;
let neon: NeonHandle;

interface PglitePostgres {
  handle: PgliteHandle;
  socketServer: PGLiteSocketServer;
  port: number;
}

beforeAll(async () => {
  // A fresh, unmigrated database (with the vector and pg_trgm extensions available): the Neon
  // migrator below is part of what is being proved.
  const handle = await openEmptyDatabase();
  // pglite-socket multiplexes several client connections onto the one PGlite (a connection inside a
  // transaction keeps it until COMMIT/ROLLBACK), so the Pool keeps its default size.
  const socketServer = new PGLiteSocketServer({ db: handle.client, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await socketServer.start();
  const port = Number(socketServer.getServerConn().split(':').at(-1));
  server = { handle, socketServer, port };
  relay = await startRelay();
  neon = openNeon({
    connectionString: `postgres://user:pass@localhost:${port}/db`,
    wsProxy: (host, p) => `127.0.0.1:${relay.port}/v1?address=${host}:${p}`,
    webSocketConstructor: WebSocket,
    useSecureWebSocket: false,
  });
});

afterAll(async () => {
  await neon?.close();
  await relay?.close();
  await server?.socketServer.stop();
  await server?.handle.close();
});

describe('Neon adapter over a WebSocket relay to a Postgres wire server', () => {
  it('connects through wsProxy and answers a raw query via queryRows', async () => {
    const rows = await queryRows<{ answer: number; version: string }>(
      neon.db,
      sql`select 41 + 1 as answer, version() as version`,
    );
    expect(rows).toEqual([{ answer: 42, version: expect.stringContaining('PostgreSQL') }]);
    expect(neon.driver).toBe('neon');
    expect(relay.addresses.length).toBeGreaterThan(0);
    expect(relay.addresses[0]).toBe(`/v1?address=localhost:${server.port}`);
  });

  it('applies every migration with the Neon migrator, idempotently', async () => {
    await migrateDatabase(neon);
    const tables = await queryRows<{ table_name: string }>(
      neon.db,
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['workspaces', 'users', 'memberships', 'api_keys']),
    );
    const extensions = await queryRows<{ extname: string }>(
      neon.db,
      sql`select extname from pg_extension where extname = 'vector'`,
    );
    expect(extensions).toHaveLength(1);
    const applied = await queryRows<{ n: number }>(
      neon.db,
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    await migrateDatabase(neon);
    expect(
      await queryRows<{ n: number }>(neon.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
    ).toEqual(applied);
  });

  it('runs the identity repository: workspace, user, membership, API key, then authenticates the key', async () => {
    const { workspaceId } = await createWorkspace(neon.db, { name: 'Neon Co' });
    const userId = await ensureUser(neon.db, 'Owner@Neon.test');
    expect(await ensureUser(neon.db, 'owner@neon.test')).toBe(userId);
    await ensureMembership(neon.db, workspaceId, userId, 'admin');
    expect(await findMembership(neon.db, workspaceId, userId)).toBe('admin');
    const { key, keyId } = await createApiKey(neon.db, {
      workspaceId,
      userId,
      name: 'neon key',
      bundle: 'full_admin',
      role: 'admin',
      expiresAt: null,
    });

    const now = new Date();
    const caller = await authenticateApiKey(neon.db, key, now);
    expect(caller).toMatchObject({
      workspaceId,
      workspaceName: 'Neon Co',
      userId,
      email: 'Owner@Neon.test',
      role: 'admin',
      authMethod: 'api_key',
      credentialId: keyId,
    });
    expect(caller.scopes.size).toBeGreaterThan(0);
    // last_used_at is written behind, in one statement for every pending key: run that write on Neon.
    await lastUsedRecorder.flushInBackground(neon.db, (error) => {
      throw error;
    });
    // Typed selects map timestamps back to Dates; the write went through with millisecond precision.
    const [row] = await neon.db.select({ lastUsedAt: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(row?.lastUsedAt).toBeInstanceOf(Date);
    expect(row?.lastUsedAt?.getTime()).toBe(now.getTime());

    await expect(authenticateApiKey(neon.db, `cip_${'x'.repeat(40)}`, now)).rejects.toBeInstanceOf(ApiError);

    // The quota read is a named prepared statement: run it twice on the pool (a connection prepares it once).
    for (let i = 0; i < 2; i++)
      expect(await readQuota(neon.db, workspaceId, 'optimizer', now)).toMatchObject({
        limit: 1000,
        used: 0,
        remaining: 1000,
      });
    await consumeQuota(neon.db, workspaceId, 'optimizer', now);
    expect(await readQuota(neon.db, workspaceId, 'optimizer', now)).toMatchObject({ used: 1, remaining: 999 });
  });

  it('commits a transaction and rolls one back', async () => {
    const committed = await neon.db.transaction(async (tx) => {
      const { workspaceId } = await createWorkspace(tx, { name: 'Committed' });
      const userId = await ensureUser(tx, `c-${workspaceId}@neon.test`);
      await ensureMembership(tx, workspaceId, userId, 'editor');
      // Raw SQL inside the transaction sees its own uncommitted rows.
      expect(
        await queryRows(tx, sql`select count(*) as n from memberships where workspace_id = ${workspaceId}`),
      ).toEqual([{ n: 1 }]);
      return workspaceId;
    });
    expect(
      await neon.db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, committed)),
    ).toEqual([{ name: 'Committed' }]);

    let rolledBack = '';
    await expect(
      neon.db.transaction(async (tx) => {
        rolledBack = (await createWorkspace(tx, { name: 'Rolled back' })).workspaceId;
        // Visible inside the transaction...
        expect(
          await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, rolledBack)),
        ).toHaveLength(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    // ...and gone after the rollback.
    expect(rolledBack).not.toBe('');
    expect(await neon.db.select().from(workspaces).where(eq(workspaces.id, rolledBack))).toEqual([]);

    // An explicit tx.rollback() also rolls back.
    let explicit = '';
    await expect(
      neon.db.transaction(async (tx) => {
        explicit = (await createWorkspace(tx, { name: 'Explicit rollback' })).workspaceId;
        tx.rollback();
      }),
    ).rejects.toThrow();
    expect(await neon.db.select().from(workspaces).where(eq(workspaces.id, explicit))).toEqual([]);
  });

  it('keeps a transaction on one connection while other queries run on the pool', async () => {
    const name = `Concurrent ${Date.now()}`;
    const inside = neon.db.transaction(async (tx) => {
      const { workspaceId } = await createWorkspace(tx, { name });
      await tx.execute(sql`select pg_sleep(0.05)`);
      return workspaceId;
    });
    const outside = queryRows<{ n: number }>(
      neon.db,
      sql`select count(*)::int as n from workspaces where name = ${name}`,
    );
    const [id, rows] = await Promise.all([inside, outside]);
    // PGlite serialises connections (a query from another connection waits while one is inside a
    // transaction), so the outside read sees the row either not yet or committed, never half.
    expect([0, 1]).toContain(rows[0]?.n);
    // The pool opened more than one WebSocket (one held by the transaction).
    expect(relay.addresses.length).toBeGreaterThan(1);
    expect(await neon.db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.name, name))).toEqual([
      { id },
    ]);
  });

  it('gives raw rows the same JavaScript shapes as PGlite does (what the tests run on)', async () => {
    const q = sql`select '2026-01-15 12:00:00.5+00'::timestamptz as ts, '2026-01-15 12:00:00'::timestamp as ts_naive,
      '2026-01-15'::date as d, 9007199254740993::int8 as big, count(*) as cnt, array[1, 2]::int8[] as counts,
      1.50::numeric as num, 2.5::float8 as f8, 3::int4 as i4, '{"a":[1,2]}'::jsonb as j, '[1,2,3]'::vector(3) as v,
      '0190a5b8-0000-7000-8000-000000000000'::uuid as u, true as b, array['x','y']::text[] as arr, '1 day'::interval as iv,
      null::text as nul from (select 1) t`;
    const viaNeon = await queryRows(neon.db, q);
    const viaPglite = await queryRows(wrapPglite(server.handle.client).db, q);
    expect(viaNeon).toEqual(viaPglite);
    expect(viaNeon[0]).toEqual({
      ts: '2026-01-15 12:00:00.5+00',
      ts_naive: '2026-01-15 12:00:00',
      d: '2026-01-15',
      big: 9007199254740993n,
      cnt: 1,
      counts: [1, 2],
      num: '1.50',
      f8: 2.5,
      i4: 3,
      j: { a: [1, 2] },
      v: '[1,2,3]',
      u: '0190a5b8-0000-7000-8000-000000000000',
      b: true,
      arr: ['x', 'y'],
      iv: '1 day',
      nul: null,
    });
  });

  it('reports a constraint violation as an error, and the pool still works afterwards', async () => {
    const { workspaceId } = await createWorkspace(neon.db, { name: 'Dup' });
    await expect(neon.db.insert(workspaces).values({ id: workspaceId, name: 'Dup again' })).rejects.toThrow();
    expect(await queryRows<{ ok: number }>(neon.db, sql`select 1 as ok`)).toEqual([{ ok: 1 }]);
  });
});

/**
 * NEON_WS_PROXY through the entry points themselves: the worker's own database opener and the one
 * `npm start` and the admin CLI share must both dial the relay named by the variable (its path marks
 * whose connection it was), with plain ws:// and no pipelining, or a local Postgres wire server never answers.
 */
describe('NEON_WS_PROXY reaches the driver from every entry point', () => {
  let previousProxy: typeof neonConfig.wsProxy;
  beforeAll(() => {
    previousProxy = neonConfig.wsProxy;
  });
  afterAll(() => {
    neonConfig.wsProxy = previousProxy;
  });

  const databaseUrl = () => `postgres://user:pass@localhost:${server.port}/db`;

  it('the admin CLI and npm start (openNodeDatabase) migrate and query through the relay', async () => {
    const config = loadConfig({ DATABASE_URL: databaseUrl(), NEON_WS_PROXY: `127.0.0.1:${relay.port}/node-entry` });
    const before = relay.addresses.length;
    const database = await openNodeDatabase(config, 'neon relay test');
    try {
      expect(await queryRows<{ ok: number }>(database.handle.db, sql`select 1 as ok`)).toEqual([{ ok: 1 }]);
    } finally {
      await database.close();
    }
    expect(relay.addresses.slice(before)).toContain(`/node-entry?address=localhost:${server.port}`);
    // neonConfig is a class of static accessors: read each one.
    const { useSecureWebSocket, pipelineTLS, pipelineConnect } = neonConfig;
    expect({ useSecureWebSocket, pipelineTLS, pipelineConnect }).toEqual({
      useSecureWebSocket: false,
      pipelineTLS: false,
      pipelineConnect: false,
    });
  });

  it("the worker's own opener (no openDatabase override) authenticates a request through the relay, over HTTP", async () => {
    // The worker's transport is Neon's SQL over HTTP (a pool only for transactions): the edge stack's
    // relay serves both that endpoint and the WebSocket, and counts what the worker sent.
    const edgeRelay = await startEdgeRelay({ target: { host: '127.0.0.1', port: server.port } });
    const env = {
      APP_ENV: 'development',
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl(),
      NEON_WS_PROXY: `127.0.0.1:${edgeRelay.port}`,
      PUBLIC_URL: 'https://cip.example.test',
      OAUTH_SIGNING_SECRET: 'neon-test-oauth-secret-0123456789abcdef',
      SECRETS_ENCRYPTION_KEY: 'neon-test-secrets-key-0123456789abcdef',
      QSTASH_TOKEN: 'qstash-test-token',
      QSTASH_CURRENT_SIGNING_KEY: 'sig_current_neon_test',
      QSTASH_NEXT_SIGNING_KEY: 'sig_next_neon_test',
    };
    const pending: Promise<unknown>[] = [];
    const ctx = {
      waitUntil: (p: Promise<unknown>) => void pending.push(p),
      passThroughOnException: () => {},
      props: {},
    };
    try {
      const response = await createWorker().fetch(
        new Request('https://cip.example.test/api/platform/v1/setup/status', {
          headers: { 'X-API-Key': `cip_${'z'.repeat(40)}` },
        }),
        env,
        ctx,
      );
      await Promise.all(pending);
      // An unknown key is only known to be unknown after the database was asked: the 401 proves the round trip.
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_token');
      // The lookup went over HTTP, and no WebSocket connection was opened for it.
      expect(edgeRelay.counters()).toMatchObject({ connectionsOpened: 0, httpRequests: 1, httpStatements: 1 });
    } finally {
      await edgeRelay.close();
    }
  });
});
