import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allOperations } from '../../functions/modules.js';
import { newId } from '../../platform/ids.js';
import type { StepRequest } from '../../platform/model/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { outboxMessages, runToolCalls, webhooks } from '../../schema/index.js';
import { RecordingQueue } from '../engine/fixtures.js';
import { startFakeServer, type FakeRequest, type FakeServer } from '../support/fake-http-server.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { answerWith, callTool, ScriptedModel } from '../support/scripted-model.js';

/**
 * Documents behind the verified write gate, the artifact webhooks, and actions, through routine
 * runs driven by a scripted model: each gate step with its outcome recorded on the run, each
 * webhook once per change, an action outside `actions_allowed` proposed and never sent.
 */

const model = new ScriptedModel(() => answerWith('unscripted'));
let h: Harness;
let ws: SeededWorkspace;
let admin: string;
let server: FakeServer;
const hits: FakeRequest[] = [];

beforeAll(async () => {
  server = await startFakeServer((req, res) => {
    hits.push(req);
    if (req.url === '/emails') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `email_${hits.length}` }));
      return;
    }
    res.writeHead(200).end('ok');
  });
  h = await createHarness({ model, operations: allOperations, env: { ALLOW_LOOPBACK_WEBHOOKS: '1' } });
  ws = await h.seedWorkspace();
  admin = (await ws.keyFor(ws.admin, 'full_admin')).key;
  const secret = `whsec_${Buffer.from('documents-test-secret-0123456789abcd').toString('base64')}`;
  await h.database.db.insert(webhooks).values({
    id: newId(),
    workspaceId: ws.id,
    userId: ws.admin.userId,
    url: `${server.url}/hooks`,
    events: ['artifact.created', 'artifact.updated', 'artifact.status_changed', 'session.completed'],
    secretSealed: await h.services.secretBox.seal(secret),
  });
});
afterAll(async () => {
  await h.close();
  await server.close();
});
beforeEach(() => {
  model.requests.length = 0;
});

const drain = () => (h.services.queue as LocalTransport).drain();
const toolResults = (r: StepRequest) =>
  r.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse((m as { content: string }).content));
const events = (type: string) =>
  hits
    .filter((r) => r.url === '/hooks')
    .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
    .filter((e) => e.type === type);
const dealsQuery = { surface: 'deals', metrics: [{ fn: 'count' }] };

