import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { consoleFlashes, webhookDeliveries, webhooks } from '../../schema/index.js';
import { browse, type CookieJar, decodeHtml, formFields, signInWithLink } from '../support/console-session.js';
import { startFakeServer, type FakeServer } from '../support/fake-http-server.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * `/console/webhooks` as a person uses it: register (the secret shown once after the redirect),
 * ping and see the delivery, a failing endpoint's error, redeliver, the events and active switch,
 * delete (confirmed). Every write goes through the public webhooks operations; facts are checked in the tables.
 */
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let receiver: FakeServer;
let answer = 200;
const received: string[] = [];
const html = async (res: Response) => decodeHtml(await res.text());
const drain = () => (h.services.queue as LocalTransport).drain();

beforeAll(async () => {
  receiver = await startFakeServer((req, res) => {
    received.push(req.body);
    res.writeHead(answer).end(answer === 200 ? 'ok' : 'nope');
  });
  h = await createHarness({ env: { ALLOW_LOOPBACK_WEBHOOKS: '1' } });
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
}, 180_000);
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

const hooksOf = (workspaceId: string) =>
  h.database.db.select().from(webhooks).where(eq(webhooks.workspaceId, workspaceId));

const deliveryRows = (webhookId: string) =>
  h.database.db
    .select({
      status_code: webhookDeliveries.statusCode,
      error: webhookDeliveries.error,
      attempt: webhookDeliveries.attempt,
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.attempt));

