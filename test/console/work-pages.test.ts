import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agents, artifactVersions, routineFires, routines } from '../../schema/index.js';
import { browse, type CookieJar, decodeHtml, formFields, signInWithLink } from '../support/console-session.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * `/console/agents`, `/console/routines`, `/console/documents`: create and edit agents and routines,
 * run a routine now, read a document's versions and publish or reject a proposed one, all through
 * the public operations as the member. Facts are checked in the tables.
 */
let h: Harness;
let ws: SeededWorkspace;
let jar: CookieJar;
const html = async (res: Response) => decodeHtml(await res.text());

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  jar = await signInWithLink(h, ws.admin.email);
}, 180_000);
afterAll(async () => {
  await h?.close();
});

const post = async (action: string, page: string, fields: Record<string, string> = {}) =>
  browse(h, jar, action, { form: { ...formFields(page, action), ...fields } });

describe('agents', () => {
  let agentId: string;
  it('lists the roster and creates an agent (POST-redirect-GET)', async () => {
    const page = await html(await browse(h, jar, '/console/agents'));
    expect(page).toContain('library (locked)');
    const res = await post('/console/agents', page, {
      name: 'Churn watcher',
      description: 'Looks for churn risk',
      prompt: 'Find accounts at risk of churn and say why.',
      tool_blocklist: '',
    });
    expect(res.status).toBe(303);
    const [row] = await h.database.db.select().from(agents).where(eq(agents.workspaceId, ws.id));
    expect(row).toMatchObject({ name: 'Churn watcher', prompt: 'Find accounts at risk of churn and say why.' });
    agentId = row?.id as string;
    expect(res.headers.get('location')).toBe(`/console/agents/${agentId}?notice=agent_created`);
  });

  it('edits it; an unknown tool in the blocklist is the operation’s own 400', async () => {
    const page = await html(await browse(h, jar, `/console/agents/${agentId}`));
    const action = `/console/agents/${agentId}`;
    const fields = { name: 'Churn watcher', description: '', prompt: 'Only enterprise accounts.', tool_blocklist: '' };
    expect((await post(action, page, fields)).status).toBe(303);
    const [row] = await h.database.db.select().from(agents).where(eq(agents.id, agentId));
    expect(row).toMatchObject({ prompt: 'Only enterprise accounts.', description: null });
    const refused = await post(action, page, { ...fields, tool_blocklist: 'no.such_operation' });
    expect(refused.status).toBe(400);
    expect(await html(refused)).toMatch(/role="alert">[^<]*no\.such_operation/);
  });
});

