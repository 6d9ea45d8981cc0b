import { eq } from 'drizzle-orm';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { outboxMessages, workspaces } from '../../schema/index.js';
import {
  CHROMIUM,
  openBrowserSession,
  requireChromiumOrSayWhy,
  screenshotFolder,
  visible,
  type BrowserSession,
} from '../support/browser.js';
import { startFakeServer, type FakeServer } from '../support/fake-http-server.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';

/**
 * The admin's console pages in headless Chromium (test/support/browser.ts): register a webhook and
 * see its ping delivered, invite a member and remove one, the usage page's quotas; screenshots of
 * each page in docs/console/.
 */
requireChromiumOrSayWhy();

describe.runIf(Boolean(CHROMIUM))('the admin console pages in headless Chromium', () => {
  let session: BrowserSession;
  let h: Harness;
  let ws: SeededWorkspace;
  let receiver: FakeServer;
  let base: string;
  let browser: Browser;
  let page: Page;
  const SCREENSHOTS = screenshotFolder();

  beforeAll(async () => {
    receiver = await startFakeServer((_req, res) => res.writeHead(200).end('ok'));
    session = await openBrowserSession({ harness: { env: { ALLOW_LOOPBACK_WEBHOOKS: '1' } } });
    ({ h, base, browser, page } = session);
    ws = await h.seedWorkspace('Browser Workspace');
    await session.signIn(ws.admin.email);
  }, 180_000);

  afterAll(async () => {
    await session?.close();
    await receiver?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('registers a webhook (secret shown once), pings it and sees the delivery listed', async () => {
    await page.goto(`${base}/console/webhooks`);
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hook`);
    await page.getByLabel('artifact.created').check();
    await page.getByRole('button', { name: 'Register' }).click();
    const secret = await (await visible(page.getByLabel('Signing secret', { exact: true }))).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shot('webhook-registered');
    await page.getByRole('link', { name: 'Open the webhook' }).click();
    await page.getByRole('button', { name: 'Send a test event (ping)' }).click();
    await visible(page.getByText('A webhook.ping event is queued'));
    await (h.services.queue as LocalTransport).drain();
    await page.reload();
    await visible(page.getByRole('cell', { name: 'webhook.ping', exact: true }));
    await visible(page.getByRole('cell', { name: '200', exact: true }));
    await shot('webhook');
    await page.goto(`${base}/console/webhooks`);
    expect(await page.content()).not.toContain(secret);
    await shot('webhooks');
  }, 60_000);

  it('invites a member by email, who accepts; then removes another member, whose key stops at once', async () => {
    await page.goto(`${base}/console/team`);
    await page.getByLabel('Email').fill('invitee@browser.test');
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await visible(page.getByRole('cell', { name: 'invitee@browser.test', exact: true }));
    await shot('team');
    const [mail] = await h.database.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.toEmail, 'invitee@browser.test'));
    const link = /(http:\/\/\S+\/console\/invitations\/accept\?token=\w+)/.exec(mail?.body ?? '')?.[1] as string;
    const invitee = await (await browser.newContext()).newPage();
    await invitee.goto(link);
    await invitee.getByRole('button', { name: 'Accept the invitation' }).click();
    await visible(invitee.getByText('Welcome: you joined the workspace.'));
    await invitee.close();

    expect(
      (await fetch(`${base}/api/platform/v1/setup/status`, { headers: { 'X-API-Key': ws.viewer.key } })).status,
    ).toBe(200);
    await page.goto(`${base}/console/team`);
    await visible(page.getByRole('cell', { name: 'invitee@browser.test', exact: true }));
    await page.getByRole('link', { name: `Remove ${ws.viewer.email}` }).click();
    await visible(page.getByRole('heading', { name: `Remove ${ws.viewer.email}?` }));
    await shot('team-remove-confirm');
    await page.getByRole('button', { name: 'Remove from the workspace' }).click();
    await visible(page.getByText('Removed. Their keys and authorized applications here stopped working.'));
    expect(
      (await fetch(`${base}/api/platform/v1/setup/status`, { headers: { 'X-API-Key': ws.viewer.key } })).status,
    ).toBe(401);
  }, 60_000);

  it('shows the monthly quotas with used, limit and reset on the usage page', async () => {
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { research: 0 } })
      .where(eq(workspaces.id, ws.id));
    const refused = await fetch(`${base}/api/platform/v1/research`, {
      method: 'POST',
      headers: { 'X-API-Key': ws.admin.key, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Why do deals stall?' }),
    });
    expect(refused.status).toBe(429);
    await page.goto(`${base}/console/usage`);
    const research = page.getByRole('row', { name: /^research 0 0 / });
    await visible(research);
    await visible(page.getByRole('row', { name: /^optimizer 0 1000 / }));
    await visible(page.getByRole('cell', { name: 'quota_exceeded (research)' }));
    await shot('usage');
  }, 60_000);

  it('agents, routines and documents pages render', async () => {
    await page.goto(`${base}/console/agents`);
    await visible(page.getByRole('heading', { name: 'The roster' }));
    await shot('agents');
    await page.getByRole('link', { name: 'Routines' }).first().click();
    await page.getByLabel('Name').fill('Weekly digest');
    await page.getByLabel('What the agent does each time').fill('Summarize what customers said this week.');
    await page.getByLabel('Schedule (cron: minute hour day month weekday)', { exact: true }).fill('0 9 * * 1');
    await page.getByRole('button', { name: 'Create' }).click();
    await visible(page.getByText('Routine created.'));
    await shot('routine');
    await h.request('POST', '/outputs/documents', {
      key: ws.admin.key,
      body: { title: 'Pricing objections', markdown: '## What we hear\n\nCustomers compare us with cheaper tools.' },
    });
    await page.goto(`${base}/console/documents`);
    await page.getByRole('link', { name: 'Pricing objections' }).click();
    await visible(page.getByRole('button', { name: 'Publish version 1' }));
    await shot('document');
  }, 60_000);
});
