import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../functions/identity/console-sessions.js';
import { sha256Base64Url } from '../../platform/crypto.js';
import { randomBase62 } from '../../platform/ids.js';
import {
  CHROMIUM,
  openBrowserSession,
  requireChromiumOrSayWhy,
  screenshotFolder,
  visible,
  type BrowserSession,
} from '../support/browser.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';

/**
 * The console in a real browser (test/support/browser.ts: headless Chromium against the app over
 * real HTTP): sign in, keys, OAuth consent. UPDATE_CONSOLE_SCREENSHOTS=1 writes the guides'
 * screenshots to docs/console/.
 */
const CLIENT_CALLBACK = 'https://client.example/callback';

requireChromiumOrSayWhy();

describe.runIf(Boolean(CHROMIUM))('the console in headless Chromium', () => {
  let session: BrowserSession;
  let h: Harness;
  let ws: SeededWorkspace;
  let base: string;
  let page: Page;
  const SCREENSHOTS = screenshotFolder();

  beforeAll(async () => {
    session = await openBrowserSession({
      // The OAuth client's redirect target: answered by the test, as the client's own server would.
      prepareContext: (context) =>
        context.route(`${CLIENT_CALLBACK}**`, (route) =>
          route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' }),
        ),
    });
    ({ h, base, page } = session);
    ws = await h.seedWorkspace('Browser Workspace');
  }, 60_000);

  afterAll(async () => session?.close());

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('signs in with a one-time link, creates a key shown once, uses it, and revokes it', async () => {
    await page.goto(`${base}/console/sign-in`);
    await visible(page.getByLabel('Sign-in link'));
    await shot('sign-in');

    const { url } = await createSignInLink(h.database.db, base, ws.editor.email, h.services.clock.now());
    await page.getByLabel('Sign-in link').fill(url);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console/keys`).catch(async (e) => {
      throw new Error(
        `${e}\nat ${page.url()}:\n${(await page.content()).replace(/<style[\s\S]*<\/style>/, '').slice(0, 3000)}`,
      );
    });
    await visible(page.getByRole('heading', { name: 'API keys' }));

    await page.getByLabel('Name').fill('Browser key');
    await page.getByLabel('Permissions bundle').selectOption('internal_agent');
    await page.getByLabel('Expiration').selectOption('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('Your new API key').inputValue();
    expect(key).toMatch(/^cip_[0-9A-Za-z]{40}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.waitForFunction(() => (document.getElementById('copy-status')?.textContent ?? '') !== '');
    await shot('key-created');

    // The key works, over real HTTP, as curl would use it.
    const ok = await fetch(`${base}/api/platform/v1/setup/status`, { headers: { 'X-API-Key': key } });
    expect(ok.status).toBe(200);

    await page.goto(`${base}/console/keys`);
    expect(await page.content()).not.toContain(key);
    await visible(page.getByRole('cell', { name: 'Browser key', exact: true }));
    await shot('keys');

    await page.getByRole('link', { name: 'Revoke key Browser key' }).click();
    await visible(page.getByRole('heading', { name: 'Revoke the key \u201cBrowser key\u201d?' }));
    await shot('key-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke this key' }).click();
    expect(await (await visible(page.getByRole('status'))).textContent()).toContain('The key is revoked');
    const refused = await fetch(`${base}/api/platform/v1/setup/status`, { headers: { 'X-API-Key': key } });
    expect(refused.status).toBe(401);
  }, 60_000);

  async function authorizationUrl(): Promise<{ url: string; verifier: string; clientId: string }> {
    const reg = await fetch(`${base}/api/platform/v1/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Research Copilot',
        redirect_uris: [CLIENT_CALLBACK],
        token_endpoint_auth_method: 'none',
      }),
    });
    const { client_id: clientId } = await reg.json();
    const verifier = randomBase62(64);
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CLIENT_CALLBACK,
      scope: 'data:read conversations:read conversations:write',
      state: 'browser-state',
      code_challenge: await sha256Base64Url(verifier),
      code_challenge_method: 'S256',
    });
    return { url: `${base}/api/platform/v1/oauth/authorize?${params}`, verifier, clientId };
  }

  it('approves a consent, and the application it authorized is listed', async () => {
    const { url, verifier, clientId } = await authorizationUrl();
    await page.goto(url);
    await visible(page.getByRole('heading', { name: 'Allow Research Copilot to access your data?' }));
    await visible(page.getByText('Start chats and research in your name'));
    await shot('consent');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`${CLIENT_CALLBACK}**`);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('browser-state');
    const code = back.searchParams.get('code') as string;
    const tokens = await (
      await fetch(`${base}/api/platform/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: CLIENT_CALLBACK,
          code_verifier: verifier,
          client_id: clientId,
        }),
      })
    ).json();
    expect(
      (
        await fetch(`${base}/api/platform/v1/setup/status`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        })
      ).status,
    ).toBe(200);

    await page.goto(`${base}/console/apps`);
    await visible(page.getByRole('cell', { name: 'Research Copilot', exact: true }));
    await shot('authorized-apps');
  }, 60_000);

  it('denies a consent: the application gets access_denied', async () => {
    const { url } = await authorizationUrl();
    await page.goto(url);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${CLIENT_CALLBACK}**`);
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  }, 60_000);
});
