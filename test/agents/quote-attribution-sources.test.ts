import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { queryRows } from '../../platform/db/port.js';
import { loadRun } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { connectionsWorld, seedGong, seedHubSpot, START, type ConnectionsWorld } from '../connections/support.js';
import { docxWithParagraphs, uploadFile } from '../knowledge/files.js';
import { FakeBluesky, FakeSalesforce } from '../support/fake-providers.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { askEveryWay, expectAttributed } from '../support/quote-attribution.js';

/**
 * Every quote names whose words it is, whichever connector brought the accounts and the
 * conversations in: a CRM connector's accounts (HubSpot, Salesforce) with the calls another source
 * brings (a Gong sync, the call webhook) linked to them by their participants' domain, and a social
 * source (Bluesky), whose threads are on no account. Each answer of POST /chat, POST /ask and POST
 * /research is read back quote by quote against SQL of this file (support/quote-attribution.ts): the
 * account (and deal), date, speaker and side. An uploaded document is quoted as the document it is
 * (its title as SQL has it): it holds no account or speaker. Google Calendar brings meetings without a
 * transcript or body, so nothing of them can be quoted.
 */

const daysBefore = (days: number) => new Date(Date.parse(START) - days * 86_400_000).toISOString();
const CALLBACK = '/api/platform/v1/connections/oauth/callback';

async function accountsOfSource(w: ConnectionsWorld, source: string): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    w.h.database.db,
    sql`select name from accounts where workspace_id = ${w.ws.id}::uuid and source = ${source} order by name`,
  );
  return rows.map((r) => r.name);
}

/** The accounts the quotes of some answers name. */
const quotedAccounts = (answers: Answer[]): Set<string | null> =>
  new Set(answers.flatMap((a) => a.content_blocks.flatMap((b) => (b.kind === 'quote' ? [b.source.account] : []))));

describe('HubSpot accounts, Gong calls', () => {
  let w: ConnectionsWorld;
  beforeAll(async () => {
    w = await connectionsWorld();
    seedHubSpot(w.hubspot);
    seedGong(w.gong);
    const crm = await w.api('POST', '/connections', { body: { connector_type: 'hubspot', api_key: w.hubspot.token } });
    expect(crm.status, crm.text).toBe(200);
    await w.settle();
    const calls = await w.api('POST', '/connections', {
      body: { connector_type: 'gong', api_id: w.gong.accessKey, api_key: w.gong.secret },
    });
    expect(calls.status, calls.text).toBe(200);
    const decided = await w.api('PUT', `/connections/${calls.body.data.connection.id}/call-filters`, {
      body: { enabled: true, external_only: true, exclude_domains: [] },
    });
    expect(decided.status, decided.text).toBe(200);
    await w.settle();
  }, 120_000);
  afterAll(async () => w?.close());

  it('names the HubSpot account of each quoted Gong call, with its speaker, side and date', async () => {
    const hubspotAccounts = await accountsOfSource(w, 'hubspot');
    expect(hubspotAccounts).toContain('Acme Robotics');
    const key = (await w.ws.keyFor(w.ws.editor, 'internal_agent')).key;
    const answers = await askEveryWay(w.h, key, 'What did customers say about onboarding?');
    let quoted = 0;
    for (const answer of answers) quoted += await expectAttributed(w.h.database.db, w.ws.id, answer);
    expect(quoted).toBeGreaterThan(0);
    expect([...quotedAccounts(answers)].some((a) => a !== null && hubspotAccounts.includes(a))).toBe(true);
  }, 240_000);
});

