import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FrontendRewriter } from '../../edge/pg-frontend.js';
import { startRelay, type Relay } from '../../edge/relay.js';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { sql } from 'drizzle-orm';
import { localProxyOptions, openNeon } from '../../platform/db/neon.js';
import { queryRows } from '../../platform/db/port.js';

/**
 * The edge stack's database relay (edge/relay.ts), in Node: the Neon Pool driver through it to a
 * PGlite served by pglite-socket, which runs every connection in one session. Named statements
 * must not collide between connections, Terminate must end the connection, and the counters
 * count what the driver sent.
 */

/** A frontend message: type byte, length, body. */
const message = (type: string, body: Buffer) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const cstr = (s: string) => Buffer.from(`${s}\0`, 'utf8');
const startup = () => {
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), cstr('user'), cstr('u'), Buffer.from([0])]);
  const head = Buffer.alloc(4);
  head.writeInt32BE(body.length + 4, 0);
  return Buffer.concat([head, body]);
};

describe('FrontendRewriter', () => {
  it('renames named statements in Parse, Bind, Describe and Close, across split chunks, and stops at Terminate', () => {
    const rewriter = new FrontendRewriter(7);
    const parse = message('P', Buffer.concat([cstr('quota_read'), cstr('select 1'), Buffer.from([0, 0])]));
    const bind = message('B', Buffer.concat([cstr(''), cstr('quota_read'), Buffer.from([0, 0, 0, 0, 0, 0])]));
    const describe = message('D', Buffer.concat([Buffer.from('S'), cstr('quota_read')]));
    const describePortal = message('D', Buffer.concat([Buffer.from('P'), cstr('')]));
    const close = message('C', Buffer.concat([Buffer.from('S'), cstr('quota_read')]));
    const unnamed = message('P', Buffer.concat([cstr(''), cstr('select 2'), Buffer.from([0, 0])]));
    const sync = message('S', Buffer.alloc(0));
    const stream = Buffer.concat([startup(), parse, bind, describe, describePortal, close, unnamed, sync]);

    // Fed in pieces cut mid-message: nothing is lost or passed on half-read.
    const first = rewriter.feed(stream.subarray(0, 30));
    const second = rewriter.feed(stream.subarray(30));
    const out = Buffer.concat([first.out, second.out]);
    const renamed = out.toString('latin1');
    expect(renamed.split('c7_quota_read').length - 1).toBe(4);
    expect(renamed).not.toMatch(/\0quota_read/);
    expect(first.counts.queries + second.counts.queries).toBe(1);
    expect(first.counts.parses + second.counts.parses).toBe(2);
    // Lengths were fixed: 4 names grew by 3 bytes each.
    expect(out.length).toBe(stream.length + 4 * 'c7_'.length);

    // A unit is forwarded whole: Parse and Bind wait for the Sync that ends them (pglite-socket would
    // otherwise interleave another connection's messages between them in its one session).
    const held = rewriter.feed(Buffer.concat([unnamed, bind]));
    expect(held.out.length).toBe(0);
    const whole = rewriter.feed(sync);
    expect(whole.out.length).toBe(unnamed.length + bind.length + 'c7_'.length + sync.length);
    expect(whole.out.subarray(0, unnamed.length)).toEqual(unnamed);
    expect(whole.out.subarray(whole.out.length - sync.length)).toEqual(sync);
    expect(whole.out.toString('latin1')).toContain('c7_quota_read');
    expect(whole.counts.queries).toBe(1);

    const end = rewriter.feed(Buffer.concat([message('X', Buffer.alloc(0)), sync]));
    expect(end.terminated).toBe(true);
    expect(end.out.length).toBe(0);
  });
});

