import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { ApiError } from '../../platform/errors.js';
import type { AppEnv } from '../http/env.js';
import type { OperationRegistry } from '../registry.js';
import { headerFor, renderPage } from '../web/browser.js';
import { putFlash, takeFlash } from './flash.js';
import { mayCall } from './operation-access.js';
import { consoleCall, type Ctx, message, withMember, withTrustedForm } from './page-helpers.js';
import { ConfirmPage } from './pages/confirm.js';
import { type DeliveryView, WebhookPage, WebhooksPage, type WebhookView } from './pages/webhooks.js';
import type { ConsoleSession } from '../identity/console-sessions.js';

/**
 * The webhooks pages. Every read and write is a public webhooks operation invoked
 * as the signed-in member (origin `console`): the URL policy, the per-workspace cap, the ping's rule
 * (active only) and every error message are the operations' own.
 */
export function webhookRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const call = (c: Ctx, session: ConsoleSession, id: string, input: Record<string, unknown>) =>
    consoleCall(c, registry, session, id, input);

  app.get('/console/webhooks', async (c) =>
    withMember(c, async (session) =>
      listPage(c, registry, session, {
        created: await takeFlash(c.get('services'), session.id, 'webhook_secret'),
        notice: NOTICES[c.req.query('notice') ?? ''],
      }),
    ),
  );

  // POST-redirect-GET: the signing secret waits, sealed, in the session's flash for the next page.
  app.post('/console/webhooks', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const draft = { url: (form.get('url') ?? '').toString().trim(), events: eventsOf(form) };
      const result = await call(c, session, 'webhooks.create', draft);
      if (result instanceof ApiError)
        return listPage(c, registry, session, { error: result.message, status: statusOf(result), draft });
      const created = result as WebhookView & { secret: string };
      await putFlash(c.get('services'), session.id, {
        kind: 'webhook_secret',
        webhook_id: created.id,
        url: created.url,
        secret: created.secret,
      });
      return c.redirect('/console/webhooks', 303);
    }),
  );

  app.get('/console/webhooks/:id', async (c) =>
    withMember(c, (session) =>
      detailPage(c, registry, session, c.req.param('id'), { notice: NOTICES[c.req.query('notice') ?? ''] }),
    ),
  );

  app.post('/console/webhooks/:id/settings', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'webhooks.update', {
        id,
        events: eventsOf(form),
        active: form.get('active') === 'yes',
      });
      if (result instanceof ApiError) return detailOrError(c, registry, session, id, result);
      return c.redirect(`/console/webhooks/${id}?notice=saved`, 303);
    }),
  );

  app.post('/console/webhooks/:id/ping', async (c) =>
    withTrustedForm(c, async (session) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'webhooks.ping', { id });
      if (result instanceof ApiError) return detailOrError(c, registry, session, id, result);
      return c.redirect(`/console/webhooks/${id}?notice=ping_queued`, 303);
    }),
  );

  app.post('/console/webhooks/:id/deliveries/:deliveryId/redeliver', async (c) =>
    withTrustedForm(c, async (session) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'webhooks.redeliver', { id, delivery_id: c.req.param('deliveryId') });
      if (result instanceof ApiError) return detailOrError(c, registry, session, id, result);
      return c.redirect(`/console/webhooks/${id}?notice=redelivery_queued`, 303);
    }),
  );

  app.get('/console/webhooks/:id/delete', async (c) =>
    withMember(c, async (session) => {
      const hook = await call(c, session, 'webhooks.get', { id: c.req.param('id') });
      if (hook instanceof ApiError) return notFound(c, session);
      const view = hook as WebhookView;
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <ConfirmPage
          nonce={nonce}
          session={header}
          active="webhooks"
          title="Delete this webhook?"
          action={`/console/webhooks/${view.id}/delete`}
          confirmLabel="Delete the webhook"
          cancelHref={`/console/webhooks/${view.id}`}
        >
          <p>
            <code>{view.url}</code> stops receiving {view.events.join(', ')} at once; deliveries not yet sent are
            dropped and its delivery history is deleted. This cannot be undone.
          </p>
        </ConfirmPage>
      ));
    }),
  );

  app.post('/console/webhooks/:id/delete', async (c) =>
    withTrustedForm(c, async (session) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'webhooks.delete', { id });
      if (result instanceof ApiError) return detailOrError(c, registry, session, id, result);
      return c.redirect('/console/webhooks?notice=deleted', 303);
    }),
  );

  return app;
}

