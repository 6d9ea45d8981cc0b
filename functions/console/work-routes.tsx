import { Hono } from 'hono';
import { ApiError } from '../../platform/errors.js';
import type { AppEnv } from '../http/env.js';
import type { OperationRegistry } from '../registry.js';
import { formValue, headerFor, renderPage } from '../web/browser.js';
import { mayCall } from './operation-access.js';
import { consoleCall, type Ctx, message, withMember, withTrustedForm } from './page-helpers.js';
import { AgentPage, AgentsPage, type AgentView } from './pages/agents.js';
import { DocumentPage, DocumentsPage, type DocumentView, type VersionView } from './pages/documents.js';
import { ConfirmPage } from './pages/confirm.js';
import { RoutinePage, RoutinesPage, type RoutineView } from './pages/routines.js';
import type { ConsoleSession } from '../identity/console-sessions.js';

/**
 * Agents, routines and documents: list and read, create and edit agents and
 * routines, run a routine now, read a document's versions and publish or reject a proposed one.
 * Every read and write is the public operation invoked as the member; its checks and messages are its own.
 */
export function workRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const call = (c: Ctx, session: ConsoleSession, id: string, input: Record<string, unknown>) =>
    consoleCall(c, registry, session, id, input);
  const notice = (c: Ctx) => NOTICES[c.req.query('notice') ?? ''];

  // ---- agents ----
  const agentsPage = async (c: Ctx, session: ConsoleSession, extra: Extra = {}) => {
    const listed = await call(c, session, 'agents.list', {});
    if (listed instanceof ApiError) return refused(c, session, listed);
    const header = await headerFor(c, session);
    return renderPage(
      c,
      (nonce) => (
        <AgentsPage
          nonce={nonce}
          session={header}
          agents={(listed as { agents: AgentView[] }).agents}
          canWrite={mayCall(registry, session, 'agents.create')}
          notice={extra.notice}
          error={extra.error}
          draft={extra.draft}
        />
      ),
      { status: extra.status ?? 200 },
    );
  };
  const agentPage = async (c: Ctx, session: ConsoleSession, id: string, extra: Extra = {}) => {
    const agent = await call(c, session, 'agents.get', { id });
    if (agent instanceof ApiError)
      return agent.status === 404 ? notFound(c, session, 'agent') : refused(c, session, agent);
    const header = await headerFor(c, session);
    return renderPage(
      c,
      (nonce) => (
        <AgentPage
          nonce={nonce}
          session={header}
          agent={agent as AgentView}
          canWrite={mayCall(registry, session, 'agents.update')}
          notice={extra.notice}
          error={extra.error}
        />
      ),
      { status: extra.status ?? 200 },
    );
  };

  app.get('/console/agents', (c) => withMember(c, (session) => agentsPage(c, session, { notice: notice(c) })));
  app.post('/console/agents', (c) =>
    withTrustedForm(c, async (session, form) => {
      const draft = fieldsOf(form, ['name', 'description', 'prompt', 'tool_blocklist']);
      const result = await call(c, session, 'agents.create', agentInput(draft));
      if (result instanceof ApiError)
        return agentsPage(c, session, { error: result.message, status: statusOf(result), draft });
      return c.redirect(`/console/agents/${(result as { agent: AgentView }).agent.id}?notice=agent_created`, 303);
    }),
  );
  app.get('/console/agents/:id', (c) =>
    withMember(c, (session) => agentPage(c, session, c.req.param('id'), { notice: notice(c) })),
  );
  app.post('/console/agents/:id', (c) =>
    withTrustedForm(c, async (session, form) => {
      const id = c.req.param('id');
      const draft = fieldsOf(form, ['name', 'description', 'prompt', 'tool_blocklist']);
      const input = agentInput(draft);
      const result = await call(c, session, 'agents.update', {
        id,
        ...input,
        description: input.description ?? null,
      });
      if (result instanceof ApiError)
        return agentPage(c, session, id, { error: result.message, status: statusOf(result) });
      return c.redirect(`/console/agents/${id}?notice=saved`, 303);
    }),
  );

  // ---- routines ----
  const routinesPage = async (c: Ctx, session: ConsoleSession, extra: Extra = {}) => {
    const listed = await call(c, session, 'routines.list', { limit: 200, offset: 0 });
    if (listed instanceof ApiError) return refused(c, session, listed);
    const header = await headerFor(c, session);
    return renderPage(
      c,
      (nonce) => (
        <RoutinesPage
          nonce={nonce}
          session={header}
          routines={(listed as { routines: RoutineView[] }).routines}
          canWrite={mayCall(registry, session, 'routines.create')}
          notice={extra.notice}
          error={extra.error}
          draft={extra.draft}
        />
      ),
      { status: extra.status ?? 200 },
    );
  };
  const routinePage = async (c: Ctx, session: ConsoleSession, id: string, extra: Extra = {}) => {
    const routine = await call(c, session, 'routines.get', { id });
    if (routine instanceof ApiError)
      return routine.status === 404 ? notFound(c, session, 'routine') : refused(c, session, routine);
    const header = await headerFor(c, session);
    return renderPage(
      c,
      (nonce) => (
        <RoutinePage
          nonce={nonce}
          session={header}
          routine={routine as RoutineView}
          canWrite={mayCall(registry, session, 'routines.update')}
          canDelete={mayCall(registry, session, 'routines.delete')}
          notice={extra.notice}
          error={extra.error}
          draft={extra.draft}
        />
      ),
      { status: extra.status ?? 200 },
    );
  };

  app.get('/console/routines', (c) => withMember(c, (session) => routinesPage(c, session, { notice: notice(c) })));
  app.post('/console/routines', (c) =>
    withTrustedForm(c, async (session, form) => {
      const draft = routineDraft(form);
      const result = await call(c, session, 'routines.create', routineInput(draft));
      if (result instanceof ApiError)
        return routinesPage(c, session, { error: result.message, status: statusOf(result), draft });
      return c.redirect(`/console/routines/${(result as RoutineView).id}?notice=routine_created`, 303);
    }),
  );
  app.get('/console/routines/:id', (c) =>
    withMember(c, (session) => routinePage(c, session, c.req.param('id'), { notice: notice(c) })),
  );
  app.post('/console/routines/:id', (c) =>
    withTrustedForm(c, async (session, form) => {
      const id = c.req.param('id');
      const draft = routineDraft(form);
      const input = routineInput(draft);
      const result = await call(c, session, 'routines.update', { id, ...input, agent: input.agent ?? null });
      if (result instanceof ApiError)
        return routinePage(c, session, id, { error: result.message, status: statusOf(result), draft });
      return c.redirect(`/console/routines/${id}?notice=saved`, 303);
    }),
  );
  app.post('/console/routines/:id/run', (c) =>
    withTrustedForm(c, async (session) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'routines.run_now', { id });
      if (result instanceof ApiError)
        return routinePage(c, session, id, { error: result.message, status: statusOf(result) });
      return c.redirect(`/console/routines/${id}?notice=fired`, 303);
    }),
  );
  app.get('/console/routines/:id/delete', (c) =>
    withMember(c, async (session) => {
      const routine = await call(c, session, 'routines.get', { id: c.req.param('id') });
      if (routine instanceof ApiError)
        return routine.status === 404 ? notFound(c, session, 'routine') : refused(c, session, routine);
      const view = routine as RoutineView;
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <ConfirmPage
          nonce={nonce}
          session={header}
          active="agents"
          title={`Delete the routine \u201c${view.name}\u201d?`}
          action={`/console/routines/${view.id}/delete`}
          confirmLabel="Delete the routine"
          cancelHref={`/console/routines/${view.id}`}
        >
          <p>
            It stops firing at once (<code>{view.cron}</code>, {view.timezone}). The chats and documents its earlier
            fires wrote stay. This cannot be undone.
          </p>
        </ConfirmPage>
      ));
    }),
  );
  app.post('/console/routines/:id/delete', (c) =>
    withTrustedForm(c, async (session) => {
      const id = c.req.param('id');
      const result = await call(c, session, 'routines.delete', { id });
      if (result instanceof ApiError)
        return result.status === 404
          ? notFound(c, session, 'routine')
          : routinePage(c, session, id, { error: result.message, status: statusOf(result) });
      return c.redirect('/console/routines?notice=routine_deleted', 303);
    }),
  );

  // ---- documents ----
  app.get('/console/documents', (c) =>
    withMember(c, async (session) => {
      const listed = await call(c, session, 'artifacts.list', { limit: 200, offset: 0 });
      if (listed instanceof ApiError) return refused(c, session, listed);
      const { artifacts, total } = listed as { artifacts: DocumentView[]; total: number };
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <DocumentsPage nonce={nonce} session={header} documents={artifacts} total={total} notice={notice(c)} />
      ));
    }),
  );
  const documentPage = async (c: Ctx, session: ConsoleSession, id: string, extra: Extra = {}) => {
    const read = await call(c, session, 'artifacts.versions', { id });
    if (read instanceof ApiError)
      return read.status === 404 ? notFound(c, session, 'document') : refused(c, session, read);
    const { artifact, versions } = read as { artifact: DocumentView; versions: VersionView[] };
    const header = await headerFor(c, session);
    return renderPage(
      c,
      (nonce) => (
        <DocumentPage
          nonce={nonce}
          session={header}
          document={artifact}
          versions={versions}
          canDecide={mayCall(registry, session, 'artifacts.promote')}
          notice={extra.notice}
          error={extra.error}
        />
      ),
      { status: extra.status ?? 200 },
    );
  };
  app.get('/console/documents/:id', (c) =>
    withMember(c, (session) => documentPage(c, session, c.req.param('id'), { notice: notice(c) })),
  );
  for (const decision of ['promote', 'reject'] as const)
    app.post(`/console/documents/:id/versions/:version/${decision}`, (c) =>
      withTrustedForm(c, async (session) => {
        const id = c.req.param('id');
        const result = await call(c, session, `artifacts.${decision}`, { id, version: Number(c.req.param('version')) });
        if (result instanceof ApiError)
          return documentPage(c, session, id, { error: result.message, status: statusOf(result) });
        return c.redirect(`/console/documents/${id}?notice=${decision === 'promote' ? 'published' : 'rejected'}`, 303);
      }),
    );

  return app;
}

