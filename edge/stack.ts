import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { bootstrapDemo } from '../functions/embedded/demo-bootstrap.js';
import { loadEmbeddedSecrets } from '../functions/embedded/secrets.js';
import { loadConfig } from '../platform/config.js';
import { acquireDataDirLock } from '../platform/db/data-dir-lock.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { ensureVectorIndexes } from '../platform/db/vector-indexes.js';
import { randomBase62 } from '../platform/ids.js';
import { startControlServer, type ControlServer } from './control.js';
import { startQStashStandin, type QStashStandin } from './qstash-standin.js';
import { startRedisStandin, type RedisStandin } from './redis-standin.js';
import { startRelay, type Relay } from './relay.js';
import { freePort, startWranglerDev, type WranglerDev } from './wrangler-dev.js';

/**
 * The production form on one machine: the worker bundle in workerd (wrangler dev --local), its
 * database a PGlite data folder served over the Postgres wire (pglite-socket) behind the WebSocket
 * relay the Neon driver dials, and stand-ins for QStash and Upstash Redis.
 */
export interface EdgeStackOptions {
  /** The PGlite data folder (created, migrated and given the demo workspace if new). */
  dataDir: string;
  /** Where the worker listens (default: a free port). */
  port?: number;
  oneWayDelayMs?: number;
  /** Echo wrangler's output (npm run start:edge). */
  echo?: boolean;
  /** Worker LOG_LEVEL (default warn). */
  logLevel?: string;
  /** Extra worker variables. */
  vars?: Record<string, string>;
  /** Told how long each start-up phase took (the edge tier prints them: most of its minute is here). */
  onPhase?: (phase: string, ms: number) => void;
}

export interface EdgeStack {
  /** The worker's base URL (= PUBLIC_URL). */
  readonly url: string;
  /** The control server: counters, delay, idle (edge/control.ts). */
  readonly controlUrl: string;
  /** DATABASE_URL and NEON_WS_PROXY as the worker has them, and the relay path that is not counted. */
  readonly databaseUrl: string;
  readonly neonWsProxy: string;
  readonly uncountedWsProxy: string;
  readonly workspaceId: string;
  /** The demo admin's key, only when this start minted it (a new data folder). */
  readonly adminKey: string | null;
  readonly relay: Relay;
  readonly qstash: QStashStandin;
  readonly redis: RedisStandin;
  readonly worker: WranglerDev;
  stop(): Promise<void>;
}

const ROOT = resolve(import.meta.dirname, '..');

export async function startEdgeStack(options: EdgeStackOptions): Promise<EdgeStack> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {}
    }
    cleanups.length = 0;
  };
  let phaseStart = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    options.onPhase?.(name, Math.round(now - phaseStart));
    phaseStart = now;
  };
  try {
    const lock = acquireDataDirLock(options.dataDir, 'npm run start:edge');
    cleanups.push(() => lock.release());
    // The same secrets npm start keeps in the folder: tokens and sealed secrets stay readable.
    const secrets = loadEmbeddedSecrets(loadConfig({ DATA_DIR: options.dataDir }), () => {});

    const handle = await openPglite({ dataDir: options.dataDir });
    cleanups.push(() => handle.close());
    phase('open PGlite');
    await migrateDatabase(handle);
    await ensureVectorIndexes(handle.db);
    phase('migrate');
    const demo = await bootstrapDemo(handle.db);
    phase('demo workspace');

    const pgServer = new PGLiteSocketServer({ db: handle.client, host: '127.0.0.1', port: 0, maxConnections: 1000 });
    await pgServer.start();
    cleanups.push(() => pgServer.stop());
    const [pgHost = '127.0.0.1', pgPort = '0'] = pgServer.getServerConn().split(':');

    const oneWayDelayMs = options.oneWayDelayMs ?? 0;
    const relay = await startRelay({ target: { host: pgHost, port: Number(pgPort) }, oneWayDelayMs });
    cleanups.push(() => relay.close());
    const qstashToken = `qstash_${randomBase62(24)}`;
    const qstash = await startQStashStandin({
      token: qstashToken,
      currentSigningKey: secrets.localQueueKeys.current,
      oneWayDelayMs,
      // One session behind pglite-socket: a delivery starts once the worker's statements have stopped.
      beforeDelivery: () => databaseQuiet(relay),
    });
    cleanups.push(() => qstash.close());
    const redis = await startRedisStandin({ token: `redis_${randomBase62(24)}`, oneWayDelayMs });
    cleanups.push(() => redis.close());

    const port = options.port ?? (await freePort());
    const url = `http://127.0.0.1:${port}`;
    const databaseUrl = `postgres://postgres:postgres@${pgHost}:${pgPort}/postgres`;
    const neonWsProxy = `127.0.0.1:${relay.port}`;
    const persistTo = mkdtempSync(join(tmpdir(), 'cip-edge-wrangler-'));
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    const worker = await startWranglerDev({
      root: ROOT,
      port,
      persistTo,
      echo: options.echo ?? false,
      vars: {
        // Not production: production refuses NEON_WS_PROXY and loopback webhooks, both needed here.
        APP_ENV: 'development',
        LOG_LEVEL: options.logLevel ?? 'warn',
        PUBLIC_URL: url,
        DATABASE_URL: databaseUrl,
        NEON_WS_PROXY: neonWsProxy,
        OAUTH_SIGNING_SECRET: secrets.oauthSecret,
        SECRETS_ENCRYPTION_KEY: secrets.secretsEncryptionKey,
        UPSTASH_REDIS_REST_URL: redis.url,
        UPSTASH_REDIS_REST_TOKEN: redis.token,
        QSTASH_URL: qstash.url,
        QSTASH_TOKEN: qstashToken,
        QSTASH_CURRENT_SIGNING_KEY: secrets.localQueueKeys.current,
        QSTASH_NEXT_SIGNING_KEY: secrets.localQueueKeys.next,
        ALLOW_LOOPBACK_WEBHOOKS: '1',
        MODEL_PROVIDER: 'local',
        ...options.vars,
      },
    });
    cleanups.push(() => worker.stop());
    phase('wrangler dev ready');

    const uncountedWsProxy = `127.0.0.1:${relay.port}/uncounted`;
    const control: ControlServer = await startControlServer({ relay, qstash, redis });
    cleanups.push(() => control.close());

    return {
      url,
      controlUrl: control.url,
      databaseUrl,
      neonWsProxy,
      uncountedWsProxy,
      workspaceId: demo.workspaceId,
      adminKey: demo.adminKey,
      relay,
      qstash,
      redis,
      worker,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Until no worker connection or HTTP statement is open at the relay and none has come for a moment
 * (a request between two statements is not idle). Bounded: a busy worker never stalls delivery forever.
 */
async function databaseQuiet(relay: Relay, quietMs = 80, giveUpMs = 30_000): Promise<void> {
  const deadline = Date.now() + giveUpMs;
  while (Date.now() < deadline) {
    if (!(await relay.whenIdle(Math.max(1, deadline - Date.now())))) return;
    const before = relay.counters();
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const after = relay.counters();
    if (after.queries === before.queries && after.httpStatements === before.httpStatements) return;
  }
}