async function routine(config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/routines', {
    key: admin,
    body: { name: 'Digest', prompt: 'Write the weekly digest.', cron: '0 9 * * 1', enabled: false, config, ...extra },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** Run a routine now with a script: search, then write `doc`, then answer with the write's outcome. */
async function fireWith(id: string, doc: Record<string, unknown>) {
  model.setScript((r) => {
    const done = toolResults(r);
    if (done.length === 0) return callTool('q', 'search_query', dealsQuery);
    if (done.length === 1) return callTool('w', 'outputs_write_doc', doc);
    return answerWith(`Write outcome: ${JSON.stringify(done[1])}`);
  });
  const fired = (await h.request('POST', `/routines/${id}/run-now`, { key: admin })).body.data;
  await drain();
  const run = (await h.request('GET', `/chat/runs/${fired.run_id}`, { key: admin })).body.data;
  return { fired, run, write: toolResults(model.requests.at(-1)!)[1] as { ok: boolean; output?: any; error?: any } };
}

describe('the document commit gate, in order', () => {
  it('(1) refuses a routine run started with write_outputs: false, and records why on the run', async () => {
    const r = await routine({ write_outputs: false });
    const { run, write } = await fireWith(r.id, { title: 'Digest', markdown: 'Nothing to report.' });
    expect(write).toMatchObject({ ok: false, error: { code: 'conflict', details: { reason: 'outputs_disabled' } } });
    expect(run.outputs).toEqual([
      expect.objectContaining({ kind: 'document', outcome: 'refused', reason: 'outputs_disabled' }),
    ]);
    expect(
      (await h.request('GET', '/artifacts', { key: admin })).body.data.artifacts.filter(
        (a: { routine_id: string }) => a.routine_id === r.id,
      ),
    ).toEqual([]);
  });

  it('(2) blocks the commit when a theme read failed during the run (degraded_read)', async () => {
    const r = await routine();
    model.setScript((req) => {
      const done = toolResults(req);
      return done.length === 0
        ? callTool('q', 'search_query', dealsQuery)
        : done.length === 1
          ? callTool('w', 'outputs_write_doc', { title: 'T', markdown: 'Text.' })
          : answerWith('done');
    });
    const q = new RecordingQueue();
    const original = h.services.queue;
    h.services.queue = q;
    try {
      const fired = (await h.request('POST', `/routines/${r.id}/run-now`, { key: admin })).body.data;
      await h.services.engine.handleDelivery(q.published[0]!.kind, q.published[0]!.body);
      // The run's search reads as a failed theme-index read (the semantic lane's fallback store).
      const [journal] = await h.database.db
        .select()
        .from(runToolCalls)
        .where(eq(runToolCalls.runId, fired.run_id))
        .then((rows) => rows.filter((j) => j.tool === 'search_query'));
      const result = journal!.result as { output: { corpus: Record<string, unknown> } };
      result.output.corpus = { ...result.output.corpus, store: 'theme_index', empty_reason: 'read_failed' };
      await h.database.db
        .update(runToolCalls)
        .set({ result: result as unknown as Record<string, unknown> })
        .where(eq(runToolCalls.callKey, journal!.callKey));
      for (let i = 0; i < 4; i++) {
        const m = q.published.at(-1)!;
        await h.services.engine.handleDelivery(m.kind, m.body);
      }
      const run = (await h.request('GET', `/chat/runs/${fired.run_id}`, { key: admin })).body.data;
      expect(run.outputs).toEqual([expect.objectContaining({ outcome: 'refused', reason: 'degraded_read' })]);
    } finally {
      h.services.queue = original;
    }
  });

  it('(3) publishes when every digit is backed by the run\u2019s own query cells; proposes when one is not', async () => {
    const r = await routine();
    const count = (await h.request('POST', '/search/query', { key: admin, body: dealsQuery })).body.data.results[0]
      .count as number;
    const published = await fireWith(r.id, { title: 'Pipeline digest', markdown: `The CRM holds **${count}** deals.` });
    expect(published.write).toMatchObject({
      ok: true,
      output: { artifact: { status: 'published', current_version: 1 }, version: { status: 'published', reason: null } },
    });
    expect(published.run.outputs).toEqual([
      expect.objectContaining({ kind: 'document', outcome: 'published', version: 1 }),
    ]);
    const artifactId = published.write.output.artifact.id as string;

    const proposed = await fireWith(r.id, {
      title: 'Pipeline digest',
      markdown: `The CRM holds **${count + 17}** deals.`,
      artifact_id: artifactId,
    });
    expect(proposed.write.output.version).toMatchObject({
      version: 2,
      status: 'proposed',
      reason: expect.stringContaining(`unverified numbers: ${count + 17}`),
    });
    // The document stays published at version 1: the reader sees the verified one.
    expect(proposed.write.output.artifact).toMatchObject({
      status: 'published',
      current_version: 1,
      latest_version: 2,
    });
  });

  it('(3) proposes whatever a workspace-authored agent writes, for an editor to promote or reject', async () => {
    await h.request('POST', '/agents', { key: admin, body: { name: 'House writer', prompt: 'Write digests.' } });
    const r = await routine({}, { agent: 'house-writer' });
    const { write } = await fireWith(r.id, { title: 'House digest', markdown: 'No figures here.' });
    expect(write.output.version).toMatchObject({
      status: 'proposed',
      reason: expect.stringContaining('workspace agent (house-writer)'),
    });
    const id = write.output.artifact.id;
    expect(write.output.artifact.status).toBe('proposed');
    const promoted = await h.request('POST', `/artifacts/${id}/versions/1/promote`, {
      key: admin,
      body: { note: 'Looks right.' },
    });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.data).toMatchObject({
      artifact: { status: 'published', current_version: 1 },
      version: { status: 'published', decided_by: ws.admin.userId, decision_note: 'Looks right.' },
    });
    const again = await h.request('POST', `/artifacts/${id}/versions/1/reject`, { key: admin });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state', details: { current_status: 'published' } });
    const viewer = await ws.tokenFor(ws.viewer, ['artifacts:write']);
    expect((await h.request('POST', `/artifacts/${id}/versions/1/promote`, { bearer: viewer })).body.error.code).toBe(
      'insufficient_role',
    );
  });
});

describe('documents written through the API', () => {
  it('lands proposed outside a run; reads list, get and versions; a rejected only version rejects the document', async () => {
    const res = await h.request('POST', '/outputs/documents', {
      key: admin,
      body: { title: 'Notes', markdown: 'Plain notes.' },
    });
    expect(res.status, res.text).toBe(201);
    const id = res.body.data.artifact.id;
    expect(res.body.data.version).toMatchObject({
      version: 1,
      status: 'proposed',
      reason: expect.stringContaining('outside a run'),
    });
    const doc = (await h.request('GET', `/artifacts/${id}`, { key: ws.viewer.key })).body.data;
    expect(doc).toMatchObject({
      id,
      title: 'Notes',
      status: 'proposed',
      current: null,
      latest: { version: 1, markdown: 'Plain notes.' },
    });
    expect(
      (await h.request('GET', `/artifacts/${id}/versions`, { key: ws.viewer.key })).body.data.versions,
    ).toHaveLength(1);
    const rejected = await h.request('POST', `/artifacts/${id}/versions/1/reject`, {
      key: admin,
      body: { note: 'Not useful.' },
    });
    expect(rejected.body.data.artifact.status).toBe('rejected');
    const other = await h.seedWorkspace();
    expect((await h.request('GET', `/artifacts/${id}`, { key: other.admin.key })).status).toBe(404);
    expect(
      (await h.request('POST', '/outputs/documents', { key: ws.editor.key, body: { title: 'x', markdown: 'y' } })).body
        .error.code,
    ).toBe('scope_denied');
  });
});

