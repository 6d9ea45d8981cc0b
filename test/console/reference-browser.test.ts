import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  openBrowserSession,
  requireChromiumOrSayWhy,
  screenshotFolder,
  visible,
  type BrowserSession,
} from '../support/browser.js';

/**
 * The API reference in headless Chromium (test/support/browser.ts): reached from the landing page,
 * rendered by Scalar's bundle served by this service, under the page's CSP, without one request
 * answered by another origin (no CDN, no fonts, no telemetry: it must work offline).
 */
requireChromiumOrSayWhy();

describe.runIf(Boolean(CHROMIUM))('the API reference in headless Chromium', () => {
  let session: BrowserSession;
  let base: string;
  let page: Page;
  const SCREENSHOTS = screenshotFolder();
  const foreignRequests: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    session = await openBrowserSession({ viewport: { width: 1280, height: 900 } });
    ({ base, page } = session);
    // Any request to another origin that got an answer (the CSP refuses the bundle's early web-font
    // loads before they leave, which Chromium reports as failed requests, not finished ones).
    page.on('requestfinished', (request) => {
      if (!request.url().startsWith(`${base}/`) && !request.url().startsWith('data:'))
        foreignRequests.push(request.url());
    });
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => session?.close());

  it('opens from the landing page and renders the operations of openapi.json', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${base}/docs`);
    // Summaries straight from the registry: the reference read the document the API serves.
    await visible(page.getByText('Who am I, in which workspace, and can I optimize messages').first(), 90_000);
    await visible(page.getByRole('heading', { name: 'Customer Intelligence Platform API' }).first());
    await page.getByText('Webhooks', { exact: true }).first().click();
    await visible(page.getByText('Register a webhook').first());
    await page.screenshot({ path: join(SCREENSHOTS, 'api-reference.png') });

    expect(foreignRequests).toEqual([]);
    // What the renderer reaches for by default and the CSP refuses (its web fonts, its AI assistant's
    // lookups, a probe for `new Function`); our own script and its injected styles must never be refused.
    const refused = cspViolations.filter((v) => !/fonts\.scalar\.com|proxy\.scalar\.com|unsafe-eval/.test(v));
    expect(refused).toEqual([]);
  }, 120_000);
});