describe('Salesforce accounts, calls pushed to the call webhook', () => {
  let w: ConnectionsWorld;
  const salesforce = new FakeSalesforce();
  beforeAll(async () => {
    await salesforce.start();
    w = await connectionsWorld({
      SALESFORCE_CLIENT_ID: salesforce.auth.clientId,
      SALESFORCE_CLIENT_SECRET: salesforce.auth.clientSecret,
      SALESFORCE_LOGIN_URL: salesforce.url,
    });
    const record = (id: string, fields: Record<string, unknown>) => ({
      Id: id,
      CreatedDate: daysBefore(40),
      SystemModstamp: daysBefore(10),
      ...fields,
    });
    salesforce.objects.Account.push(
      record('001A', { Name: 'Umbrella Corp', Website: 'https://www.umbrella.test', Type: 'Customer - Direct' }),
      record('001B', { Name: 'Stark Industries', Website: 'stark.test', Type: 'Prospect' }),
    );
    salesforce.objects.Opportunity.push(
      record('006A', {
        Name: 'Umbrella renewal',
        StageName: 'Negotiation/Review',
        Amount: 250000,
        CloseDate: '2026-07-31',
        Probability: 90,
        IsClosed: false,
        IsWon: false,
        AccountId: '001A',
      }),
    );
    const crm = await w.api('POST', '/connections', { body: { connector_type: 'salesforce' } });
    expect(crm.status, crm.text).toBe(200);
    const { code, state } = salesforce.auth.consent(crm.body.data.authorize_url);
    expect((await w.h.fetch(`${CALLBACK}?${new URLSearchParams({ code, state })}`)).status).toBe(302);
    await w.settle();

    const hook = await w.api('POST', '/connections', {
      body: { connector_type: 'call_webhook', display_name: 'Dialer', call_filters: { enabled: false } },
    });
    expect(hook.status, hook.text).toBe(200);
    const { url, secret } = hook.body.data.ingest as { url: string; secret: string };
    const buyers = [
      [
        'umbrella.test',
        'Alice Wong',
        'Our security team needs the SOC 2 report and the penetration test before we sign.',
      ],
      [
        'stark.test',
        'Tony Stark',
        'Security review is the blocker: we need SSO and an audit log for every admin action.',
      ],
    ] as const;
    for (const [i, [domain, name, text]] of buyers.entries()) {
      const body = JSON.stringify({
        items: [
          {
            type: 'call',
            id: `sf-call-${i}`,
            title: `${name} security call`,
            started_at: daysBefore(3 + i),
            duration_seconds: 1200,
            participants: [
              { email: 'ae@seller.test', name: 'Ann AE', side: 'internal' },
              { email: `buyer@${domain}`, name, side: 'external' },
            ],
            transcript: [
              {
                speaker_name: 'Ann AE',
                side: 'internal',
                start_seconds: 0,
                text: 'Where are you on the security review?',
              },
              { speaker_email: `buyer@${domain}`, speaker_name: name, side: 'external', start_seconds: 5, text },
            ],
          },
        ],
      });
      const msgId = `msg_sf_${i}`;
      const pushed = await w.h.fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': msgId,
          'webhook-timestamp': String(Math.floor(w.clock.now().getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(msgId, w.clock.now(), body),
        },
        body,
      });
      expect(pushed.status, await pushed.text()).toBeLessThan(300);
    }
    await w.settle();
  }, 120_000);
  afterAll(async () => {
    await w?.close();
    await salesforce.stop();
  });

  it('names the Salesforce account of each quoted pushed call, with its speaker, side and date', async () => {
    const salesforceAccounts = await accountsOfSource(w, 'salesforce');
    expect(salesforceAccounts).toEqual(['Stark Industries', 'Umbrella Corp']);
    const [linked] = await queryRows<{ n: number }>(
      w.h.database.db,
      sql`select count(*)::int as n from interactions i join accounts a on a.id = i.account_id
          where i.workspace_id = ${w.ws.id}::uuid and a.source = 'salesforce'`,
    );
    expect(linked?.n).toBe(2);
    const key = (await w.ws.keyFor(w.ws.editor, 'internal_agent')).key;
    const answers = await askEveryWay(w.h, key, 'What do customers ask for in security reviews?');
    let quoted = 0;
    for (const answer of answers) quoted += await expectAttributed(w.h.database.db, w.ws.id, answer);
    expect(quoted).toBeGreaterThan(0);
    expect([...quotedAccounts(answers)].some((a) => a !== null && salesforceAccounts.includes(a))).toBe(true);
  }, 240_000);
});