interface Extra {
  notice?: string | undefined;
  error?: string;
  status?: 400 | 403 | 404;
  draft?: Record<string, string>;
}

const NOTICES: Record<string, string> = {
  agent_created: 'Agent created.',
  routine_created: 'Routine created. It fires on its schedule while enabled.',
  saved: 'Saved.',
  fired: 'The routine is running now; its run shows under Last fire.',
  routine_deleted: 'The routine is deleted; it will not fire again.',
  published: 'Version published: readers see it now.',
  rejected: 'Version rejected.',
};

const statusOf = (e: ApiError) => (e.status === 403 ? 403 : e.status === 404 ? 404 : 400);

const notFound = (c: Ctx, session: ConsoleSession, what: string) =>
  message(c, 404, `No such ${what}`, `There is no such ${what} in this workspace.`, session);

const refused = (c: Ctx, session: ConsoleSession, e: ApiError) =>
  e.status === 403 ? message(c, 403, 'Not allowed', e.message, session) : Promise.reject(e);

const fieldsOf = (form: FormData, keys: string[]) => Object.fromEntries(keys.map((k) => [k, formValue(form, k) ?? '']));

const lines = (value: string | undefined) =>
  (value ?? '')
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);

function agentInput(draft: Record<string, string>) {
  const description = draft.description?.trim();
  return {
    name: draft.name ?? '',
    prompt: draft.prompt ?? '',
    tool_blocklist: lines(draft.tool_blocklist),
    ...(description ? { description } : {}),
  } as { name: string; prompt: string; tool_blocklist: string[]; description?: string };
}

function routineDraft(form: FormData): Record<string, string> {
  return {
    ...fieldsOf(form, ['name', 'prompt', 'cron', 'timezone', 'agent']),
    enabled: formValue(form, 'enabled') ?? 'no',
  };
}

function routineInput(draft: Record<string, string>) {
  const agent = draft.agent?.trim();
  return {
    name: draft.name ?? '',
    prompt: draft.prompt ?? '',
    cron: draft.cron?.trim() ?? '',
    timezone: draft.timezone?.trim() || 'UTC',
    enabled: draft.enabled === 'yes',
    ...(agent ? { agent } : {}),
  } as { name: string; prompt: string; cron: string; timezone: string; enabled: boolean; agent?: string };
}
