import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { accounts } from '../../schema/index.js';
import { connectionsWorld, seedGong, START, type ConnectionsWorld } from '../connections/support.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { askEveryWay, expectAttributed } from '../support/quote-attribution.js';

/**
 * Every quote an answer shows names the account its interaction is on, whatever path the
 * interaction came in by (the demo corpus, a connector sync, the call webhook) and whichever answer
 * quotes it (POST /chat, POST /ask, a research job): the block's account, deal, date, speaker and side
 * are what an independent SQL read gives, and no prose line quoting it says "No linked account". The
 * CRM connectors and Bluesky are in quote-attribution-sources.test.ts.
 */

describe('the demo corpus (openCorpusDatabase)', () => {
  let h: Harness;
  let ws: SeededWorkspace;
  beforeAll(async () => {
    h = await createHarness({ database: await openCorpusDatabase() });
    ws = await h.corpusWorkspace();
  }, 120_000);
  afterAll(async () => {
    await h.close();
    await h.database.close();
  });

  it.each([
    'What do security teams ask for during reviews?',
    'Is anyone worried about switching from their current tool?',
  ])(
    'attributes every quote of chat, ask and research: %s',
    async (question) => {
      let quoted = 0;
      for (const answer of await askEveryWay(h, ws.editor.key, question))
        quoted += await expectAttributed(h.database.db, CORPUS_WORKSPACE_ID, answer);
      expect(quoted).toBeGreaterThan(10);
    },
    240_000,
  );
});

describe('a Gong sync (fake provider)', () => {
  let w: ConnectionsWorld;
  beforeAll(async () => {
    w = await connectionsWorld();
    seedGong(w.gong);
    await w.h.database.db
      .insert(accounts)
      .values({ id: newId(), workspaceId: w.ws.id, name: 'Acme Robotics', domain: 'acme.com', type: 'customer' });
    const res = await w.api('POST', '/connections', {
      body: { connector_type: 'gong', api_id: w.gong.accessKey, api_key: w.gong.secret },
    });
    expect(res.status, res.text).toBe(200);
    const decided = await w.api('PUT', `/connections/${res.body.data.connection.id}/call-filters`, {
      body: { enabled: true, external_only: true, exclude_domains: [] },
    });
    expect(decided.status, decided.text).toBe(200);
    await w.settle();
  }, 120_000);
  afterAll(async () => w?.close());

  it('attributes the synced calls’ quotes to the account their participants’ domain names', async () => {
    const key = (await w.ws.keyFor(w.ws.editor, 'internal_agent')).key;
    let quoted = 0;
    for (const answer of await askEveryWay(w.h, key, 'What did customers say about onboarding?'))
      quoted += await expectAttributed(w.h.database.db, w.ws.id, answer);
    expect(quoted).toBeGreaterThan(0);
  }, 240_000);
});

describe('the call webhook source', () => {
  let w: ConnectionsWorld;
  const at = (hours: number) => new Date(Date.parse(START) - hours * 3600_000).toISOString();
  // Enough calls, each with a long summary, that a lookup of their rows does not fit one tool result.
  const companies = Array.from({ length: 14 }, (_, i) => `Harbor${String.fromCharCode(65 + i)}`);
  beforeAll(async () => {
    w = await connectionsWorld();
    await w.h.database.db.insert(accounts).values(
      companies.map((c) => ({
        id: newId(),
        workspaceId: w.ws.id,
        name: `${c} Freight`,
        domain: `${c.toLowerCase()}.test`,
        type: 'customer' as const,
      })),
    );
    const res = await w.api('POST', '/connections', {
      body: { connector_type: 'call_webhook', display_name: 'Dialer', call_filters: { enabled: false } },
    });
    expect(res.status, res.text).toBe(200);
    const { url, secret } = res.body.data.ingest as { url: string; secret: string };
    for (const [i, company] of companies.entries()) {
      const body = JSON.stringify({
        items: [
          {
            type: 'call',
            id: `call-${i}`,
            title: `${company} renewal call`,
            started_at: at(30 + i * 24),
            duration_seconds: 1500,
            summary: `${company} reviewed the renewal and the pricing of the seats. `.repeat(20),
            participants: [
              { email: 'ae@seller.test', name: 'Ann AE', side: 'internal' },
              { email: `buyer@${company.toLowerCase()}.test`, name: `${company} Buyer`, side: 'external' },
            ],
            transcript: [
              { speaker_name: 'Ann AE', side: 'internal', start_seconds: 0, text: 'Shall we go over the renewal?' },
              {
                speaker_email: `buyer@${company.toLowerCase()}.test`,
                speaker_name: `${company} Buyer`,
                side: 'external',
                start_seconds: 6,
                text: `The pricing per seat is too expensive for our ${i + 2} regional teams. We need a discount before we renew.`,
              },
            ],
          },
        ],
      });
      const msgId = `msg_${i}`;
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
  afterAll(async () => w?.close());

  it('attributes the pushed calls’ quotes to the account of their external participant', async () => {
    const [linked] = await queryRows<{ n: number }>(
      w.h.database.db,
      sql`select count(*)::int as n from interactions where workspace_id = ${w.ws.id}::uuid and account_id is not null`,
    );
    expect(linked?.n).toBe(companies.length);
    const key = (await w.ws.keyFor(w.ws.editor, 'internal_agent')).key;
    let quoted = 0;
    for (const answer of await askEveryWay(w.h, key, 'Why do customers push back on pricing?'))
      quoted += await expectAttributed(w.h.database.db, w.ws.id, answer);
    expect(quoted).toBeGreaterThan(0);
  }, 240_000);
});
