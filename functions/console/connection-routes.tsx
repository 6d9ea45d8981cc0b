import { Hono } from 'hono';
import { ApiError } from '../../platform/errors.js';
import type { AppEnv } from '../http/env.js';
import type { OperationRegistry } from '../registry.js';
import { formValue, headerFor, renderPage } from '../web/browser.js';
import { putFlash, takeFlash } from './flash.js';
import { consoleCall, type Ctx, message, withMember, withTrustedForm } from './page-helpers.js';
import { mayCall } from './operation-access.js';
import { ConfirmPage } from './pages/confirm.js';
import { ConnectionPage, type ConnectionSummary, type SyncRun } from './pages/connection.js';
import { type CatalogEntry, type ConnectionView, connectionName, ConnectionsPage } from './pages/connections.js';
import type { ConsoleSession } from '../identity/console-sessions.js';

/**
 * The connections pages. Every read and write is a public connections operation
 * invoked as the signed-in member with origin `console`, which is what lets lifecycle writes through
 * (they refuse API keys): the rules, limits and errors are the operations' own.
 */
export function connectionRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const call = (c: Ctx, session: ConsoleSession, id: string, input: Record<string, unknown>) =>
    consoleCall(c, registry, session, id, input);

  app.get('/console/connections', async (c) =>
    withMember(c, async (session) =>
      listPage(c, registry, session, {
        ingest: await takeFlash(c.get('services'), session.id, 'ingest_secret'),
        ...oauthOutcome(c.req.query('connection_result'), c.req.query('reason')),
        notice: NOTICES[c.req.query('notice') ?? ''] ?? oauthOutcome(c.req.query('connection_result')).notice,
      }),
    ),
  );

  app.post('/console/connections', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const type = formValue(form, 'connector_type') ?? '';
      const input: Record<string, unknown> = { connector_type: type, ...credentialInput(form) };
      const displayName = formValue(form, 'display_name')?.trim();
      if (displayName) input.display_name = displayName;
      if (formValue(form, 'keep_every_call') === 'yes') input.call_filters = { enabled: false };
      const result = await call(c, session, 'connections.connect', input);
      if (result instanceof ApiError)
        return listPage(c, registry, session, {
          error: result.message,
          errorFor: type,
          status: result.status === 403 ? 403 : 400,
        });
      return afterConnect(c, session, result as ConnectResult);
    }),
  );

  app.get('/console/connections/:id', async (c) =>
    withMember(c, (session) =>
      detailPage(c, registry, session, c.req.param('id'), { notice: NOTICES[c.req.query('notice') ?? ''] }),
    ),
  );

  app.get('/console/connections/:id/disconnect', async (c) =>
    withMember(c, async (session) => {
      const connection = await call(c, session, 'connections.get', { id: c.req.param('id') });
      if (connection instanceof ApiError) return notFound(c, session);
      const view = connection as ConnectionView;
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <ConfirmPage
          nonce={nonce}
          session={header}
          active="connections"
          title={`Disconnect ${connectionName(view)}?`}
          action={`/console/connections/${view.id}/disconnect`}
          confirmLabel="Disconnect"
          cancelHref={`/console/connections/${view.id}`}
        >
          <p>
            Syncs stop at once (one under way stops at its next page) and the stored credentials are deleted. What it
            already brought in stays searchable. Reconnecting later restores this same connection.
          </p>
        </ConfirmPage>
      ));
    }),
  );

  app.post('/console/connections/:id/disconnect', async (c) =>
    withTrustedForm(c, async (session) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'connections.disconnect', { id });
      if (result instanceof ApiError) return detailOrError(c, registry, session, id, result);
      return c.redirect(`/console/connections/${id}?notice=disconnected`, 303);
    }),
  );

  app.post('/console/connections/:id/reconnect', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'connections.reconnect', { id, ...credentialInput(form) });
      if (result instanceof ApiError) return detailOrError(c, registry, session, id, result);
      return afterConnect(c, session, result as ConnectResult);
    }),
  );

  app.post('/console/connections/:id/call-filters', async (c) =>
    withTrustedForm(c, async (session, form) =>
      saveConfig(c, registry, session, 'connections.set_call_filters', {
        enabled: formValue(form, 'enabled') === 'yes',
        external_only: formValue(form, 'external_only') === 'yes',
        reps: lines(formValue(form, 'reps')),
        exclude_participants: lines(formValue(form, 'exclude_participants')),
        exclude_domains: lines(formValue(form, 'exclude_domains')),
      }),
    ),
  );

  app.post('/console/connections/:id/crm-recency', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const value = formValue(form, 'window') ?? '';
      return saveConfig(c, registry, session, 'connections.set_crm_recency', {
        window: value === 'all' ? 'all' : Number(value),
      });
    }),
  );

  app.post('/console/connections/:id/comms-filter', async (c) =>
    withTrustedForm(c, async (session, form) =>
      saveConfig(c, registry, session, 'connections.set_comms_filter', {
        external_only: formValue(form, 'external_only') === 'yes',
        exclude_participants: lines(formValue(form, 'exclude_participants')),
        exclude_domains: lines(formValue(form, 'exclude_domains')),
      }),
    ),
  );

  return app;
}

interface ConnectResult {
  mode: 'connected' | 'oauth_redirect' | 'already_connected';
  connection: ConnectionView | null;
  authorize_url: string | null;
  ingest: { url: string; secret: string } | null;
}

