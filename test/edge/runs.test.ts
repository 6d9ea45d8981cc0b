import { createServer, type Server } from 'node:http';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, closeServer, readBody } from '../../edge/http-util.js';
import { RUN_BUDGETS, centroidReads } from './budgets.js';
import { api, closeSql, edge, measure, settle, sql } from './support.js';

/**
 * Asynchronous work through the real bundle in workerd: a chat run carried to `complete` by signed
 * QStash deliveries, its `session.completed` webhook delivered to a receiver and recorded, and a
 * routine fired by the cron (`/__scheduled`), each held to its round-trip budget at the relay.
 */
interface Received {
  headers: Record<string, string>;
  body: string;
}

const received: Received[] = [];
let sink: Server;
let sinkUrl: string;
const key = edge.adminKey;

beforeAll(async () => {
  sink = createServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    received.push({ headers, body });
    res.writeHead(200).end('ok');
  });
  sinkUrl = `http://127.0.0.1:${await listen(sink)}/hook`;
});
afterAll(async () => {
  await closeServer(sink);
  await closeSql();
});

const within = (
  seen: { relay: { connectionsOpened: number; queries: number }; qstash: { delivered: number } },
  budget: { connections: number; queries: number; deliveries: number },
) => {
  const context = JSON.stringify(seen);
  expect(seen.relay.connectionsOpened, context).toBeLessThanOrEqual(budget.connections);
  expect(seen.relay.queries, context).toBeLessThanOrEqual(budget.queries);
  expect(seen.qstash.delivered, context).toBeLessThanOrEqual(budget.deliveries);
};

describe('a chat run in workerd', () => {
  it('runs to complete through signed deliveries and its webhook is delivered and recorded', async () => {
    const hook = await api('POST', '/webhooks', { key, body: { url: sinkUrl, events: ['session.completed'] } });
    expect(hook.status, hook.text).toBe(201);
    const { id: webhookId, secret } = hook.body.data as { id: string; secret: string };

    const { result: started, total } = await measure(async () => {
      const res = await api('POST', '/chat', { key, body: { input: 'What did customers say about pricing?' } });
      // measure() settles: every delivery this run set off (its stages, then the webhook's) is done.
      return res;
    });
    expect(started.status, started.text).toBe(202);
    const runId = started.body.data.run_id as string;

    const run = await api('GET', `/chat/runs/${runId}`, { key });
    expect(run.status, run.text).toBe(200);
    expect(run.body.data.status, JSON.stringify(run.body.data.error)).toBe('complete');
    expect(run.body.data.answer.text.length).toBeGreaterThan(0);
    // Independent SQL: the run row, and every stage delivery was acknowledged and none failed.
    const [row] = await sql<{ status: string }>('select status from runs where id = $1', [runId]);
    expect(row?.status).toBe('complete');
    expect(total.qstash.failed).toBe(0);
    expect(total.qstash.delivered).toBeGreaterThanOrEqual(2);
    within(total, RUN_BUDGETS.chatRun);

    // The webhook: delivered once to the receiver, signed with the subscription's secret...
    const deliveries = received.filter(
      (r) => (JSON.parse(r.body) as { data: { run_id?: string } }).data.run_id === runId,
    );
    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries as [Received];
    const event = new StandardWebhook(secret).verify(delivery.body, delivery.headers) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(event).toMatchObject({
      type: 'session.completed',
      business_id: edge.workspaceId,
      data: { status: 'complete' },
    });
    // ...and recorded, as the API lists it and as the table holds it.
    const listed = await api('GET', `/webhooks/${webhookId}/deliveries`, { key });
    expect(listed.status, listed.text).toBe(200);
    const rows = await sql<{ event_id: string; status_code: number; attempt: number }>(
      'select event_id, status_code, attempt from webhook_deliveries where webhook_id = $1 and run_id is not null',
      [webhookId],
    );
    expect(rows.find((r) => r.event_id === delivery.headers['webhook-id'])).toMatchObject({
      status_code: 200,
      attempt: 1,
    });
  });
});

describe('a routine in workerd', () => {
  it('fires from the cron (/__scheduled) and its chat run completes', async () => {
    const created = await api('POST', '/routines', {
      key,
      body: { name: 'Edge routine', prompt: 'Summarise what customers said about pricing.', cron: '0 9 * * 1' },
    });
    expect(created.status, created.text).toBe(201);
    const routineId = created.body.data.id as string;
    // Due now (set-up, not the code under test): its next time moved into the past.
    await sql("update routines set next_run_at = now() - interval '1 minute' where id = $1", [routineId]);

    const { result: tick, total } = await measure(() => fetch(`${edge.url}/__scheduled?cron=*+*+*+*+*`));
    expect(tick.status).toBe(200);
    await settle();

    const fires = await sql<{ run_id: string | null; trigger: string }>(
      'select run_id, trigger from routine_fires where routine_id = $1',
      [routineId],
    );
    expect(fires).toHaveLength(1);
    expect(fires[0]).toMatchObject({ trigger: 'schedule' });
    const routine = await api('GET', `/routines/${routineId}`, { key });
    expect(routine.status, routine.text).toBe(200);
    const chatRunId = routine.body.data.last_fire?.run_id as string;
    expect(chatRunId).toEqual(expect.any(String));
    const [run] = await sql<{ status: string }>('select status from runs where id = $1', [chatRunId]);
    expect(run?.status).toBe('complete');
    const [next] = await sql<{ later: boolean }>('select next_run_at > now() as later from routines where id = $1', [
      routineId,
    ]);
    expect(next?.later).toBe(true);
    const [entities] = await sql<{ accounts: number; deals: number }>(
      `select count(distinct account_id)::int as accounts, count(distinct deal_id)::int as deals
         from interactions where workspace_id = $1`,
      [edge.workspaceId],
    );
    const { queriesBesideCentroidReads, ...fire } = RUN_BUDGETS.routineFire;
    within(total, { ...fire, queries: queriesBesideCentroidReads + centroidReads(entities!) });
  });
});
