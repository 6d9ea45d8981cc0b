/**
 * The embedded default: `npm start` on a fresh clone, no service, no network. PGlite in DATA_DIR (or
 * Neon when DATABASE_URL is set), migrations applied, the demo workspace on first start, the local
 * queue transport, the in-memory limiter and the local model, served by @hono/node-server.
 */
import { join } from 'node:path';
import { getConnInfo } from '@hono/node-server/conninfo';
import { ConfigError, loadConfig } from '../platform/config.js';
import { DataDirInUseError, SERVER_LOCK_PURPOSE } from '../platform/db/data-dir-lock.js';
import { createLogger } from '../platform/log.js';
import { nodeOutboundHttp } from '../platform/net/node-http.js';
import { serveNode } from '../platform/net/node-server.js';
import { IntervalScheduler } from '../platform/scheduler/interval.js';
import { LocalTransport } from '../queues/transport/local.js';
import { createApp } from './app.js';
import { buildServices } from './build-services.js';
import { docxThreadPool } from './knowledge/parsers/docx-thread.js';
import { FolderFileStore } from '../platform/files/folder.js';
import { installedStaticAssets } from '../platform/assets/installed.js';
import { bootstrapDemo, DEMO_ADMIN_EMAIL } from './embedded/demo-bootstrap.js';
import { openNodeDatabase, sqlQueryConnectionOf } from './embedded/open-database.js';
import { reembedStaleLocalVectors } from './embedded/reembed.js';
import { runScheduledTick } from './scheduled-tick.js';
import { loadEmbeddedSecrets } from './embedded/secrets.js';
import { API_PREFIX } from './http/env.js';
import { createSignInLink } from './identity/console-sessions.js';

/** How often the embedded default runs the scheduled tick (the Workers cron runs it every minute). */
const TICK_PERIOD_MS = 30_000;
/**
 * How long a stop may take before the process exits anyway: running stages stop at their next yield
 * point, well within it; a stage stuck in work that cannot yield does not hold the process.
 */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const log = createLogger(config.LOG_LEVEL);
  const startedAt = Date.now();
  const database = await openNodeDatabase(config, SERVER_LOCK_PURPOSE);
  const secrets = loadEmbeddedSecrets(config, (m) => log.warn(m));
  const demo = await bootstrapDemo(database.handle.db);
  const sqlQueryConnection = sqlQueryConnectionOf(config);
  const services = buildServices({
    config,
    db: database.handle.db,
    oauthSecret: secrets.oauthSecret,
    localQueueKeys: secrets.localQueueKeys,
    secretsEncryptionKey: secrets.secretsEncryptionKey,
    outbound: nodeOutboundHttp,
    log,
    files: new FolderFileStore(join(config.DATA_DIR, 'files')),
    assets: installedStaticAssets(),
    ...(sqlQueryConnection ? { sqlQueryConnection } : {}),
    // mammoth's synchronous conversion off the event loop (the Workers build converts in-process).
    docxToHtml: docxThreadPool().toHtml,
  });
  // Before serving: a store of an older local embedder's vectors would leave the semantic lane degraded.
  for (const r of await reembedStaleLocalVectors(database.handle.db, services.embedder))
    log.info('re-embedded vectors of an older local embedder', { ...r, to: services.embedder.id });
  const { app } = createApp({
    services,
    precompress: true,
    clientIp: (c) => {
      try {
        return getConnInfo(c).remote.address;
      } catch {
        return undefined;
      }
    },
  });
  if (services.queue instanceof LocalTransport) services.queue.attach(async (req) => app.fetch(req));
  // The local stand-in for the Workers cron trigger: the same tick, now and every 30 s.
  const scheduler = new IntervalScheduler(TICK_PERIOD_MS, log, () => services.clock.now());
  scheduler.start((at) => runScheduledTick(services, at));

  // Keep-alive, headers and request timeouts set so the server never drops a connection a client reuses.
  const server = await serveNode({ fetch: app.fetch, hostname: config.HOST, port: config.PORT });

  const base = `http://${config.HOST}:${config.PORT}${API_PREFIX}`;
  const lines = [
    '',
    `Customer Intelligence Platform API listening on ${base} (started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
    `  data: ${database.location}${config.DATABASE_URL ? ' (Neon)' : ' (PGlite)'}   model: ${services.model.id}   queue: ${services.queue.name}`,
    `  demo workspace: ${demo.name} (${demo.workspaceId})`,
  ];
  if (demo.adminKey) {
    lines.push(
      '',
      `  Admin API key for ${DEMO_ADMIN_EMAIL}, shown this once (only its hash is stored):`,
      `    ${demo.adminKey}`,
      '',
      '  Try it:',
      `    curl -s ${base}/setup/status -H 'X-API-Key: ${demo.adminKey}'`,
    );
  } else {
    lines.push(
      '',
      '  The demo admin key was printed on first start. To mint another (with the server stopped):',
      `    npm run -s admin -- key create --workspace ${demo.workspaceId} --email ${DEMO_ADMIN_EMAIL} --role admin --bundle full_admin`,
    );
  }
  // A fresh sign-in link at every start: with PGlite the admin CLI cannot open DATA_DIR while the server holds it.
  const link = await createSignInLink(database.handle.db, config.publicUrl, DEMO_ADMIN_EMAIL, services.clock.now());
  lines.push(
    '',
    `  Console: ${config.publicUrl}/console`,
    `  One-time sign-in link for ${DEMO_ADMIN_EMAIL} (valid 15 minutes, single use):`,
    `    ${link.url}`,
    `  Another, later (server stopped): npm run -s admin -- login-link --email ${DEMO_ADMIN_EMAIL}`,
    '',
  );
  lines.push(`  OpenAPI: ${base}/openapi.json   MCP: ${base}/mcp`, '');
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      // A second signal: the operator will not wait.
      process.exit(1);
    }
    stopping = true;
    log.info('shutting down', { signal });
    setTimeout(() => {
      log.warn('shutdown took too long; exiting', { grace_ms: SHUTDOWN_GRACE_MS });
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    // Stages running now stop at their next yield point and are retried at the next start.
    services.engine.stop();
    // Requests in flight are answered before the queue and the database they use are closed.
    await server.close();
    await scheduler.stop();
    if (services.queue instanceof LocalTransport) await services.queue.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else if ((error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    process.stderr.write(`Port already in use: set PORT to a free port. (${(error as Error).message})\n`);
  } else {
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
