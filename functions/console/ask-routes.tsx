import { Hono } from 'hono';
import { ApiError, isApiError } from '../../platform/errors.js';
import type { ChatRunView } from '../chat/index.js';
import type { AppEnv } from '../http/env.js';
import { streamRunEvents } from '../http/run-stream.js';
import type { ConsoleSession } from '../identity/console-sessions.js';
import { runOperation } from '../invoke.js';
import type { OperationRegistry } from '../registry.js';
import { currentSession, formValue, headerFor, renderPage } from '../web/browser.js';
import { consoleCall, consoleScope, type Ctx, message, withMember, withTrustedForm } from './page-helpers.js';
import { AskPage, type ChatSummary } from './pages/ask.js';
import { InteractionPage } from './pages/interaction.js';
import type { InteractionView } from './interaction-operations.js';
import { ResearchPage, type ResearchView } from './pages/research.js';
import { type ChatView, ThreadPage } from './pages/thread.js';

/**
 * The Ask pages: a member asks the workspace a question or starts a research
 * job, watches it work and reads the answer. Every step is the public operation a REST client
 * calls (chat.start, chats.get, chat.run_status, agents.resume, research.*), invoked as the member
 * with origin `console`; the live view is the run's own event stream (functions/http/run-stream.ts)
 * behind the console's cookie instead of a key.
 */
export function askRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const call = (c: Ctx, session: ConsoleSession, id: string, input: Record<string, unknown>) =>
    consoleCall(c, registry, session, id, input);

  app.get('/console/ask', async (c) =>
    withMember(c, (session) => askPage(c, registry, session, { mine: c.req.query('threads') !== 'all' })),
  );

  // One form asks a question (a chat run, new thread or continued) or starts a research job;
  // POST-redirect-GET to the page that shows it working, then answered.
  app.post('/console/ask', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const input = formValue(form, 'input') ?? '';
      const chatId = formValue(form, 'chat_id') || undefined;
      const mayAsk = formValue(form, 'may_ask') === 'yes';
      if (formValue(form, 'kind') === 'research' && !chatId) {
        const started = await call(c, session, 'research.start', { question: input, allow_questions: mayAsk });
        if (started instanceof ApiError)
          return askPage(c, registry, session, { mine: true, error: started.message, question: input }, started);
        return c.redirect(`/console/research/${(started as { research_id: string }).research_id}`, 303);
      }
      const started = await call(c, session, 'chat.start', {
        input,
        on_question: mayAsk ? 'pause' : 'auto',
        ...(chatId ? { chat_id: chatId } : {}),
      });
      if (started instanceof ApiError) {
        if (chatId)
          return threadPage(c, registry, session, chatId, { error: started.message, question: input }, started);
        return askPage(c, registry, session, { mine: true, error: started.message, question: input }, started);
      }
      return c.redirect(`/console/ask/threads/${(started as { chat_id: string }).chat_id}`, 303);
    }),
  );

  app.get('/console/ask/threads/:id', async (c) =>
    withMember(c, (session) =>
      threadPage(c, registry, session, c.req.param('id'), { notice: NOTICES[c.req.query('notice') ?? ''] }),
    ),
  );

  app.post('/console/ask/runs/:id/resume', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const run = await call(c, session, 'chat.run_status', { run_id: c.req.param('id') });
      if (run instanceof ApiError) return notFound(c, session, 'run');
      const { chat_id: chatId, run_id: runId } = run as ChatRunView;
      const resumed = await call(c, session, 'agents.resume', { session_id: runId, input: chatReply(form) });
      if (resumed instanceof ApiError)
        return threadPage(c, registry, session, chatId, { error: resumed.message }, resumed);
      return c.redirect(`/console/ask/threads/${chatId}?notice=resumed`, 303);
    }),
  );

  app.post('/console/ask/runs/:id/cancel', async (c) =>
    withTrustedForm(c, async (session) => {
      const run = await call(c, session, 'chat.run_status', { run_id: c.req.param('id') });
      if (run instanceof ApiError) return notFound(c, session, 'run');
      const { chat_id: chatId, run_id: runId } = run as ChatRunView;
      const canceled = await call(c, session, 'agents.cancel', { session_id: runId });
      if (canceled instanceof ApiError)
        return threadPage(c, registry, session, chatId, { error: canceled.message }, canceled);
      return c.redirect(`/console/ask/threads/${chatId}?notice=canceled`, 303);
    }),
  );

  app.get('/console/ask/runs/:id/events', (c) =>
    followRun(c, registry, 'chat.run_stream', { run_id: c.req.param('id') }),
  );

  app.get('/console/research/:id', async (c) =>
    withMember(c, (session) =>
      researchPage(c, registry, session, c.req.param('id'), { notice: NOTICES[c.req.query('notice') ?? ''] }),
    ),
  );

  app.post('/console/research/:id/respond', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const id = c.req.param('id');
      const answered = await call(c, session, 'research.respond', { id, ...researchReply(form) });
      if (answered instanceof ApiError)
        return researchPage(c, registry, session, id, { error: answered.message }, answered);
      return c.redirect(`/console/research/${id}?notice=resumed`, 303);
    }),
  );

  app.post('/console/research/:id/cancel', async (c) =>
    withTrustedForm(c, async (session) => {
      const id = c.req.param('id');
      const canceled = await call(c, session, 'research.cancel', { id });
      if (canceled instanceof ApiError)
        return researchPage(c, registry, session, id, { error: canceled.message }, canceled);
      return c.redirect(`/console/research/${id}?notice=canceled`, 303);
    }),
  );

  app.get('/console/research/:id/events', (c) => followRun(c, registry, 'research.status', { id: c.req.param('id') }));

  app.get('/console/interactions/:id', async (c) =>
    withMember(c, async (session) => {
      const found = await call(c, session, 'console.interactions.get', { id: c.req.param('id') });
      if (found instanceof ApiError) {
        if (found.status === 403) return message(c, 403, 'No access', found.message, session);
        return notFound(c, session, 'interaction');
      }
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <InteractionPage nonce={nonce} session={header} interaction={found as InteractionView} />
      ));
    }),
  );

  return app;
}