/**
 * The events a webhook may subscribe to, read from the registration operation's own body schema,
 * so the form offers exactly what the operation accepts and keeps no second list.
 */
function subscribableEvents(registry: OperationRegistry): readonly string[] {
  const events = registry.get('webhooks.create')?.body?.shape.events;
  const element = events instanceof z.ZodArray ? events.element : undefined;
  if (!(element instanceof z.ZodEnum)) throw new Error('webhooks.create no longer takes an events enum');
  return element.options.map(String);
}

const NOTICES: Record<string, string> = {
  saved: 'Saved.',
  ping_queued: 'A webhook.ping event is queued; its delivery appears below once sent (refresh the page).',
  redelivery_queued: 'The event is queued again; the new attempt appears below once sent.',
  deleted: 'The webhook is deleted.',
};

const eventsOf = (form: FormData) => form.getAll('events').filter((v): v is string => typeof v === 'string');
const statusOf = (e: ApiError) => (e.status === 403 ? 403 : e.status === 404 ? 404 : 400);

const notFound = (c: Ctx, session: ConsoleSession) =>
  message(c, 404, 'No such webhook', 'There is no such webhook in this workspace.', session);

function detailOrError(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  id: string,
  error: ApiError,
): Promise<Response> {
  if (error.status === 404) return notFound(c, session);
  return detailPage(c, registry, session, id, { error: error.message, status: statusOf(error) as 400 | 403 });
}

async function listPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  extra: {
    created?: Parameters<typeof WebhooksPage>[0]['created'];
    notice?: string | undefined;
    error?: string;
    status?: 400 | 403 | 404;
    draft?: { url: string; events: string[] };
  },
): Promise<Response> {
  const header = await headerFor(c, session);
  const listed = await consoleCall(c, registry, session, 'webhooks.list', { limit: 200, offset: 0 });
  // A viewer's console caller has no webhooks:read (its role mints no bundle with it): say so, plainly.
  if (listed instanceof ApiError && listed.status === 403)
    return message(c, 403, 'Webhooks', `Webhooks are managed by editors and admins. ${listed.message}`, session);
  if (listed instanceof ApiError) throw listed;
  return renderPage(
    c,
    (nonce) => (
      <WebhooksPage
        nonce={nonce}
        session={header}
        webhooks={(listed as { webhooks: WebhookView[] }).webhooks}
        events={subscribableEvents(registry)}
        canWrite={mayCall(registry, session, 'webhooks.create')}
        created={extra.created}
        notice={extra.notice}
        error={extra.error}
        draft={extra.draft}
      />
    ),
    { status: extra.status ?? 200 },
  );
}

async function detailPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  id: string,
  extra: { notice?: string | undefined; error?: string; status?: 400 | 403 },
): Promise<Response> {
  // Independent reads, so in parallel; the webhook's own answer decides first (another workspace's is 404).
  const [hook, deliveries, header] = await Promise.all([
    consoleCall(c, registry, session, 'webhooks.get', { id }),
    consoleCall(c, registry, session, 'webhooks.deliveries', { id, limit: 50, offset: 0 }),
    headerFor(c, session),
  ]);
  if (hook instanceof ApiError) return notFound(c, session);
  if (deliveries instanceof ApiError) throw deliveries;
  const { deliveries: rows, total } = deliveries as { deliveries: DeliveryView[]; total: number };
  return renderPage(
    c,
    (nonce) => (
      <WebhookPage
        nonce={nonce}
        session={header}
        hook={hook as WebhookView}
        events={subscribableEvents(registry)}
        deliveries={rows}
        deliveriesTotal={total}
        canWrite={mayCall(registry, session, 'webhooks.update')}
        notice={extra.notice}
        error={extra.error}
      />
    ),
    { status: extra.status ?? 200 },
  );
}
