import { createSignInLink } from '../../functions/identity/console-sessions.js';
import type { Harness } from './harness.js';

/**
 * A browser's cookie jar for in-process requests: keeps what the app sets, sends it back, and
 * honours deletion (Max-Age=0). Enough for the console's cookies, which are all host-only.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header seen, to assert on flags. */
  readonly seen: string[] = [];
  /** Each jar is one browser at its own address (sent as X-Forwarded-For; the harness trusts one proxy), so per-IP limits apply per jar. */
  readonly ip = `10.${(Math.random() * 250) | 0}.${(Math.random() * 250) | 0}.${(Math.random() * 250) | 0}`;

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      this.seen.push(header);
      const [pair = '', ...attributes] = header.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  delete(name: string): void {
    this.cookies.delete(name);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface BrowserRequest {
  method?: string;
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

/** A request as a same-origin browser page makes it: cookies, and Origin on POSTs. Redirects are not followed. */
export async function browse(h: Harness, jar: CookieJar, url: string, request: BrowserRequest = {}): Promise<Response> {
  const method = request.method ?? (request.form ? 'POST' : 'GET');
  const headers: Record<string, string> = { 'x-forwarded-for': jar.ip, ...request.headers };
  const cookie = jar.header();
  if (cookie) headers.cookie = cookie;
  if (method === 'POST') headers.origin ??= new URL(h.services.config.publicUrl).origin;
  let body: string | undefined;
  if (request.form) {
    body = new URLSearchParams(request.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await h.fetch(url, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
  jar.store(response);
  return response;
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&#x27;': "'",
};
export const decodeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (m) => ENTITIES[m] ?? m);

/** The hidden inputs of the form whose action is `action` (or of the first form). */
export function formFields(html: string, action?: string): Record<string, string> {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)];
  const form = action
    ? forms.find((f) => decodeHtml(/action="([^"]*)"/.exec(f[1] ?? '')?.[1] ?? '') === action)
    : forms[0];
  if (!form) throw new Error(`no form with action ${action}`);
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input\b([^>]*)>/g)) {
    const attrs = input[1] ?? '';
    if (!/type="hidden"/.test(attrs)) continue;
    const name = /name="([^"]*)"/.exec(attrs)?.[1];
    const value = /value="([^"]*)"/.exec(attrs)?.[1] ?? '';
    if (name) fields[decodeHtml(name)] = decodeHtml(value);
  }
  return fields;
}

/** Sign in to the console with a one-time link, as a person would: open the link, press Continue. */
export async function signInWithLink(h: Harness, email: string, jar = new CookieJar()): Promise<CookieJar> {
  const { url } = await createSignInLink(h.database.db, h.services.config.publicUrl, email, h.services.clock.now());
  const page = await browse(h, jar, url);
  if (page.status !== 200) throw new Error(`sign-in link page: ${page.status}`);
  const fields = formFields(await page.text(), '/console/sign-in/link');
  const done = await browse(h, jar, '/console/sign-in/link', { form: fields });
  if (done.status !== 303) throw new Error(`sign-in failed: ${done.status} ${await done.text()}`);
  return jar;
}

/**
 * Answer a consent page as the signed-in member: open the authorization URL, then press Approve
 * or Deny (optionally choosing a workspace). Returns where the browser is sent back to.
 */
export async function answerConsent(
  h: Harness,
  jar: CookieJar,
  authorizationUrl: string,
  decision: 'approve' | 'deny',
  options: { workspaceId?: string } = {},
): Promise<URL> {
  const page = await browse(h, jar, authorizationUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${html.slice(0, 500)}`);
  const fields = formFields(html, '/api/platform/v1/oauth/authorize');
  if (options.workspaceId) fields.workspace_id = options.workspaceId;
  // Several workspaces: the picker's first option, as a person pressing Approve straight away would send.
  fields.workspace_id ??= /<select id="consent-workspace"[^>]*>\s*<option value="([^"]+)"/.exec(html)?.[1] ?? '';
  const answer = await browse(h, jar, '/api/platform/v1/oauth/authorize', { form: { ...fields, decision } });
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location) throw new Error(`consent answer: ${answer.status} ${await answer.text()}`);
  return new URL(location);
}
