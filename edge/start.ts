/**
 * `npm run start:edge`: the worker bundle in workerd against a local stack (edge/stack.ts) on
 * DATA_DIR (default ./.data; one process at a time, like npm start). EDGE_RTT_MS injects a
 * simulated round-trip time on the database, Redis and QStash.
 */
import { DEMO_ADMIN_EMAIL } from '../functions/embedded/demo-bootstrap.js';
import { startEdgeStack } from './stack.js';

const dataDir = process.env.DATA_DIR ?? './.data';
const port = process.env.PORT ? Number(process.env.PORT) : 8787;
const rttMs = process.env.EDGE_RTT_MS ? Number(process.env.EDGE_RTT_MS) : 0;

// Until the stack is up a signal just exits (edge/wrangler-dev.ts stops workerd on exit).
const exitNow = () => process.exit(130);
process.on('SIGINT', exitNow);
process.on('SIGTERM', exitNow);

const stack = await startEdgeStack({
  dataDir,
  port,
  oneWayDelayMs: rttMs / 2,
  echo: true,
  logLevel: process.env.LOG_LEVEL ?? 'info',
});
const base = `${stack.url}/api/platform/v1`;
const lines = [
  '',
  `Customer Intelligence Platform API in workerd (wrangler dev --local) on ${base}`,
  `  database: ${dataDir} (PGlite) over the Postgres wire, relayed at ws://${stack.neonWsProxy}${rttMs ? `, ${rttMs} ms RTT` : ''}`,
  `  QStash stand-in ${stack.qstash.url}   Upstash Redis stand-in ${stack.redis.url}`,
  `  counters: curl -s ${stack.controlUrl}/counters   cron: curl -s '${stack.url}/__scheduled?cron=*+*+*+*+*'`,
];
if (stack.adminKey) {
  lines.push(
    `  Admin API key for ${DEMO_ADMIN_EMAIL}, shown this once (only its hash is stored):`,
    `    ${stack.adminKey}`,
    `    curl -s ${base}/setup/status -H 'X-API-Key: ${stack.adminKey}'`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  process.exit(0);
};
process.off('SIGINT', exitNow);
process.off('SIGTERM', exitNow);
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
