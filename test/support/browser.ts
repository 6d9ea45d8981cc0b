import { serve, type ServerType } from '@hono/node-server';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { it } from 'vitest';
import { createSignInLink } from '../../functions/identity/console-sessions.js';
import { createHarness, type Harness, type HarnessOptions } from './harness.js';

/**
 * The console's browser tests share this: Debian's headless Chromium driven by playwright-core,
 * against the app served over real HTTP on a loopback port. `npm test` runs them when Chromium is
 * installed and says plainly when it is not; CI sets REQUIRE_BROWSER_TESTS=1, so a skipped browser
 * test fails there. UPDATE_CONSOLE_SCREENSHOTS=1 writes the guides' screenshots to docs/console/.
 */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => Boolean(p && existsSync(p)),
);

/**
 * Call once at a browser test file's top level: without Chromium it warns, and under
 * REQUIRE_BROWSER_TESTS=1 it adds a failing test, so a missing browser is never a silent pass.
 */
export function requireChromiumOrSayWhy(): void {
  if (CHROMIUM) return;
  const message =
    'Browser tests skipped: no Chromium found (install Debian\'s "chromium" package or set CHROMIUM_PATH).';
  console.warn(message);
  it.runIf(process.env.REQUIRE_BROWSER_TESTS === '1')('REQUIRE_BROWSER_TESTS=1 but Chromium is missing', () => {
    throw new Error(message);
  });
}

/** Where screenshots go: docs/console/ when updating them, otherwise a throwaway folder. */
export function screenshotFolder(): string {
  const folder =
    process.env.UPDATE_CONSOLE_SCREENSHOTS === '1'
      ? join(import.meta.dirname, '../../docs/console')
      : mkdtempSync(join(tmpdir(), 'cip-console-shots-'));
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** Wait until a locator (found by role or label, so accessible names are tested too) is visible. */
export async function visible(locator: Locator, timeout = 10_000): Promise<Locator> {
  await locator.waitFor({ state: 'visible', timeout });
  return locator;
}

export interface BrowserSession {
  h: Harness;
  /** The app's origin over real HTTP, also its PUBLIC_URL (cookies and redirects need them equal). */
  base: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Sign `email` in through a one-time link, as a person would (landing on the keys page). */
  signIn(email: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Serve a fresh harness on a loopback port (PUBLIC_URL set to it) and open Chromium on it. The
 * server is listening before the harness exists, so the harness can be told its own URL.
 * `prepareContext` runs before the first page opens (init scripts, routes, exposed functions).
 */
export async function openBrowserSession(
  options: {
    harness?: HarnessOptions;
    viewport?: { width: number; height: number };
    prepareContext?: (context: BrowserContext) => Promise<unknown>;
  } = {},
): Promise<BrowserSession> {
  if (!CHROMIUM) throw new Error('openBrowserSession needs Chromium (guard the suite with CHROMIUM)');
  let app: Harness['app'] | undefined;
  const server: ServerType = serve({
    fetch: (req) => (app as Harness['app']).fetch(req),
    hostname: '127.0.0.1',
    port: 0,
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const h = await createHarness({ ...options.harness, env: { ...options.harness?.env, PUBLIC_URL: base } });
  app = h.app;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1200, height: 860 } });
  await options.prepareContext?.(context);
  const page = await context.newPage();
  return {
    h,
    base,
    browser,
    context,
    page,
    async signIn(email) {
      const { url } = await createSignInLink(h.database.db, base, email, h.services.clock.now());
      await page.goto(url);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${base}/console/keys`);
    },
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await h.close();
      if (options.harness?.database) await h.database.close();
    },
  };
}