describe('Bluesky threads', () => {
  let w: ConnectionsWorld;
  const bluesky = new FakeBluesky();
  beforeAll(async () => {
    await bluesky.start();
    const brand = { did: 'did:plc:acmebrand', handle: 'acme.com', displayName: 'Acme' };
    const dana = { did: 'did:plc:dana', handle: 'dana.bsky.social', displayName: 'Dana Diaz' };
    bluesky.accounts.push(brand, dana);
    const post = (rkey: string, author: { did: string }, text: string, days: number, parentUri?: string) => ({
      uri: `at://${author.did}/app.bsky.feed.post/${rkey}`,
      authorDid: author.did,
      text,
      createdAt: daysBefore(days),
      indexedAt: daysBefore(days),
      ...(parentUri ? { parentUri } : {}),
    });
    const launch = post('p1', brand, 'We just shipped EU data residency for every plan.', 3);
    bluesky.posts.push(
      launch,
      post('r1', dana, 'Finally! Our compliance team needed the data residency to stay in Frankfurt.', 2.9, launch.uri),
    );
    w = await connectionsWorld({ BLUESKY_API_BASE_URL: bluesky.url });
    const res = await w.api('POST', '/connections', {
      body: { connector_type: 'bluesky', account_handle: 'acme.com' },
    });
    expect(res.status, res.text).toBe(200);
    await w.settle();
  }, 120_000);
  afterAll(async () => {
    await w?.close();
    await bluesky.stop();
  });

  it('quotes a reply with its author, side and date, and the no account SQL gives', async () => {
    const key = (await w.ws.keyFor(w.ws.editor, 'internal_agent')).key;
    const answers = await askEveryWay(w.h, key, 'What do people say about data residency?');
    let quoted = 0;
    for (const answer of answers) quoted += await expectAttributed(w.h.database.db, w.ws.id, answer);
    expect(quoted).toBeGreaterThan(0);
  }, 240_000);
});

describe('an uploaded document', () => {
  let h: Harness;
  let ws: SeededWorkspace;
  const TITLE = 'Quokka Freight account plan';
  const FACT = 'Quokka Freight renews only after a procurement review by their harbour council.';
  beforeAll(async () => {
    h = await createHarness();
    ws = await h.seedWorkspace();
    const bytes = await docxWithParagraphs(TITLE, ['Quokka Freight ships refrigerated cargo.', FACT]);
    const writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
    const upload = await uploadFile(h, '/knowledge-base', writer, { bytes, name: 'quokka.docx' }, 'file', {
      title: TITLE,
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(202);
    for (let round = 0; round < 100; round++) {
      await (h.services.queue as LocalTransport).drain();
      const run = await loadRun(h.services.db, upload.body.data.run_id);
      if (run && ['complete', 'failed', 'canceled'].includes(run.status)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 120_000);
  afterAll(async () => h?.close());

  it('quotes it as the document it is, titled as SQL has it: an upload holds no account or speaker to name', async () => {
    const answers = await askEveryWay(
      h,
      ws.editor.key,
      'What does the harbour council procurement review mean for Quokka Freight?',
    );
    const quotes = answers.flatMap((a) => a.content_blocks.flatMap((b) => (b.kind === 'document_quote' ? [b] : [])));
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) {
      const [node] = await queryRows<{ text: string; title: string }>(
        h.database.db,
        sql`select n.text, g.title from knowledge_nodes n join document_groups g on g.id = n.document_group_id
            where n.document_group_id = ${q.source.document_group_id}::uuid and n.node_key = ${q.source.node_key}
              and g.workspace_id = ${ws.id}::uuid`,
      );
      expect(node?.text).toContain(q.text);
      expect(q.source.document_title).toBe(node?.title);
    }
    expect(quotes.map((q) => q.text)).toContain(FACT);
  }, 240_000);
});
