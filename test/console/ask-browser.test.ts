import { eq } from 'drizzle-orm';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PublishRequest } from '../../queues/transport/port.js';
import { chatMessages, transcriptTurns } from '../../schema/index.js';
import {
  CHROMIUM,
  openBrowserSession,
  requireChromiumOrSayWhy,
  screenshotFolder,
  visible as visibleWithin,
  type BrowserSession,
} from '../support/browser.js';
import { openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The Ask pages in headless Chromium (as test/console/browser.test.ts runs the key pages): a member
 * asks the demo corpus a question and watches the tool labels stream in, reads the answer with its
 * quotes and follows one to its source, answers a paused run's question, continues the thread with a
 * follow-up button, and reads a research job's report. UPDATE_CONSOLE_SCREENSHOTS=1 writes the
 * screenshots to docs/console/.
 */

/** A run of the local model on the demo corpus takes seconds; on a busy machine, more. */
const RUN_WAIT = 90_000;
const visible = (locator: Parameters<typeof visibleWithin>[0], timeout = RUN_WAIT) => visibleWithin(locator, timeout);

requireChromiumOrSayWhy();

describe.runIf(Boolean(CHROMIUM))('the Ask pages in headless Chromium', () => {
  let session: BrowserSession;
  let h: Harness;
  let ws: SeededWorkspace;
  let base: string;
  let page: Page;
  const SCREENSHOTS = screenshotFolder();
  /** Every line the live panel showed, recorded as it appeared (it survives the page's reloads). */
  const streamed: string[] = [];

  beforeAll(async () => {
    session = await openBrowserSession({
      harness: { database: await openCorpusDatabase() },
      viewport: { width: 1200, height: 900 },
      prepareContext: async (context) => {
        await context.exposeFunction('recordStep', (text: string) => {
          streamed.push(text);
          if (process.env.DEBUG_ASK) console.log(new Date().toISOString(), text);
        });
        // Watches the live panel's list from outside the page's own script (which the page's CSP governs).
        await context.addInitScript(() => {
          new MutationObserver((records) => {
            const record = (node: Node) => {
              if (node instanceof HTMLElement && node.tagName === 'LI' && node.parentElement?.id === 'run-steps')
                (window as unknown as { recordStep(t: string): void }).recordStep(node.textContent ?? '');
            };
            // A new line (tool.started), or a line rewritten when its tool completes.
            for (const r of records) {
              for (const node of r.addedNodes) record(node);
              record(r.target);
            }
          }).observe(document, { childList: true, subtree: true });
        });
      },
    });
    ({ h, base, page } = session);
    ws = await h.corpusWorkspace();
    await session.signIn(ws.editor.email);
  }, 120_000);

  afterAll(async () => session?.close());

  /** The whole page, or its first screen (a research report runs to several thousand pixels). */
  const shot = (name: string, fullPage = true) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
  const askQuestion = async (question: string, kind: 'Ask' | 'Research job' = 'Ask') => {
    await page.goto(`${base}/console/ask`);
    await page.getByLabel('Your question').fill(question);
    await page.getByRole('radio', { name: kind === 'Ask' ? /Ask: an answer/ : /Research job:/ }).check();
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
  };

  it('asks a question, streams the tool labels, renders quotes with speaker, account and date, and links each to its source', async () => {
    // The run's first delivery is held until the page is following it, so what streams is live.
    const queue = h.services.queue;
    const held: PublishRequest[] = [];
    h.services.queue = { name: 'local', publish: async (r) => ({ messageId: String(held.push(r)) }) };
    await askQuestion('What do customers say about pricing?');
    await page.waitForURL(/\/console\/ask\/threads\/[0-9a-f-]{36}$/);
    const chatId = page.url().split('/').pop() as string;
    expect(await (await visible(page.locator('#run-status'), 10_000)).textContent()).toContain('Queued');
    expect(held).toHaveLength(1);
    // Mid-run, for the console guide's screenshot: deliveries are released one at a time (each turn of the run
    // is one) until a tool label is on the page, so it is taken while the run waits for its next turn.
    const firstStep = page.locator('#run-steps li').first();
    for (let released = 0; !(await firstStep.isVisible()); released++) {
      expect(released, 'no tool label appeared').toBeLessThan(20);
      const next = held.shift();
      if (next) await queue.publish(next);
      await vi.waitUntil(async () => held.length > 0 || (await firstStep.isVisible()), {
        timeout: RUN_WAIT,
        interval: 100,
      });
    }
    expect(await page.locator('figure.quote').count()).toBe(0);
    // The header rendered "queued" with the page; it follows the run (it said "queued" here before).
    expect(await page.locator('#thread-status').textContent()).toBe('working');
    await shot('ask-running', false);
    h.services.queue = queue;
    for (const request of held.splice(0)) await queue.publish(request);
    const firstQuote = await visible(page.locator('figure.quote').first());
    if (process.env.DEBUG_ASK) console.log(new Date().toISOString(), 'answer shown');
    expect(streamed.some((line) => line.includes('Searching what customers said about “pricing”'))).toBe(true);
    expect(streamed.some((line) => line.startsWith('✓ '))).toBe(true);
    await shot('ask-answer');

    const caption = (await firstQuote.locator('figcaption').textContent()) ?? '';
    const words = (await firstQuote.locator('blockquote').textContent()) ?? '';
    const speaker = (await firstQuote.locator('.speaker').textContent()) ?? '';
    expect(caption).toMatch(/\d{1,2} [A-Z][a-z]{2,4} \d{4}/);
    const [stored] = await h.database.db
      .select({ answer: chatMessages.answer })
      .from(chatMessages)
      .where(eq(chatMessages.chatId, chatId));
    const firstBlock = (
      (stored?.answer?.content_blocks ?? []) as { kind: string; source?: { account: string | null } }[]
    )
      .filter((b) => b.kind === 'quote')
      .at(0);
    if (firstBlock?.source?.account) expect(caption).toContain(firstBlock.source.account);

    await firstQuote.getByRole('link', { name: 'Open the source' }).click();
    await page.waitForURL(/\/console\/interactions\/[0-9a-f-]{36}#turn-[0-9a-f-]{36}$/);
    const turnId = new URL(page.url()).hash.slice('#turn-'.length);
    const [turn] = await h.database.db
      .select({ text: transcriptTurns.text, speaker: transcriptTurns.speakerName })
      .from(transcriptTurns)
      .where(eq(transcriptTurns.id, turnId));
    expect(turn?.speaker).toBe(speaker);
    expect(turn?.text.replace(/\s+/g, ' ')).toContain(words.replace(/\s+/g, ' '));
    const target = await visible(page.locator(`[id="turn-${turnId}"]`));
    expect(await target.textContent()).toContain(turn?.text ?? '');
    await shot('interaction');
  }, 300_000);

  it('answers a paused run from the page, then continues the thread with a follow-up button', async () => {
    await askQuestion('prep me for my call with Acme');
    await page.waitForURL(/\/console\/ask\/threads\/[0-9a-f-]{36}$/);
    const threadUrl = page.url();
    await visible(page.getByRole('heading', { name: 'It needs you' }));
    await shot('ask-question');
    await page.getByLabel('Acme Logistics').check();
    await page.getByRole('button', { name: 'Answer' }).click();
    await visible(page.getByRole('heading', { name: 'Where things stand with Acme Logistics' }));
    expect(page.url().startsWith(threadUrl)).toBe(true);

    const followUp = page.locator('.follow-ups button').first();
    const asked = (await (await visible(followUp)).textContent()) ?? '';
    await followUp.click();
    await page.waitForURL(threadUrl);
    await visible(page.locator('.turn.user').nth(1));
    expect(await page.locator('.turn.user').nth(1).textContent()).toContain(asked);
    await page.locator('section.turn.assistant').nth(1).waitFor({ state: 'visible', timeout: RUN_WAIT });
    const chatId = threadUrl.split('/').pop() as string;
    const turns = await h.database.db
      .select({ role: chatMessages.role, content: chatMessages.content })
      .from(chatMessages)
      .where(eq(chatMessages.chatId, chatId))
      .orderBy(chatMessages.seq);
    expect(turns.filter((t) => t.role === 'user').map((t) => t.content)).toEqual([
      'prep me for my call with Acme',
      asked,
    ]);
    expect(turns.filter((t) => t.role === 'assistant')).toHaveLength(2);
  }, 300_000);

  it('starts a research job, watches it, and reads its sectioned report with citations', async () => {
    await askQuestion('Why do customers push back on pricing?', 'Research job');
    await page.waitForURL(/\/console\/research\/[0-9a-f-]{36}$/);
    await visible(page.getByRole('heading', { name: 'Report' }));
    await visible(page.getByRole('heading', { name: 'Summary' }));
    await visible(page.getByRole('heading', { name: 'What this rests on' }));
    expect(await page.locator('figure.quote a', { hasText: 'Open the source' }).count()).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'Report' }).scrollIntoViewIfNeeded();
    await shot('research-report', false);

    await page.goto(`${base}/console/ask`);
    await visible(page.getByRole('link', { name: 'What do customers say about pricing?' }), 10_000);
    await shot('ask');
  }, 300_000);
});