describe('the webhooks pages', () => {
  let jar: CookieJar;
  let hookId: string;
  beforeAll(async () => {
    jar = await signInWithLink(h, ws.admin.email);
  });

  it('registers a webhook (POST-redirect-GET) and shows its signing secret once', async () => {
    const list = await html(await browse(h, jar, '/console/webhooks'));
    expect(list).toContain('No webhooks yet.');
    expect(list).toContain('<label for="register-url">Endpoint URL</label>');
    const fields = formFields(list, '/console/webhooks');
    const res = await browse(h, jar, '/console/webhooks', {
      form: { ...fields, url: `${receiver.url}/hook`, events: 'session.completed' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/webhooks');
    const [row] = await hooksOf(ws.id);
    expect(row?.url).toBe(`${receiver.url}/hook`);
    expect(row?.events).toEqual(['session.completed']);
    hookId = row?.id as string;
    // The secret is sealed at rest: the stored row is not the plaintext shown on the page.
    const page = await html(await browse(h, jar, '/console/webhooks'));
    const secret = /id="webhook-secret" class="secret" readonly="" value="(whsec_[^"]+)"/.exec(page)?.[1];
    expect(secret).toBeDefined();
    expect(await h.services.secretBox.open(row?.secretSealed as string)).toBe(secret);
    expect(page).toContain(`<a href="/console/webhooks/${hookId}">${receiver.url}/hook</a>`);
    // A refresh shows it no more, and nothing of it is left in the flash table.
    const again = await html(await browse(h, jar, '/console/webhooks'));
    expect(again).not.toContain(secret as string);
    expect(await h.database.db.select().from(consoleFlashes)).toHaveLength(0);
  });

  it('a refused URL or an empty event list is the operation’s own message, with the form kept', async () => {
    const fields = formFields(await html(await browse(h, jar, '/console/webhooks')), '/console/webhooks');
    const res = await browse(h, jar, '/console/webhooks', {
      form: { ...fields, url: 'http://169.254.169.254/latest', events: 'session.completed' },
    });
    expect(res.status).toBe(400);
    const page = await html(res);
    expect(page).toContain('role="alert">Webhook url refused: 169.254.169.254 is a linkLocal address');
    expect(page).toContain('value="http://169.254.169.254/latest"');
    const none = await browse(h, jar, '/console/webhooks', { form: { ...fields, url: `${receiver.url}/x` } });
    expect(none.status).toBe(400);
    expect(await hooksOf(ws.id)).toHaveLength(1);
  });

  it('ping queues a signed webhook.ping; after delivery the page lists it with its status', async () => {
    const detail = await html(await browse(h, jar, `/console/webhooks/${hookId}`));
    expect(detail).toContain('No deliveries yet.');
    const action = `/console/webhooks/${hookId}/ping`;
    const res = await browse(h, jar, action, { form: formFields(detail, action) });
    expect(res.status).toBe(303);
    await drain();
    expect(received.some((b) => JSON.parse(b).type === 'webhook.ping')).toBe(true);
    const page = await html(await browse(h, jar, res.headers.get('location') as string));
    expect(page).toContain('A webhook.ping event is queued');
    expect(page).toMatch(/<code>webhook\.ping<\/code><\/td><td>1<\/td><td><span class="badge ok">200<\/span>/);
    expect(await deliveryRows(hookId)).toEqual([{ status_code: 200, error: null, attempt: 1 }]);
  });

  it('a failing endpoint’s status shows; redeliver sends the same event again', async () => {
    answer = 500;
    try {
      const detail = await html(await browse(h, jar, `/console/webhooks/${hookId}`));
      const deliveryId = /action="\/console\/webhooks\/[^/]+\/deliveries\/([^/]+)\/redeliver"/.exec(detail)?.[1];
      const action = `/console/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`;
      const res = await browse(h, jar, action, { form: formFields(detail, action) });
      expect(res.status).toBe(303);
      await drain();
      const rows = await deliveryRows(hookId);
      expect(rows[1]).toMatchObject({ status_code: 500, attempt: 2 });
      const page = await html(await browse(h, jar, `/console/webhooks/${hookId}`));
      expect(page).toMatch(/<td>2<\/td><td><span class="badge bad">500<\/span><\/td><td>[^<]+<\/td>/);
    } finally {
      answer = 200;
    }
  });

  it('the events and the active switch are saved; an inactive webhook cannot be pinged', async () => {
    const detail = await html(await browse(h, jar, `/console/webhooks/${hookId}`));
    const action = `/console/webhooks/${hookId}/settings`;
    const form = new URLSearchParams(formFields(detail, action));
    form.append('events', 'artifact.created');
    form.append('events', 'session.completed');
    // active left unchecked: a checkbox not sent is off
    const res = await h.fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: jar.header(),
        origin: 'http://platform.test',
        'x-forwarded-for': jar.ip,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
    });
    expect(res.status).toBe(303);
    const [row] = await hooksOf(ws.id);
    expect(row?.active).toBe(false);
    expect(row?.events).toEqual(['artifact.created', 'session.completed']);
    const page = await html(await browse(h, jar, `/console/webhooks/${hookId}`));
    expect(page).toContain('<span class="badge bad">off</span>');
    const ping = `/console/webhooks/${hookId}/ping`;
    const refused = await browse(h, jar, ping, { form: formFields(page, ping) });
    expect(refused.status).toBe(400);
    expect(await html(refused)).toMatch(/role="alert">The webhook is inactive/);
  });

  it('delete is confirmed on its own page; only the confirmation POST deletes', async () => {
    const base = `/console/webhooks/${hookId}`;
    const detail = await html(await browse(h, jar, base));
    expect(detail).toContain(`href="${base}/delete"`);
    const confirm = await browse(h, jar, `${base}/delete`);
    expect(confirm.status).toBe(200);
    expect(await hooksOf(ws.id)).toHaveLength(1);
    const res = await browse(h, jar, `${base}/delete`, { form: formFields(await html(confirm), `${base}/delete`) });
    expect(res.status).toBe(303);
    expect(await hooksOf(ws.id)).toHaveLength(0);
    expect(await html(await browse(h, jar, res.headers.get('location') as string))).toContain(
      'The webhook is deleted.',
    );
  });

  it('another workspace’s webhook is a 404 page; a form without the CSRF token changes nothing', async () => {
    const [created] = await h.database.db
      .insert(webhooks)
      .values({
        id: crypto.randomUUID(),
        workspaceId: other.id,
        userId: other.admin.userId,
        url: `${receiver.url}/other`,
        events: ['session.completed'],
        secretSealed: await h.services.secretBox.seal('whsec_other'),
        createdAt: new Date(),
        updatedAt: new Date(),
      })
      .returning();
    const res = await browse(h, jar, `/console/webhooks/${created?.id}`);
    expect(res.status).toBe(404);
    const del = await browse(h, jar, `/console/webhooks/${created?.id}/delete`, { form: { confirm: 'yes' } });
    expect(del.status).toBe(403);
    expect(
      await h.database.db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.workspaceId, other.id), eq(webhooks.id, created?.id as string))),
    ).toHaveLength(1);
  });

  it('a viewer, whose role carries no webhooks scope, gets an honest 403 page', async () => {
    const viewer = await signInWithLink(h, ws.viewer.email);
    const res = await browse(h, viewer, '/console/webhooks');
    expect(res.status).toBe(403);
    expect(await html(res)).toContain('Webhooks are managed by editors and admins.');
  });
});
