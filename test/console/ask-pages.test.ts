import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { chatMessages, chats, runs, transcriptTurns, interactions, accounts } from '../../schema/index.js';
import { browse, type CookieJar, decodeHtml, formFields, signInWithLink } from '../support/console-session.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The Ask pages without a browser: asking (a chat run or a research job) through the console's
 * forms, POST-redirect-GET to the thread, the answer rendered server-side (quotes with speaker,
 * account, date and a working source link), a paused run answered from the page, follow-ups in the
 * same thread, the run's event stream behind the session, and the usual refusals: no session, a
 * forged or cross-site form, another workspace's ids. Facts are checked in the tables.
 */
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let editor: CookieJar;
let viewer: CookieJar;
let outsider: CookieJar;

const drain = () => (h.services.queue as LocalTransport).drain();
const html = async (res: Response) => decodeHtml(await res.text());

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Other Workspace');
  editor = await signInWithLink(h, ws.editor.email);
  viewer = await signInWithLink(h, ws.viewer.email);
  outsider = await signInWithLink(h, other.admin.email);
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

/** Ask through the page's own form, as the member would; returns where the browser is sent. */
async function ask(jar: CookieJar, fields: Record<string, string>): Promise<Response> {
  const page = await html(await browse(h, jar, '/console/ask'));
  return browse(h, jar, '/console/ask', { form: { ...formFields(page, '/console/ask'), ...fields } });
}

const chatIdFrom = (location: string | null) => /\/console\/ask\/threads\/([0-9a-f-]{36})$/.exec(location ?? '')?.[1];

