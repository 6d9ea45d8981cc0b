import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { jwtVerify, SignJWT } from 'jose';
import { ApiError } from '../../platform/errors.js';
import type { AppEnv } from '../http/env.js';
import { refuseUnstorableText } from '../http/storable-text-guard.js';
import { requireFormBody } from '../web/form-body.js';
import { BUNDLE_TABLE, type Bundle } from '../identity/scopes.js';
import { FIRST_START_KEY_NAME } from '../embedded/first-start-key.js';
import type { OperationRegistry } from '../registry.js';
import {
  clearBrowserCookie,
  currentSession,
  formValue,
  headerFor,
  issueSignInCsrf,
  OIDC_PENDING_COOKIE,
  postIsTrusted,
  renderPage,
  safeReturnTo,
  SESSION_COOKIE,
  setBrowserCookie,
  SIGN_IN_CSRF_COOKIE,
} from '../web/browser.js';
import { askRoutes } from './ask-routes.js';
import { connectionRoutes } from './connection-routes.js';
import { teamRoutes } from './team-routes.js';
import { usageRoutes } from './usage-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import { workRoutes } from './work-routes.js';
import { putFlash, takeFlash } from './flash.js';
import { consoleCall, type Ctx, message, withMember, withTrustedForm } from './page-helpers.js';
import {
  beginSignIn,
  completeSignIn,
  IdentityProviderUnavailable,
  SignInRejected,
  type PendingSignIn,
} from './oidc.js';
import { KEY_EXPIRATION_DAYS } from './operations.js';
import { AppsPage, type AppRow } from './pages/apps.js';
import { KeysPage, type KeyRow } from './pages/keys.js';
import { ConfirmPage } from './pages/confirm.js';
import { ConfirmLinkPage, SignInPage } from './pages/sign-in.js';
import {
  consumeSignInLink,
  endSession,
  memberByEmail,
  SESSION_TTL_SECONDS,
  startSession,
  switchWorkspace,
  type ConsoleSession,
} from '../identity/console-sessions.js';

const SIGN_IN_ATTEMPTS = { limit: 10, windowSeconds: 60 };
const OIDC_PENDING_TTL_SECONDS = 600;
const OIDC_PENDING_AUDIENCE = 'console-oidc-pending';

/**
 * The console a member uses around the API (spec, Authentication 4): sign-in, API keys and the
 * applications they authorized. Pages call the console's registry operations as the member
 * (origin `console`), so the rules are the operations' own, not a copy.
 */