const NOTICES: Record<string, string> = {
  connected: 'Connected. The first sync has started; its progress shows below.',
  connected_paused: 'Connected. It stays paused until a call filter decision is saved below.',
  already_connected: 'This source was already connected; nothing changed.',
  disconnected: 'Disconnected. Syncs stopped and the credentials were deleted; the synced data stays.',
  reconnected: 'Reconnected. A sync has started.',
  settings_saved: 'Saved. It applies to what is synced from now on.',
};

/** The OAuth callback's outcome (connections/oauth-flow.ts), in words. */
function oauthOutcome(result: string | undefined, reason?: string): { notice?: string; error?: string } {
  if (result === 'connected') return { notice: 'Connected with the provider. The first sync has started.' };
  if (result === 'denied')
    return { error: `The provider did not grant access${reason ? ` (${reason})` : ''}. Nothing was connected.` };
  if (result === 'error')
    return { error: `The provider's answer could not be used${reason ? ` (${reason})` : ''}. Try connecting again.` };
  return {};
}

/** The credential fields a form may carry; anything else is not passed on (the operation is strict). */
function credentialInput(form: FormData): Record<string, string> {
  const input: Record<string, string> = {};
  for (const key of ['api_key', 'api_id', 'account_handle']) {
    const value = formValue(form, key)?.trim();
    if (value) input[key] = value;
  }
  return input;
}

const lines = (value: string | undefined) =>
  (value ?? '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** Where a connect or reconnect goes next: the provider's consent, or our page (a webhook source's secret as a flash). */
async function afterConnect(c: Ctx, session: ConsoleSession, result: ConnectResult): Promise<Response> {
  if (result.mode === 'oauth_redirect' && result.authorize_url) return c.redirect(result.authorize_url, 303);
  const connection = result.connection;
  if (!connection) return c.redirect('/console/connections', 303);
  if (result.ingest) {
    await putFlash(c.get('services'), session.id, {
      kind: 'ingest_secret',
      connection_id: connection.id,
      name: connectionName(connection),
      url: result.ingest.url,
      secret: result.ingest.secret,
    });
    return c.redirect('/console/connections', 303);
  }
  const notice =
    result.mode === 'already_connected'
      ? 'already_connected'
      : connection.paused_reason
        ? 'connected_paused'
        : 'connected';
  return c.redirect(`/console/connections/${connection.id}?notice=${notice}`, 303);
}

async function saveConfig(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  operationId: string,
  body: Record<string, unknown>,
): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const result = await consoleCall(c, registry, session, operationId, { id, ...body });
  if (result instanceof ApiError) return detailOrError(c, registry, session, id, result);
  return c.redirect(`/console/connections/${id}?notice=settings_saved`, 303);
}

const notFound = (c: Ctx, session: ConsoleSession) =>
  message(c, 404, 'No such connection', 'There is no such connection in this workspace.', session);

/** A refused write re-renders the connection's page with the operation's own message (nothing changed). */
function detailOrError(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  id: string,
  error: ApiError,
): Promise<Response> {
  if (error.status === 404) return notFound(c, session);
  return detailPage(c, registry, session, id, { error: error.message, status: error.status === 403 ? 403 : 400 });
}

async function listPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  extra: {
    ingest?: Parameters<typeof ConnectionsPage>[0]['ingest'];
    notice?: string | undefined;
    error?: string | undefined;
    errorFor?: string;
    status?: 400 | 403;
  },
): Promise<Response> {
  const [listed, catalog] = await Promise.all([
    consoleCall(c, registry, session, 'connections.list', { limit: 100, offset: 0 }),
    consoleCall(c, registry, session, 'connections.catalog', {}),
  ]);
  if (listed instanceof ApiError) throw listed;
  if (catalog instanceof ApiError) throw catalog;
  const header = await headerFor(c, session);
  return renderPage(
    c,
    (nonce) => (
      <ConnectionsPage
        nonce={nonce}
        session={header}
        connections={(listed as { connections: ConnectionView[] }).connections}
        catalog={(catalog as { connectors: CatalogEntry[] }).connectors}
        canConnect={mayCall(registry, session, 'connections.connect')}
        ingest={extra.ingest}
        notice={extra.notice}
        error={extra.error}
        errorFor={extra.errorFor}
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
  const connection = await consoleCall(c, registry, session, 'connections.get', { id });
  if (connection instanceof ApiError) return notFound(c, session);
  const view = connection as ConnectionView;
  const [runs, summary, catalog] = await Promise.all([
    consoleCall(c, registry, session, 'connections.runs', { id, limit: 20, offset: 0 }),
    consoleCall(c, registry, session, 'connections.summary', { id }),
    consoleCall(c, registry, session, 'connections.catalog', {}),
  ]);
  for (const r of [runs, summary, catalog]) if (r instanceof ApiError) throw r;
  const entry = (catalog as { connectors: CatalogEntry[] }).connectors.find((e) => e.type === view.connector.type);
  if (!entry) throw new Error(`connection ${id} of a type the catalog no longer lists`);
  const { runs: runRows, total } = runs as { runs: SyncRun[]; total: number };
  const header = await headerFor(c, session);
  return renderPage(
    c,
    (nonce) => (
      <ConnectionPage
        nonce={nonce}
        session={header}
        connection={view}
        entry={entry}
        runs={runRows}
        runsTotal={total}
        summary={summary as ConnectionSummary}
        canEdit={mayCall(registry, session, 'connections.update')}
        canDisconnect={mayCall(registry, session, 'connections.disconnect')}
        isAdmin={mayCall(registry, session, 'connections.set_call_filters')}
        notice={extra.notice}
        error={extra.error}
      />
    ),
    { status: extra.status ?? 200 },
  );
}