describe('asking a question', () => {
  let chatId: string;

  it('needs a session: the page sends you to sign in, the event stream says 401', async () => {
    const res = await h.fetch('/console/ask', { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/sign-in?return_to=%2Fconsole%2Fask');
    const events = await h.fetch(`/console/ask/runs/${crypto.randomUUID()}/events`);
    expect(events.status).toBe(401);
  });

  it('starts a chat run and redirects to its thread (POST-redirect-GET), which renders the answer with its quotes', async () => {
    const res = await ask(editor, { input: 'What do customers say about pricing?', kind: 'chat' });
    expect(res.status).toBe(303);
    chatId = chatIdFrom(res.headers.get('location')) as string;
    expect(chatId).toBeDefined();
    const [chat] = await h.database.db.select().from(chats).where(eq(chats.id, chatId));
    expect(chat?.workspaceId).toBe(ws.id);
    expect(chat?.createdBy).toBe(ws.editor.userId);
    await drain();
    const [run] = await h.database.db
      .select()
      .from(runs)
      .where(eq(runs.id, chat?.lastRunId as string));
    expect(run?.status).toBe('complete');

    const res2 = await browse(h, editor, `/console/ask/threads/${chatId}`);
    // The page's script may read our own origin's event stream, and nothing else.
    expect(res2.headers.get('content-security-policy')).toContain("default-src 'none'; connect-src 'self';");
    const page = await html(res2);
    expect(page).toContain('What do customers say about pricing?');
    // Each quote: its words, the speaker, the account, the day, and a link to the turn it came from.
    const quotes = [
      ...page.matchAll(
        /<figure class="block quote \w+"><blockquote>([^<]+)<\/blockquote><figcaption>— <span class="speaker">([^<]+)<\/span>(?:, <span class="account">([^<]+)<\/span>)?, <time datetime="([^"]+)">[^<]+<\/time> · <a href="\/console\/interactions\/([0-9a-f-]{36})#turn-([0-9a-f-]{36})">Open the source<\/a>/g,
      ),
    ];
    expect(quotes.length).toBeGreaterThan(0);
    // Every quote block of the stored answer is on the page.
    const [stored] = await h.database.db
      .select({ answer: chatMessages.answer })
      .from(chatMessages)
      .where(and(eq(chatMessages.chatId, chatId), eq(chatMessages.role, 'assistant')));
    const blocks = (stored?.answer?.content_blocks ?? []) as { kind: string }[];
    expect(quotes.length).toBe(blocks.filter((b) => b.kind === 'quote').length);
    for (const [, text, speaker, account, occurredAt, interactionId, turnId] of quotes) {
      const [turn] = await h.database.db
        .select({
          text: transcriptTurns.text,
          speaker: transcriptTurns.speakerName,
          occurredAt: interactions.occurredAt,
          account: accounts.name,
        })
        .from(transcriptTurns)
        .innerJoin(interactions, eq(interactions.id, transcriptTurns.interactionId))
        .leftJoin(accounts, eq(accounts.id, interactions.accountId))
        .where(
          and(eq(transcriptTurns.id, turnId as string), eq(transcriptTurns.interactionId, interactionId as string)),
        );
      expect(turn?.text.replace(/\s+/g, ' ')).toContain((text as string).replace(/\s+/g, ' '));
      expect(turn?.speaker).toBe(speaker);
      // The answer names the account only when it is sure of it; a name it shows is the interaction's.
      if (account !== undefined) expect(turn?.account).toBe(account);
      expect(turn?.occurredAt.toISOString()).toBe(occurredAt);
    }
    // The run is over: no live panel, the follow-ups are buttons into this thread.
    expect(page).not.toContain('id="live-run"');
    expect(page).toMatch(/<h3>Ask next<\/h3>/);
    expect(formFields(page, '/console/ask')).toMatchObject({ chat_id: chatId });
  });

  it("the quote's source link opens the interaction with the quoted turn", async () => {
    const page = await html(await browse(h, editor, `/console/ask/threads/${chatId}`));
    const [, interactionId, turnId] = /href="\/console\/interactions\/([0-9a-f-]{36})#turn-([0-9a-f-]{36})"/.exec(
      page,
    ) as RegExpExecArray;
    const res = await browse(h, editor, `/console/interactions/${interactionId}`);
    expect(res.status).toBe(200);
    const transcript = await html(res);
    const [turn] = await h.database.db
      .select({ text: transcriptTurns.text })
      .from(transcriptTurns)
      .where(eq(transcriptTurns.id, turnId as string));
    const [interaction] = await h.database.db
      .select({ title: interactions.title })
      .from(interactions)
      .where(eq(interactions.id, interactionId as string));
    expect(transcript).toContain(`<h1>${interaction?.title}</h1>`);
    expect(transcript).toMatch(new RegExp(`id="turn-${turnId}">[\\s\\S]*?<p>${escapeRegExp(turn?.text ?? '')}</p>`));
  });

  it('a follow-up button asks its question in the same thread', async () => {
    const page = await html(await browse(h, editor, `/console/ask/threads/${chatId}`));
    const forms = [...page.matchAll(/<form method="post" action="\/console\/ask">([\s\S]*?)<\/form>/g)];
    const followUp = forms
      .map((f) => f[1] ?? '')
      .find((f) => f.includes('name="chat_id"') && f.includes('type="hidden" name="input"')) as string;
    const question = decodeHtml(/name="input" value="([^"]+)"/.exec(followUp)?.[1] ?? '');
    expect(question.length).toBeGreaterThan(0);
    const res = await browse(h, editor, '/console/ask', {
      form: { ...formFields(`<form action="/console/ask">${followUp}</form>`, '/console/ask') },
    });
    expect(res.status).toBe(303);
    expect(chatIdFrom(res.headers.get('location'))).toBe(chatId);
    await drain();
    const userTurns = await h.database.db
      .select({ content: chatMessages.content })
      .from(chatMessages)
      .where(and(eq(chatMessages.chatId, chatId), eq(chatMessages.role, 'user')))
      .orderBy(chatMessages.seq);
    expect(userTurns.map((t) => t.content)).toEqual(['What do customers say about pricing?', question]);
  });

  it("serves the run's events behind the session: tool labels, then the end", async () => {
    const [chat] = await h.database.db.select().from(chats).where(eq(chats.id, chatId));
    const res = await browse(h, editor, `/console/ask/runs/${chat?.lastRunId}/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const stream = await res.text();
    expect(stream).toMatch(/event: tool\.started\ndata: \{"seq":\d+,"type":"tool\.started"/);
    expect(stream).toContain('event: tool.completed');
    expect(stream.trim()).toMatch(/event: run\.completed\ndata: [^\n]+\nid: \d+$/);
  });

  it("lists a member's own threads, and everyone's on request", async () => {
    const mine = await html(await browse(h, viewer, '/console/ask'));
    expect(mine).toContain('Your threads');
    expect(mine).not.toContain(`/console/ask/threads/${chatId}`);
    const all = await html(await browse(h, viewer, '/console/ask?threads=all'));
    expect(all).toContain(`/console/ask/threads/${chatId}`);
    expect(await html(await browse(h, editor, '/console/ask'))).toContain(`/console/ask/threads/${chatId}`);
  });

  it('refuses a form without the CSRF token or from another site, and starts nothing', async () => {
    const before = await chatCount();
    const forged = await browse(h, editor, '/console/ask', { form: { input: 'forged question' } });
    expect(forged.status).toBe(403);
    const page = await html(await browse(h, editor, '/console/ask'));
    const crossSite = await browse(h, editor, '/console/ask', {
      form: { ...formFields(page, '/console/ask'), input: 'cross-site question' },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect(await chatCount()).toBe(before);
  });

  it("another workspace's thread, run, research job and interaction are 404, like missing ones", async () => {
    const [chat] = await h.database.db.select().from(chats).where(eq(chats.id, chatId));
    const [interaction] = await h.database.db
      .select({ id: interactions.id })
      .from(interactions)
      .where(eq(interactions.workspaceId, ws.id))
      .limit(1);
    for (const path of [
      `/console/ask/threads/${chatId}`,
      `/console/research/${chat?.lastRunId}`,
      `/console/interactions/${interaction?.id}`,
      '/console/ask/threads/not-a-uuid',
    ]) {
      const res = await browse(h, outsider, path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).toMatch(/<h1>No such (thread|research job|interaction)<\/h1>/);
    }
    expect((await browse(h, outsider, `/console/ask/runs/${chat?.lastRunId}/events`)).status).toBe(404);
    // Answering another workspace's run from a forged page changes nothing.
    const page = await html(await browse(h, outsider, '/console/ask'));
    const res = await browse(h, outsider, `/console/ask/runs/${chat?.lastRunId}/resume`, {
      form: { ...formFields(page, '/console/ask'), reply: 'question', response: 'Acme' },
    });
    expect(res.status).toBe(404);
  });
});

describe('a paused run answered from the page', () => {
  it('shows the question with its options, takes the choice, and answers about it', async () => {
    const res = await ask(editor, { input: 'prep me for my call with Acme', kind: 'chat', may_ask: 'yes' });
    const chatId = chatIdFrom(res.headers.get('location')) as string;
    await drain();
    const [chat] = await h.database.db.select().from(chats).where(eq(chats.id, chatId));
    const runId = chat?.lastRunId as string;
    expect((await h.database.db.select().from(runs).where(eq(runs.id, runId)))[0]?.status).toBe('awaiting_input');

    const page = await html(await browse(h, editor, `/console/ask/threads/${chatId}`));
    expect(page).toContain('<h2 id="pause-heading">It needs you</h2>');
    const logistics = /<input type="radio" name="option_id" value="([^"]+)"[^>]*\/?> Acme Logistics<\/label>/.exec(
      page,
    );
    expect(logistics).not.toBeNull();
    expect(page).toMatch(/> Acme Health<\/label>/);
    // No way to ask more while it waits: the continue box is not offered.
    expect(page).not.toContain('id="follow-up-input"');

    const action = `/console/ask/runs/${runId}/resume`;
    const answered = await browse(h, editor, action, {
      form: { ...formFields(page, action), option_id: logistics?.[1] as string },
    });
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toBe(`/console/ask/threads/${chatId}?notice=resumed`);
    await drain();
    const [run] = await h.database.db.select().from(runs).where(eq(runs.id, runId));
    expect(run?.status).toBe('complete');
    const done = await html(await browse(h, editor, `/console/ask/threads/${chatId}`));
    expect(done).toContain('Where things stand with Acme Logistics');
  });

  it('a viewer may not answer the run another member started: the operation refuses, the page says so', async () => {
    const res = await ask(editor, { input: 'what did Acme say about pricing?', kind: 'chat', may_ask: 'yes' });
    const chatId = chatIdFrom(res.headers.get('location')) as string;
    await drain();
    const [chat] = await h.database.db.select().from(chats).where(eq(chats.id, chatId));
    const page = await html(await browse(h, viewer, `/console/ask/threads/${chatId}`));
    const action = `/console/ask/runs/${chat?.lastRunId}/resume`;
    const refused = await browse(h, viewer, action, {
      form: { ...formFields(page, action), response: 'Acme Health' },
    });
    expect(refused.status).toBe(403);
    expect(await html(refused)).toContain('Only the member who started this run, or an editor or admin');
    const [run] = await h.database.db
      .select()
      .from(runs)
      .where(eq(runs.id, chat?.lastRunId as string));
    expect(run?.status).toBe('awaiting_input');
  });
});

describe('a research job', () => {
  it('starts from the same form, redirects to its page, and renders the sectioned report', async () => {
    const res = await ask(editor, {
      input: 'Why do customers push back on pricing?',
      kind: 'research',
      may_ask: 'yes',
    });
    expect(res.status).toBe(303);
    const id = /\/console\/research\/([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')?.[1] as string;
    const [run] = await h.database.db.select().from(runs).where(eq(runs.id, id));
    expect(run?.kind).toBe('research');
    expect(run?.workspaceId).toBe(ws.id);
    await drain();
    const page = await html(await browse(h, editor, `/console/research/${id}`));
    expect(page).toContain('<h2 id="report-heading">Report</h2>');
    for (const section of ['Summary', 'Evidence by theme', 'What this rests on'])
      expect(page).toMatch(new RegExp(`<h[34]>${section}</h[34]>`));
    expect(page).toMatch(/<a href="\/console\/interactions\/[0-9a-f-]{36}#turn-[0-9a-f-]{36}">Open the source<\/a>/);
    expect(page).toContain('<span class="badge ok">verified</span>');
  });
});

async function chatCount(): Promise<number> {
  const [row] = await h.database.db.select({ n: count() }).from(chats).where(eq(chats.workspaceId, ws.id));
  return row?.n ?? 0;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
