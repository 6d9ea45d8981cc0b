import type { Context } from 'hono';
import { isApiError } from '../../platform/errors.js';
import type { AppEnv } from '../http/env.js';
import { invokeOperation, type InvocationScope } from '../invoke.js';
import type { OperationRegistry } from '../registry.js';
import { currentSession, headerFor, postIsTrusted, renderPage } from '../web/browser.js';
import { consoleCaller } from './console-caller.js';
import { MessagePage } from '../web/layout.js';
import type { ConsoleSession } from '../identity/console-sessions.js';

/** What every signed-in console page does the same way: who is asking, calling operations as them, errors. */
export type Ctx = Context<AppEnv>;

/** A page that needs a signed-in member with a workspace; otherwise sign-in, or an honest "no access". */
export async function withMember(c: Ctx, handle: (session: ConsoleSession) => Promise<Response>): Promise<Response> {
  const session = await currentSession(c);
  if (!session) {
    const url = new URL(c.req.url);
    return c.redirect(
      `/console/sign-in?return_to=${encodeURIComponent(c.req.method === 'GET' ? `${url.pathname}${url.search}` : '/console')}`,
      c.req.method === 'GET' ? 302 : 303,
    );
  }
  if (!session.current)
    return message(c, 403, 'No workspace', 'You are no longer a member of any workspace of this service.', session);
  return handle(session);
}

export async function message(
  c: Ctx,
  status: 400 | 403 | 404 | 415 | 503,
  title: string,
  text: string,
  session?: ConsoleSession,
): Promise<Response> {
  const header = session ? await headerFor(c, session) : undefined;
  return renderPage(
    c,
    (nonce) => (
      <MessagePage
        nonce={nonce}
        title={title}
        message={text}
        session={header}
        link={{ href: '/console', text: 'Back to the console' }}
      />
    ),
    { status },
  );
}

/** How a console page calls operations: as the signed-in member in their current workspace, origin `console`. */
export function consoleScope(c: Ctx, registry: OperationRegistry, session: ConsoleSession): InvocationScope {
  return {
    registry,
    services: c.get('services'),
    caller: consoleCaller(session, session.current as NonNullable<ConsoleSession['current']>),
    correlationId: c.get('correlationId'),
    signal: c.req.raw.signal,
    origin: 'console',
  };
}

/** Call a console operation as the member; an ApiError comes back as a value for the page to show. */
export async function consoleCall(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  operationId: string,
  input: Record<string, unknown>,
): Promise<unknown> {
  try {
    return await invokeOperation(consoleScope(c, registry, session), operationId, input);
  } catch (e) {
    if (isApiError(e)) return e;
    throw e;
  }
}

/**
 * A signed-in member's state-changing form: same-origin and CSRF-checked (browser.ts) before
 * `handle` sees the form; a refused one is a 403 page.
 */
export async function withTrustedForm(
  c: Ctx,
  handle: (session: ConsoleSession, form: FormData) => Promise<Response>,
): Promise<Response> {
  return withMember(c, async (session) => {
    const form = await c.req.formData();
    if (!(await postIsTrusted(c, session, form)))
      return message(c, 403, 'Request refused', 'The form expired or came from another site.', session);
    return handle(session, form);
  });
}