export function consoleRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Text the database cannot store (a NUL, an unpaired surrogate) in a link, a form or a query is a
  // 400 page, before any lookup could fail on it (functions/http/storable-text-guard.ts).
  app.use(
    '/console/*',
    refuseUnstorableText((c, problem) => message(c, 400, 'Invalid request', `${problem.field}: ${problem.problem}.`)),
  );
  // Every POST here is a form: another body is a 415 or 400 page, not a failed read in a handler.
  app.use(
    '/console/*',
    requireFormBody((c, status, text) =>
      message(c, status, status === 415 ? 'Unsupported form encoding' : 'Invalid request', text),
    ),
  );

  app.get('/console', async (c) => {
    // The OAuth callback of a source (connections/oauth-flow.ts) returns here with its outcome,
    // which belongs on the connections page; any other visit goes to the keys page.
    const query = new URL(c.req.url).search;
    if (c.req.query('connection_result')) return c.redirect(`/console/connections${query}`, 302);
    return c.redirect((await currentSession(c)) ? '/console/keys' : '/console/sign-in', 302);
  });

  app.get('/console/sign-in', async (c) => {
    const returnTo = safeReturnTo(c.req.query('return_to'));
    if (await currentSession(c)) return c.redirect(returnTo, 302);
    return signInPage(c, returnTo);
  });

  app.get('/console/sign-in/link', async (c) => {
    const { config } = c.get('services');
    if (!config.consoleSignInLinks)
      return message(c, 404, 'Sign-in links are off', 'This service does not accept sign-in links.');
    const token = c.req.query('token') ?? '';
    const csrf = issueSignInCsrf(c);
    return renderPage(c, (nonce) => (
      <ConfirmLinkPage nonce={nonce} token={token} csrf={csrf} returnTo={safeReturnTo(c.req.query('return_to'))} />
    ));
  });

  app.post('/console/sign-in/link', async (c) => {
    const services = c.get('services');
    if (!services.config.consoleSignInLinks)
      return message(c, 404, 'Sign-in links are off', 'This service does not accept sign-in links.');
    const form = await c.req.formData();
    const returnTo = safeReturnTo(formValue(form, 'return_to'));
    if (!(await postIsTrusted(c, null, form)))
      return signInPage(c, returnTo, 'The sign-in form expired or came from another site. Try again.', 403);
    const attempt = await services.limiter.limit(`console-sign-in:ip:${c.get('clientIp')}`, SIGN_IN_ATTEMPTS);
    if (!attempt.success)
      return signInPage(c, returnTo, 'Too many sign-in attempts from your address. Wait a minute and try again.', 429);
    const userId = await consumeSignInLink(
      services.db,
      tokenFromLink(formValue(form, 'link') ?? ''),
      services.clock.now(),
    );
    if (!userId)
      return signInPage(
        c,
        returnTo,
        'This sign-in link is not valid: it was already used, has expired (links last 15 minutes) or was mistyped. Ask for a new one.',
        400,
      );
    return signedIn(c, userId, returnTo);
  });

  app.get('/console/sign-in/oidc', async (c) => {
    const services = c.get('services');
    const provider = services.consoleIdentityProvider;
    if (!provider)
      return message(
        c,
        404,
        'No identity provider',
        'This service has no identity provider configured for the console.',
      );
    try {
      const { url, pending } = await beginSignIn(
        provider,
        `${services.config.publicUrl}/console/sign-in/callback`,
        safeReturnTo(c.req.query('return_to')),
      );
      const sealed = await new SignJWT({ ...pending })
        .setProtectedHeader({ alg: 'HS256' })
        .setAudience(OIDC_PENDING_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${OIDC_PENDING_TTL_SECONDS}s`)
        .sign(services.credentials.oauth.secret);
      setBrowserCookie(c, OIDC_PENDING_COOKIE, sealed, OIDC_PENDING_TTL_SECONDS, '/console/sign-in');
      return c.redirect(url.toString(), 302);
    } catch (e) {
      if (e instanceof IdentityProviderUnavailable)
        return message(
          c,
          503,
          'Sign-in unavailable',
          'The identity provider could not be reached. Try again in a moment.',
        );
      throw e;
    }
  });

  app.get('/console/sign-in/callback', async (c) => {
    const services = c.get('services');
    const provider = services.consoleIdentityProvider;
    if (!provider)
      return message(
        c,
        404,
        'No identity provider',
        'This service has no identity provider configured for the console.',
      );
    const pending = await readPending(c);
    clearBrowserCookie(c, OIDC_PENDING_COOKIE, '/console/sign-in');
    if (!pending)
      return signInPage(c, '/console', 'The sign-in took too long or was started in another browser. Try again.', 400);
    let email: string;
    try {
      const search = new URL(c.req.url).search;
      email = await completeSignIn(
        provider,
        new URL(`${services.config.publicUrl}/console/sign-in/callback${search}`),
        pending,
      );
    } catch (e) {
      if (e instanceof IdentityProviderUnavailable)
        return message(
          c,
          503,
          'Sign-in unavailable',
          'The identity provider could not be reached. Try again in a moment.',
        );
      if (e instanceof SignInRejected) return signInPage(c, pending.returnTo, e.message, 400);
      throw e;
    }
    const userId = await memberByEmail(services.db, email);
    if (!userId)
      return message(
        c,
        403,
        'No access',
        `${email} is not a member of any workspace of this service. Ask a workspace admin to add you.`,
      );
    return signedIn(c, userId, pending.returnTo);
  });

  app.post('/console/sign-out', async (c) => {
    const session = await currentSession(c);
    const form = await c.req.formData();
    if (session) {
      if (!(await postIsTrusted(c, session, form)))
        return message(c, 403, 'Request refused', 'The form expired or came from another site.');
      await endSession(c.get('services').db, session.id, c.get('services').clock.now());
    }
    clearBrowserCookie(c, SESSION_COOKIE);
    return c.redirect('/console/sign-in', 303);
  });

  app.post('/console/workspace', async (c) =>
    withMember(c, async (session) => {
      const form = await c.req.formData();
      if (!(await postIsTrusted(c, session, form)))
        return message(c, 403, 'Request refused', 'The form expired or came from another site.', session);
      await switchWorkspace(c.get('services').db, session, formValue(form, 'workspace_id') ?? '');
      return c.redirect('/console/keys', 303);
    }),
  );

  app.get('/console/keys', async (c) =>
    withMember(c, async (session) =>
      keysPage(c, registry, session, {
        created: (await takeFlash(c.get('services'), session.id, 'api_key_created')) ?? undefined,
        notice: noticeFor(c.req.query('notice')),
      }),
    ),
  );

  // POST-redirect-GET: the new key waits, sealed, in the session's flash for the page after the
  // redirect, so a refresh neither creates another key nor shows this one again.
  app.post('/console/keys', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const days = formValue(form, 'expires_in_days');
      const result = await consoleCall(c, registry, session, 'console.api_keys.create', {
        name: formValue(form, 'name') ?? '',
        bundle: formValue(form, 'bundle') ?? '',
        expires_in_days: days === 'never' ? null : Number(days),
      });
      if (result instanceof ApiError)
        return keysPage(c, registry, session, { error: result.message, status: result.status === 403 ? 403 : 400 });
      const created = result as { name: string; key: string };
      await putFlash(c.get('services'), session.id, { kind: 'api_key_created', name: created.name, key: created.key });
      return c.redirect('/console/keys', 303);
    }),
  );

  app.get('/console/keys/:id/revoke', async (c) =>
    withMember(c, async (session) => {
      const listed = await consoleCall(c, registry, session, 'console.api_keys.list', {});
      if (listed instanceof ApiError) throw listed;
      const key = (listed as { keys: KeyRow[] }).keys.find((k) => k.id === c.req.param('id'));
      if (!key) return message(c, 404, 'No such key', 'This key does not exist or is already revoked.', session);
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <ConfirmPage
          nonce={nonce}
          session={header}
          active="keys"
          title={`Revoke the key “${key.name}”?`}
          warning={keyInUseWarning(key, c.get('services').clock.now())}
          action={`/console/keys/${key.id}/revoke`}
          confirmLabel="Revoke this key"
          cancelHref="/console/keys"
        >
          <p>
            Key <code>{key.prefix}…</code> ({key.bundle_label}){key.own ? '' : `, owned by ${key.owner_email}`}.
            Revoking is immediate and cannot be undone: every request with this key gets 401 from then on.
          </p>
        </ConfirmPage>
      ));
    }),
  );

  app.post('/console/keys/:id/revoke', async (c) =>
    withTrustedForm(c, async (session) => {
      const result = await consoleCall(c, registry, session, 'console.api_keys.revoke', { id: c.req.param('id') });
      if (result instanceof ApiError) return keysPage(c, registry, session, { error: result.message, status: 404 });
      return c.redirect('/console/keys?notice=key_revoked', 303);
    }),
  );

  app.get('/console/apps', async (c) =>
    withMember(c, (session) => appsPage(c, registry, session, { notice: noticeFor(c.req.query('notice')) })),
  );

  app.get('/console/apps/:id/revoke', async (c) =>
    withMember(c, async (session) => {
      const listed = await consoleCall(c, registry, session, 'console.authorized_apps.list', {});
      if (listed instanceof ApiError) throw listed;
      const grant = (listed as { apps: AppRow[] }).apps.find((a) => a.id === c.req.param('id'));
      if (!grant)
        return message(c, 404, 'No such application', 'This authorization does not exist or is revoked.', session);
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <ConfirmPage
          nonce={nonce}
          session={header}
          active="apps"
          title={`Revoke ${grant.client_name}?`}
          action={`/console/apps/${grant.id}/revoke`}
          confirmLabel="Revoke access"
          cancelHref="/console/apps"
        >
          <p>
            {grant.client_name} ({grant.redirect_hosts.join(', ')}) stops acting for you in {grant.workspace_name} at
            once: its access tokens get 401 and its refresh tokens are refused.
          </p>
        </ConfirmPage>
      ));
    }),
  );

  app.post('/console/apps/:id/revoke', async (c) =>
    withTrustedForm(c, async (session) => {
      const result = await consoleCall(c, registry, session, 'console.authorized_apps.revoke', {
        id: c.req.param('id'),
      });
      if (result instanceof ApiError) return appsPage(c, registry, session, { error: result.message, status: 404 });
      return c.redirect('/console/apps?notice=app_revoked', 303);
    }),
  );

  app.route('/', connectionRoutes(registry));
  app.route('/', askRoutes(registry));
  app.route('/', webhookRoutes(registry));
  app.route('/', teamRoutes(registry));
  app.route('/', usageRoutes(registry));
  app.route('/', workRoutes(registry));

  return app;
}

const NOTICES: Record<string, string> = {
  key_revoked: 'The key is revoked. Requests with it now get 401.',
  app_revoked: 'Access revoked. The application can no longer act for you.',
};
const noticeFor = (code: string | undefined) => (code ? NOTICES[code] : undefined);

const RECENT_USE_MS = 24 * 3600_000;

/**
 * What the confirmation can tell about a key being in use: the demo admin's first-start key is the
 * one `npm start` printed (and the README's examples use), and a key used in the last day is
 * presumably in some script right now. The console session itself never uses a key.
 */
function keyInUseWarning(key: KeyRow, now: Date): string | undefined {
  const warnings: string[] = [];
  if (key.own && key.name === FIRST_START_KEY_NAME)
    warnings.push(
      'This is the demo admin key printed at the first npm start: scripts, the README examples and any MCP client you set up with it stop working.',
    );
  if (key.last_used_at && now.getTime() - Date.parse(key.last_used_at) < RECENT_USE_MS)
    warnings.push(`It is in use: its last request was at ${key.last_used_at.replace('T', ' ').slice(0, 16)} UTC.`);
  return warnings.length ? warnings.join(' ') : undefined;
}

async function signedIn(c: Ctx, userId: string, returnTo: string): Promise<Response> {
  const services = c.get('services');
  const { token } = await startSession(services.db, userId, services.clock.now());
  setBrowserCookie(c, SESSION_COOKIE, token, SESSION_TTL_SECONDS);
  clearBrowserCookie(c, SIGN_IN_CSRF_COOKIE, '/console');
  return c.redirect(returnTo, 303);
}

function signInPage(c: Ctx, returnTo: string, error?: string, status: 200 | 400 | 403 | 429 = 200): Promise<Response> {
  const { config, consoleIdentityProvider } = c.get('services');
  const csrf = issueSignInCsrf(c);
  return renderPage(
    c,
    (nonce) => (
      <SignInPage
        nonce={nonce}
        returnTo={returnTo}
        csrf={csrf}
        linksEnabled={config.consoleSignInLinks}
        identityProviderHost={consoleIdentityProvider ? consoleIdentityProvider.issuer.host : null}
        error={error}
      />
    ),
    { status },
  );
}

async function keysPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  extra: {
    created?: { name: string; key: string };
    notice?: string | undefined;
    error?: string;
    status?: 200 | 400 | 403 | 404;
  },
): Promise<Response> {
  const listed = await consoleCall(c, registry, session, 'console.api_keys.list', {});
  if (listed instanceof ApiError) throw listed;
  const { keys, bundles_allowed } = listed as { keys: KeyRow[]; bundles_allowed: Bundle[] };
  const header = await headerFor(c, session);
  const bundles = bundles_allowed.map((id) => ({
    id,
    label: BUNDLE_TABLE[id].label,
    scopeCount: BUNDLE_TABLE[id].scopes.length,
  }));
  const expirations = [
    ...KEY_EXPIRATION_DAYS.map((d) => ({ value: String(d), label: d === 365 ? '1 year' : `${d} days` })),
    { value: 'never', label: 'Never' },
  ];
  return renderPage(
    c,
    (nonce) => (
      <KeysPage
        nonce={nonce}
        session={header}
        keys={keys}
        bundles={bundles}
        expirations={expirations}
        created={extra.created}
        notice={extra.notice}
        error={extra.error}
      />
    ),
    { status: extra.status ?? 200 },
  );
}

async function appsPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  extra: { notice?: string | undefined; error?: string; status?: 200 | 404 },
): Promise<Response> {
  const listed = await consoleCall(c, registry, session, 'console.authorized_apps.list', {});
  if (listed instanceof ApiError) throw listed;
  const { apps } = listed as { apps: AppRow[] };
  const header = await headerFor(c, session);
  return renderPage(
    c,
    (nonce) => <AppsPage nonce={nonce} session={header} apps={apps} notice={extra.notice} error={extra.error} />,
    { status: extra.status ?? 200 },
  );
}

/** The pasted value may be the whole link or just its token. */
function tokenFromLink(value: string): string {
  const trimmed = value.trim();
  if (!trimmed.includes('token=')) return trimmed;
  try {
    return new URL(trimmed, 'http://link.invalid').searchParams.get('token') ?? '';
  } catch {
    return '';
  }
}

async function readPending(c: Ctx): Promise<PendingSignIn | null> {
  const sealed = getCookie(c, OIDC_PENDING_COOKIE);
  if (!sealed) return null;
  try {
    const { payload } = await jwtVerify(sealed, c.get('services').credentials.oauth.secret, {
      audience: OIDC_PENDING_AUDIENCE,
      algorithms: ['HS256'],
    });
    const { state, nonce, verifier, returnTo } = payload as Record<string, unknown>;
    if (
      typeof state !== 'string' ||
      typeof nonce !== 'string' ||
      typeof verifier !== 'string' ||
      typeof returnTo !== 'string'
    )
      return null;
    return { state, nonce, verifier, returnTo: safeReturnTo(returnTo) };
  } catch {
    return null;
  }
}