describe('routines', () => {
  let routineId: string;
  it('creates a routine; a bad cron is refused with the form kept', async () => {
    const page = await html(await browse(h, jar, '/console/routines'));
    expect(page).toContain('No routines yet.');
    const fields = {
      name: 'Weekly digest',
      prompt: 'Summarize the week.',
      cron: '0 9 * * 1',
      timezone: 'UTC',
      agent: '',
    };
    const bad = await post('/console/routines', page, { ...fields, cron: 'every monday', enabled: 'yes' });
    expect(bad.status).toBe(400);
    expect(await html(bad)).toContain('value="every monday"');
    const res = await post('/console/routines', page, { ...fields, enabled: 'yes' });
    expect(res.status).toBe(303);
    const [row] = await h.database.db.select().from(routines).where(eq(routines.workspaceId, ws.id));
    expect(row).toMatchObject({ name: 'Weekly digest', cron: '0 9 * * 1', enabled: true });
    routineId = row?.id as string;
  });

  it('edits it (disabling it), and runs it now', async () => {
    const action = `/console/routines/${routineId}`;
    const page = await html(await browse(h, jar, action));
    const saved = await post(action, page, {
      name: 'Weekly digest',
      prompt: 'Summarize the week.',
      cron: '30 8 * * 1',
      timezone: 'Europe/Paris',
      agent: '',
    });
    expect(saved.status).toBe(303);
    const [row] = await h.database.db.select().from(routines).where(eq(routines.id, routineId));
    expect(row).toMatchObject({ cron: '30 8 * * 1', timezone: 'Europe/Paris', enabled: false, nextRunAt: null });
    const run = await post(`/console/routines/${routineId}/run`, page);
    expect(run.status).toBe(303);
    const fires = await h.database.db.select().from(routineFires).where(eq(routineFires.routineId, routineId));
    expect(fires).toMatchObject([{ trigger: 'run_now' }]);
    expect(await html(await browse(h, jar, run.headers.get('location') as string))).toContain(
      'The routine is running now',
    );
  });

  it('deletes it after a confirmation page (POST-redirect-GET), offered only to members who may', async () => {
    const viewer = await signInWithLink(h, ws.viewer.email);
    expect(await html(await browse(h, viewer, `/console/routines/${routineId}`))).not.toContain('Delete routine');
    const page = await html(await browse(h, jar, `/console/routines/${routineId}`));
    expect(page).toContain(`href="/console/routines/${routineId}/delete"`);
    expect(page).toContain('aria-label="Delete routine Weekly digest"');

    const confirm = await html(await browse(h, jar, `/console/routines/${routineId}/delete`));
    expect(confirm).toContain('Delete the routine “Weekly digest”?');
    // Showing the confirmation deletes nothing.
    expect(await h.database.db.select().from(routines).where(eq(routines.id, routineId))).toHaveLength(1);
    // A viewer's post is the operation's own refusal, and the routine stays.
    const viewerPage = await html(await browse(h, viewer, `/console/routines/${routineId}/delete`));
    const refused = await browse(h, viewer, `/console/routines/${routineId}/delete`, {
      form: formFields(viewerPage, `/console/routines/${routineId}/delete`),
    });
    expect(refused.status).toBe(403);
    expect(await h.database.db.select().from(routines).where(eq(routines.id, routineId))).toHaveLength(1);

    const res = await post(`/console/routines/${routineId}/delete`, confirm);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/routines?notice=routine_deleted');
    expect(await h.database.db.select().from(routines).where(eq(routines.id, routineId))).toEqual([]);
    expect(await html(await browse(h, jar, '/console/routines?notice=routine_deleted'))).toContain(
      'The routine is deleted',
    );
  });

  it("another workspace's routine has no delete page (404) and cannot be deleted from here", async () => {
    const other = await h.seedWorkspace('Other Routines');
    const created = await h.request('POST', '/routines', {
      key: other.admin.key,
      body: { name: 'Theirs', prompt: 'Summarize.', cron: '0 9 * * 1' },
    });
    expect(created.status, created.text).toBe(201);
    const theirs = created.body.data.id as string;
    expect((await browse(h, jar, `/console/routines/${theirs}/delete`)).status).toBe(404);
    const page = await html(await browse(h, jar, '/console/routines'));
    const res = await browse(h, jar, `/console/routines/${theirs}/delete`, {
      form: { csrf_token: formFields(page).csrf_token ?? '', confirm: 'yes' },
    });
    expect(res.status).toBe(404);
    expect(await h.database.db.select().from(routines).where(eq(routines.id, theirs))).toHaveLength(1);
  });
});

describe('documents', () => {
  it('shows a document’s versions and publishes or rejects a proposed one', async () => {
    const first = await h.request('POST', '/outputs/documents', {
      key: ws.admin.key,
      body: { title: 'Churn notes', markdown: 'Customers mention onboarding.' },
    });
    expect(first.status, first.text).toBe(201);
    const id = first.body.data.artifact.id as string;
    const second = await h.request('POST', '/outputs/documents', {
      key: ws.admin.key,
      body: { title: 'Churn notes', markdown: 'Customers mention onboarding and pricing.', artifact_id: id },
    });
    expect(second.status, second.text).toBe(201);
    const list = await html(await browse(h, jar, '/console/documents'));
    expect(list).toContain(`<a href="/console/documents/${id}">Churn notes</a>`);
    const page = await html(await browse(h, jar, `/console/documents/${id}`));
    expect(page).toContain('Customers mention onboarding and pricing.');
    expect(page).toMatch(/Version 2 <span class="badge warn">proposed<\/span>/);
    const promoted = await post(`/console/documents/${id}/versions/2/promote`, page);
    expect(promoted.status).toBe(303);
    const rejected = await post(`/console/documents/${id}/versions/1/reject`, page);
    expect(rejected.status).toBe(303);
    const statuses = await h.database.db
      .select({ version: artifactVersions.version, status: artifactVersions.status })
      .from(artifactVersions)
      .where(and(eq(artifactVersions.artifactId, id), eq(artifactVersions.workspaceId, ws.id)))
      .orderBy(artifactVersions.version);
    expect(statuses).toEqual([
      { version: 1, status: 'rejected' },
      { version: 2, status: 'published' },
    ]);
    // Deciding again is the operation's own 409, shown on the page.
    const again = await post(`/console/documents/${id}/versions/2/promote`, page);
    expect(again.status).toBe(400);
  });

  it('a viewer reads but is offered no decision', async () => {
    const viewer = await signInWithLink(h, ws.viewer.email);
    const page = await html(await browse(h, viewer, '/console/routines'));
    expect(page).not.toContain('action="/console/routines"');
  });
});