describe('the artifact webhooks', () => {
  it('emits created, updated and status_changed once per change, with the document\u2019s ids', async () => {
    hits.length = 0;
    const created = await h.request('POST', '/outputs/documents', {
      key: admin,
      body: { title: 'Hooked', markdown: 'v1' },
    });
    const id = created.body.data.artifact.id;
    await h.request('POST', '/outputs/documents', {
      key: admin,
      body: { title: 'Hooked', markdown: 'v2', artifact_id: id },
    });
    await h.request('POST', `/artifacts/${id}/versions/2/promote`, { key: admin });
    await drain();
    const mine = (type: string) => events(type).filter((e) => e.data.artifact_id === id);
    expect(mine('artifact.created')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ version: 1, status: 'proposed' }) }),
    ]);
    expect(mine('artifact.updated')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ version: 2 }) }),
    ]);
    expect(mine('artifact.status_changed')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ from: 'proposed', to: 'published', version: 2 }) }),
    ]);
    // Routine fires end with session.completed like any chat run, trigger included.
    expect(events('session.completed').length).toBe(0); // hits were cleared above; fire one now
    const r = await routine();
    model.setScript(() => answerWith('fired'));
    const fired = (await h.request('POST', `/routines/${r.id}/run-now`, { key: admin })).body.data;
    await drain();
    expect(events('session.completed').filter((e) => e.data.session_id === fired.run_id)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ trigger: 'routine', status: 'complete' }) }),
    ]);
  });
});

describe('actions', () => {
  it('emails a member: kept in the outbox without an email API; a non-member is a 400 naming `to`', async () => {
    const res = await h.request('POST', '/actions/email-member', {
      key: admin,
      body: { to: ws.viewer.email.toUpperCase(), subject: 'Digest', body: 'Here it is.' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      outcome: 'sent',
      message: { to: ws.viewer.email, provider: 'outbox', provider_message_id: null },
    });
    expect((await h.request('GET', '/actions/outbox', { key: admin })).body.data.messages[0]).toMatchObject({
      subject: 'Digest',
    });
    const stranger = await h.request('POST', '/actions/email-member', {
      key: admin,
      body: { to: 'someone@elsewhere.example', subject: 's', body: 'b' },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.error.details.fields[0].field).toBe('to');
  });

  it('a routine run takes an allowed action, and proposes one its actions_allowed leaves out (never sends it)', async () => {
    const send = (r: StepRequest) =>
      toolResults(r).length === 0
        ? callTool('e', 'actions_email_member', { to: ws.editor.email, subject: 'From a routine', body: 'Hello.' })
        : answerWith('done');
    model.setScript(send);
    const before = (await h.database.db.select().from(outboxMessages)).length;
    const off = await routine({ actions_allowed: [] });
    const blocked = (await h.request('POST', `/routines/${off.id}/run-now`, { key: admin })).body.data;
    await drain();
    expect(toolResults(model.requests.at(-1)!)[0]).toEqual({
      ok: true,
      output: { outcome: 'proposed', reason: 'action_not_allowed', message: null },
    });
    expect((await h.request('GET', `/chat/runs/${blocked.run_id}`, { key: admin })).body.data.outputs).toEqual([
      expect.objectContaining({
        kind: 'action',
        target: 'email_member',
        outcome: 'proposed',
        reason: 'action_not_allowed',
      }),
    ]);
    expect((await h.database.db.select().from(outboxMessages)).length).toBe(before);

    const on = await routine({ actions_allowed: ['email_member'] });
    const allowed = (await h.request('POST', `/routines/${on.id}/run-now`, { key: admin })).body.data;
    await drain();
    expect((await h.request('GET', `/chat/runs/${allowed.run_id}`, { key: admin })).body.data.outputs).toEqual([
      expect.objectContaining({ outcome: 'sent' }),
    ]);
    expect((await h.database.db.select().from(outboxMessages)).length).toBe(before + 1);
  });

  it('sends through the HTTP email API when one is configured', async () => {
    const mailer = await createHarness({
      database: h.database,
      operations: allOperations,
      env: {
        ALLOW_LOOPBACK_WEBHOOKS: '1',
        EMAIL_API_URL: `${server.url}/emails`,
        EMAIL_API_KEY: 're_test_key',
        EMAIL_FROM: 'digest@platform.test',
      },
    });
    try {
      hits.length = 0;
      const res = await mailer.request('POST', '/actions/email-member', {
        key: admin,
        body: { to: ws.viewer.email, subject: 'Via API', body: 'Sent for real.' },
      });
      expect(res.body.data).toMatchObject({
        outcome: 'sent',
        message: { provider: 'http', provider_message_id: expect.stringMatching(/^email_/) },
      });
      const sent = hits.find((r) => r.url === '/emails')!;
      expect(sent.headers.authorization).toBe('Bearer re_test_key');
      expect(JSON.parse(sent.body)).toEqual({
        from: 'digest@platform.test',
        to: [ws.viewer.email],
        subject: 'Via API',
        text: 'Sent for real.',
      });
    } finally {
      await mailer.close();
    }
  });
});