describe('the relay in front of pglite-socket', () => {
  let db: PGlite;
  let server: PGLiteSocketServer;
  let relay: Relay;
  let connectionString: string;

  beforeAll(async () => {
    db = await PGlite.create();
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
    await server.start();
    const port = Number(server.getServerConn().split(':').at(-1));
    relay = await startRelay({ target: { host: '127.0.0.1', port } });
    connectionString = `postgres://u:p@127.0.0.1:${port}/postgres`;
  });
  afterAll(async () => {
    await relay.close();
    await server.stop();
    await db.close();
  });

  const pool = () =>
    openNeon({
      connectionString,
      webSocketConstructor: WebSocket,
      ...localProxyOptions(`127.0.0.1:${relay.port}`),
    });

  it('lets two connections prepare the same statement name, hangs up on Terminate and counts', async () => {
    relay.resetCounters();
    for (const n of [1, 2]) {
      // A pool per request, as the worker opens one: each is a new connection in pglite's one session.
      const handle = pool();
      const result = await handle.pool.query({ name: 'same_name', text: 'select $1::int as n', values: [n] });
      expect(result.rows).toEqual([{ n }]);
      // Resolves only because the relay closes the socket after Terminate (the driver never does).
      await handle.close();
    }
    expect(await relay.whenIdle(5000)).toBe(true);
    expect(relay.counters()).toMatchObject({ connectionsOpened: 2, connectionsOpen: 0, queries: 2, parses: 2 });
  });

  it("serves Neon's SQL over HTTP: one round trip a statement or a batch, Postgres errors with their code, transactions on the pool", async () => {
    const handle = openNeon({
      connectionString,
      webSocketConstructor: WebSocket,
      transport: 'http',
      ...localProxyOptions(`127.0.0.1:${relay.port}`),
    });
    try {
      relay.resetCounters();
      // Typed values come back parsed by the driver as over the wire: int4, int8 (text, as pg leaves it), bool, jsonb, null.
      const rows = await queryRows<Record<string, unknown>>(
        handle.db,
        sql`select ${41}::int + 1 as answer, 9007199254740993::int8 as big, true as yes, ${'{"a":[1]}'}::jsonb as doc, null::text as nothing`,
      );
      expect(rows).toEqual([{ answer: 42, big: 9007199254740993n, yes: true, doc: { a: [1] }, nothing: null }]);
      expect(relay.counters()).toMatchObject({ connectionsOpened: 0, queries: 1, httpRequests: 1, httpStatements: 1 });

      // A batch: several statements, one request, one transaction.
      await handle.db.execute(sql`create table http_probe (id int primary key)`);
      relay.resetCounters();
      const batched = handle.db as unknown as { batch(queries: unknown[]): Promise<unknown[]> };
      await batched.batch([
        handle.db.execute(sql`insert into http_probe values (1)`),
        handle.db.execute(sql`insert into http_probe values (2)`),
      ]);
      expect(relay.counters()).toMatchObject({ queries: 1, httpRequests: 1, httpStatements: 2 });
      // All or nothing: the duplicate key refuses the whole batch, with its SQLSTATE on the error.
      const failed = await batched
        .batch([
          handle.db.execute(sql`insert into http_probe values (3)`),
          handle.db.execute(sql`insert into http_probe values (1)`),
        ])
        .then(
          () => null,
          (error: unknown) => error,
        );
      const codes: unknown[] = [];
      for (let e: unknown = failed; e; e = (e as { cause?: unknown }).cause) codes.push((e as { code?: unknown }).code);
      expect(codes).toContain('23505');
      expect(await queryRows(handle.db, sql`select id from http_probe order by id`)).toEqual([{ id: 1 }, { id: 2 }]);

      // An interactive transaction opens the WebSocket pool (the HTTP endpoint has none) and commits there.
      relay.resetCounters();
      const inside = await handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into http_probe values (4)`);
        return queryRows<{ n: number }>(tx, sql`select count(*)::int as n from http_probe`);
      });
      expect(inside).toEqual([{ n: 3 }]);
      expect(relay.counters()).toMatchObject({ connectionsOpened: 1, httpRequests: 0 });
    } finally {
      await handle.close();
    }
    expect(await relay.whenIdle(5000)).toBe(true);
  });
});

describe('NEON_WS_PROXY', () => {
  it('is refused in production', () => {
    expect(() =>
      loadConfig({
        APP_ENV: 'production',
        DATABASE_URL: 'postgres://u:p@db.example/x',
        PUBLIC_URL: 'https://cip.example',
        OAUTH_SIGNING_SECRET: 'x'.repeat(32),
        SECRETS_ENCRYPTION_KEY: 'y'.repeat(32),
        UPSTASH_REDIS_REST_URL: 'https://redis.example',
        UPSTASH_REDIS_REST_TOKEN: 't',
        QSTASH_TOKEN: 'q',
        QSTASH_CURRENT_SIGNING_KEY: 'c',
        QSTASH_NEXT_SIGNING_KEY: 'n',
        NEON_WS_PROXY: '127.0.0.1:9000',
      }),
    ).toThrow(ConfigError);
  });

  it('points the driver at ws://<proxy>/v2 without TLS elsewhere', () => {
    const options = localProxyOptions('127.0.0.1:9000');
    expect(options.useSecureWebSocket).toBe(false);
    const wsProxy = options.wsProxy;
    if (typeof wsProxy !== 'function') throw new Error('expected a wsProxy function');
    expect(wsProxy('db.example', 5432)).toBe('127.0.0.1:9000/v2?address=db.example:5432');
    expect(localProxyOptions(undefined)).toEqual({});
  });
});
