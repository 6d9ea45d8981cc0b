import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_PATHS } from '../../functions/oauth/metadata.js';
import { browse, type CookieJar, signInWithLink } from '../support/console-session.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Every browser form POST (the console's and the OAuth consent form's) answers a body that is not a
 * form with a page: 415 for another Content-Type, 400 for a form body that does not parse; never a
 * 500 from a failed read. The routes are read off the app, so a form added later is covered.
 */

let h: Harness;
let ws: SeededWorkspace;
let jar: CookieJar;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  jar = await signInWithLink(h, ws.admin.email);
});
afterAll(async () => h?.close());

/** Every POST route of a browser form, with its path parameters filled in. */
function formPosts(): string[] {
  const paths = h.app.routes
    .filter((r) => r.method === 'POST' && (r.path.startsWith('/console/') || r.path === OAUTH_PATHS.authorize))
    .map((r) => r.path.replace(/:(\w+)/g, '0193b000-0000-7000-8000-000000000001'));
  return [...new Set(paths)];
}

const NOT_FORMS = [
  { label: 'JSON', contentType: 'application/json', body: '{"csrf":"x","name":"n"}', status: 415 },
  { label: 'plain text', contentType: 'text/plain', body: 'csrf=x&name=n', status: 415 },
  { label: 'no Content-Type', contentType: undefined, body: 'csrf=x', status: 415 },
  {
    label: 'a malformed multipart body',
    contentType: 'multipart/form-data; boundary=----not-in-the-body',
    body: '------another-boundary\r\nContent-Disposition: form-data; name="csrf"\r\n\r\nx\r\n',
    status: 400,
  },
] as const;

describe('a browser form POST with a body that is not a form', () => {
  it('finds the form routes: the console’s and the consent form', () => {
    const posts = formPosts();
    expect(posts.length).toBeGreaterThan(20);
    expect(posts).toContain(OAUTH_PATHS.authorize);
    expect(posts).toContain('/console/keys');
    expect(posts).toContain('/console/sign-in/link');
  });

  it('is a 415 page for another Content-Type and a 400 page for a malformed form, signed in or not, on every route', async () => {
    const failures: string[] = [];
    for (const path of formPosts()) {
      for (const signedIn of [true, false]) {
        for (const notForm of NOT_FORMS) {
          const headers: Record<string, string> = {
            'x-forwarded-for': jar.ip,
            origin: h.services.config.publicUrl,
            ...(notForm.contentType ? { 'content-type': notForm.contentType } : {}),
            ...(signedIn ? { cookie: jar.header() } : {}),
          };
          const res = await h.fetch(path, { method: 'POST', headers, body: notForm.body, redirect: 'manual' });
          const text = await res.text();
          const label = `${path} (${signedIn ? 'signed in' : 'signed out'}) with ${notForm.label}`;
          if (res.status !== notForm.status) failures.push(`${label}: ${res.status} ${text.slice(0, 120)}`);
          else if (!res.headers.get('content-type')?.startsWith('text/html'))
            failures.push(`${label}: not a page (${res.headers.get('content-type')})`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('still takes a real form', async () => {
    const page = await browse(h, jar, '/console/keys');
    expect(page.status).toBe(200);
    const done = await browse(h, jar, '/console/sign-out', { form: { csrf: 'wrong' } });
    expect(done.status).toBe(403);
  });
});
