import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { randomBase62 } from '../../platform/ids.js';
import { API_PREFIX, type AppEnv } from '../http/env.js';
import { isLoopbackHost } from '../../platform/net/loopback.js';
import { csrfTokenFor, csrfTokenMatches, resolveSession, type ConsoleSession } from '../identity/console-sessions.js';
import { isWellFormedAuthorizationQuery } from '../oauth/index.js';
import type { HeaderSession } from './layout.js';

/**
 * What every page a person sees shares: cookies, security headers, CSRF, where a sign-in may send
 * the browser back to. Pages are server-rendered and work without JavaScript.
 */
export const SESSION_COOKIE = 'cip_console';
/** Double-submit token for the sign-in form, which has no session to derive one from (login CSRF). */
export const SIGN_IN_CSRF_COOKIE = 'cip_sign_in_csrf';
export const OIDC_PENDING_COOKIE = 'cip_oidc_pending';

/** Secure everywhere except a loopback address, where browsers would drop a Secure cookie over http. */
export function cookieIsSecure(publicUrl: string): boolean {
  return !isLoopbackHost(new URL(publicUrl).hostname);
}

export function setBrowserCookie(
  c: Context<AppEnv>,
  name: string,
  value: string,
  maxAgeSeconds: number,
  path = '/',
): void {
  setCookie(c, name, value, {
    httpOnly: true,
    secure: cookieIsSecure(c.get('services').config.publicUrl),
    sameSite: 'Lax',
    path,
    maxAge: maxAgeSeconds,
  });
}

export function clearBrowserCookie(c: Context<AppEnv>, name: string, path = '/'): void {
  deleteCookie(c, name, {
    path,
    secure: cookieIsSecure(c.get('services').config.publicUrl),
    httpOnly: true,
    sameSite: 'Lax',
  });
}

export async function currentSession(c: Context<AppEnv>): Promise<ConsoleSession | null> {
  const services = c.get('services');
  return resolveSession(services.db, getCookie(c, SESSION_COOKIE), services.clock.now());
}

export async function headerFor(c: Context<AppEnv>, session: ConsoleSession): Promise<HeaderSession> {
  return {
    email: session.email,
    current: session.current,
    memberships: session.memberships,
    csrf: await csrfTokenFor(c.get('services').credentials.oauth.secret, session.token),
  };
}

/**
 * A state-changing request must come from our own pages: same-origin by the browser's own headers
 * (Origin, Sec-Fetch-Site), and carrying the session's CSRF token. Both, because either alone has
 * gaps (old browsers send no Sec-Fetch-Site; a token alone does nothing against a stolen page).
 */
export async function postIsTrusted(
  c: Context<AppEnv>,
  session: ConsoleSession | null,
  form: FormData | Record<string, unknown>,
): Promise<boolean> {
  if (!sameOrigin(c)) return false;
  const presented = formValue(form, 'csrf_token');
  if (session) return csrfTokenMatches(c.get('services').credentials.oauth.secret, session.token, presented);
  const cookie = getCookie(c, SIGN_IN_CSRF_COOKIE);
  return Boolean(cookie && presented && cookie === presented);
}

function sameOrigin(c: Context<AppEnv>): boolean {
  if (c.req.header('sec-fetch-site') === 'cross-site') return false;
  const origin = c.req.header('origin');
  if (!origin || origin === 'null') return origin === undefined;
  return origin === new URL(c.get('services').config.publicUrl).origin;
}

export function formValue(form: FormData | Record<string, unknown>, name: string): string | undefined {
  const value = form instanceof FormData ? form.get(name) : form[name];
  return typeof value === 'string' ? value : undefined;
}

/** A fresh token for the sign-in form, set as its double-submit cookie. */
export function issueSignInCsrf(c: Context<AppEnv>): string {
  const token = getCookie(c, SIGN_IN_CSRF_COOKIE) ?? randomBase62(32);
  setBrowserCookie(c, SIGN_IN_CSRF_COOKIE, token, 3600, '/console');
  return token;
}

/**
 * Where a sign-in may return to: a path on this origin that cannot send the browser off-site. That
 * is a console page other than the sign-in pages (which hand on to an identity provider or to their
 * own return_to), or an authorization request well formed on its face (the authorization endpoint
 * redirects to a client only after the member approves, and shows any other outcome as a page).
 * Anything else (another host, `//host`, a backslash trick) becomes the console home.
 */
export function safeReturnTo(value: string | undefined): string {
  if (!value || value.length > 4000) return '/console';
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/console';
  let parsed: URL;
  try {
    parsed = new URL(value, 'http://return-to.invalid');
  } catch {
    return '/console';
  }
  if (parsed.host !== 'return-to.invalid') return '/console';
  const consolePage =
    (parsed.pathname === '/console' || parsed.pathname.startsWith('/console/')) &&
    parsed.pathname !== '/console/sign-in' &&
    !parsed.pathname.startsWith('/console/sign-in/');
  const allowed =
    consolePage ||
    (parsed.pathname === `${API_PREFIX}/oauth/authorize` && isWellFormedAuthorizationQuery(parsed.searchParams));
  return allowed ? `${parsed.pathname}${parsed.search}` : '/console';
}

/**
 * Render a page with headers that keep it from being framed, cached or leaking its URL, and a
 * per-response nonce for its one style block and script. `formTargets` are origins a form on the
 * page may end up at (the consent page's redirect to the client).
 */
export function renderPage(
  c: Context<AppEnv>,
  page: (nonce: string) => JSX.Element,
  options: {
    status?: 200 | 400 | 403 | 404 | 409 | 415 | 429 | 503;
    formTargets?: string[];
    /** The page's script reads from our own origin (the Ask pages follow a run's event stream). */
    connectsToSelf?: boolean;
    /**
     * The page's script injects its own style elements and attributes as it renders (the API
     * reference's renderer), which a style nonce would block: styles from anywhere on the page are
     * allowed instead. Scripts stay nonce-only, so this admits no code.
     */
    scriptInjectsStyles?: boolean;
  } = {},
): Promise<Response> {
  const nonce = randomBase62(22);
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  const connect = options.connectsToSelf ? "connect-src 'self'; " : '';
  const style = options.scriptInjectsStyles ? "'self' 'unsafe-inline'" : `'nonce-${nonce}'`;
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; ${connect}style-src ${style}; script-src 'nonce-${nonce}'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Content-Type-Options', 'nosniff');
  // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on our own form posts, which the CSRF check must refuse.
  c.header('Referrer-Policy', 'same-origin');
  c.header('Cache-Control', 'no-store');
  return Promise.resolve(c.html(page(nonce), options.status ?? 200));
}