const NOTICES: Record<string, string> = {
  resumed: 'Thanks: it carries on from where it paused.',
  canceled: 'Stopped. What it found so far is not kept as an answer.',
};

const WHAT: Record<'thread' | 'run' | 'research' | 'interaction', [string, string]> = {
  thread: ['No such thread', 'There is no such thread in this workspace.'],
  run: ['No such run', 'There is no such run in this workspace.'],
  research: ['No such research job', 'There is no such research job in this workspace.'],
  interaction: [
    'No such interaction',
    'There is no such interaction in this workspace (or it is excluded from search).',
  ],
};
const notFound = (c: Ctx, session: ConsoleSession, what: keyof typeof WHAT) =>
  message(c, 404, WHAT[what][0], WHAT[what][1], session);

/** The page status an operation's refusal is shown with. */
function statusOf(error: ApiError | undefined): 400 | 403 | 404 | 409 | 429 {
  if (!error) return 400;
  if (error.status === 403 || error.status === 404 || error.status === 409 || error.status === 429) return error.status;
  return 400;
}

/** A paused chat run's reply, from its form (pages/pause-forms.tsx), in the shape its pending_input_schema accepts. */
function chatReply(form: FormData): Record<string, unknown> {
  const kind = formValue(form, 'reply');
  if (kind === 'approval') {
    if (formValue(form, 'decision') === 'approve') return { approved: true };
    return { approved: false, feedback: formValue(form, 'feedback') ?? '' };
  }
  if (kind === 'continue_or_finish') {
    if (formValue(form, 'action') === 'finish') return { action: 'finish' };
    return { action: 'continue', additional_turns: Number(formValue(form, 'additional_turns') ?? '10') };
  }
  const response = formValue(form, 'response')?.trim();
  const optionId = formValue(form, 'option_id');
  // Words written in are the answer, whichever choice was left selected.
  if (response) return optionId ? { option_id: 'other', response } : { response };
  return optionId ? { option_id: optionId } : { response: '' };
}

/** A research job's reply (research.respond: a choice by id, or a write-in as the answer). */
function researchReply(form: FormData): { answer: string; option_id?: string } {
  const response = formValue(form, 'response')?.trim();
  const optionId = formValue(form, 'option_id');
  if (response) return optionId ? { answer: response, option_id: 'other' } : { answer: response };
  return optionId ? { answer: optionId, option_id: optionId } : { answer: '' };
}

/**
 * A run's events for the page's script: the stream operation the REST client uses (tenant-checked
 * there: another workspace's run is 404), served by the same SSE writer, authenticated by the
 * console session. Answers are plain text: an EventSource gives up on a non-200 instead of retrying.
 */
async function followRun(
  c: Ctx,
  registry: OperationRegistry,
  operationId: 'chat.run_stream' | 'research.status',
  params: Record<string, string>,
): Promise<Response> {
  const session = await currentSession(c);
  if (!session?.current) return c.text('Sign in to the console to follow this run.', 401);
  const op = registry.get(operationId);
  if (!op) throw new Error(`${operationId} is not registered`);
  const after = c.req.header('last-event-id') ?? c.req.query('after');
  try {
    const outcome = await runOperation(
      op,
      consoleScope(c, registry, session),
      async () => ({ params, query: after === undefined ? {} : { after } }),
      'stream',
    );
    if (!outcome.stream) throw new Error(`${operationId} did not resolve a stream`);
    return streamRunEvents(c, outcome.stream);
  } catch (error) {
    if (isApiError(error)) return c.text(error.message, error.status === 400 ? 404 : (error.status as 403 | 404 | 429));
    throw error;
  }
}

async function askPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  extra: { mine: boolean; error?: string; question?: string },
  refusal?: ApiError,
): Promise<Response> {
  const listed = await consoleCall(c, registry, session, 'chats.list', {
    limit: 50,
    offset: 0,
    ...(extra.mine ? { created_by: 'me' } : {}),
  });
  if (listed instanceof ApiError) {
    if (listed.status === 403) return message(c, 403, 'No access', listed.message, session);
    throw listed;
  }
  const { chats, total } = listed as { chats: ChatSummary[]; total: number };
  const header = await headerFor(c, session);
  return renderPage(
    c,
    (nonce) => (
      <AskPage
        nonce={nonce}
        session={header}
        threads={chats}
        total={total}
        mine={extra.mine}
        error={extra.error}
        question={extra.question}
      />
    ),
    { status: extra.error ? statusOf(refusal) : 200, connectsToSelf: true },
  );
}

async function threadPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  chatId: string,
  extra: { notice?: string | undefined; error?: string; question?: string },
  refusal?: ApiError,
): Promise<Response> {
  const chat = await consoleCall(c, registry, session, 'chats.get', { chat_id: chatId });
  if (chat instanceof ApiError) {
    if (chat.status === 403) return message(c, 403, 'No access', chat.message, session);
    return notFound(c, session, 'thread');
  }
  const view = chat as ChatView;
  const latest = view.last_run_id
    ? await consoleCall(c, registry, session, 'chat.run_status', { run_id: view.last_run_id })
    : null;
  if (latest instanceof ApiError) throw latest;
  const header = await headerFor(c, session);
  return renderPage(
    c,
    (nonce) => (
      <ThreadPage
        nonce={nonce}
        session={header}
        chat={view}
        latest={latest as ChatRunView | null}
        notice={extra.notice}
        error={extra.error}
        question={extra.question}
      />
    ),
    { status: extra.error ? statusOf(refusal) : 200, connectsToSelf: true },
  );
}

async function researchPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  id: string,
  extra: { notice?: string | undefined; error?: string },
  refusal?: ApiError,
): Promise<Response> {
  const job = await consoleCall(c, registry, session, 'research.status', { id });
  if (job instanceof ApiError) {
    if (job.status === 403) return message(c, 403, 'No access', job.message, session);
    return notFound(c, session, 'research');
  }
  // The run read of the same id gives the seq the page was rendered at (the live script's start).
  const run = await consoleCall(c, registry, session, 'chat.run_status', { run_id: (job as ResearchView).research_id });
  if (run instanceof ApiError) throw run;
  const header = await headerFor(c, session);
  return renderPage(
    c,
    (nonce) => (
      <ResearchPage
        nonce={nonce}
        session={header}
        job={job as ResearchView}
        lastSeq={(run as ChatRunView).last_seq}
        notice={extra.notice}
        error={extra.error}
      />
    ),
    { status: extra.error ? statusOf(refusal) : 200, connectsToSelf: true },
  );
}
