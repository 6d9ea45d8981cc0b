import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDueSyncs } from '../../functions/connections/sync.js';
import { newId } from '../../platform/ids.js';
import { queryRows } from '../../platform/db/port.js';
import { accounts, runs } from '../../schema/index.js';
import { connectionsWorld, type ConnectionsWorld } from '../connections/support.js';
import type { GongFakeCall } from '../support/fake-providers.js';

/**
 * A connection's sync that writes conversations rebuilds the workspace's lookalike centroids in its
 * last commit (one `lookalike.materialize` run per sync that changed the utterance store), so
 * `find` sees a new neighbour after the sync without the scheduled tick's lookalike step.
 */

const rep = {
  id: 'p-rep',
  emailAddress: 'rae@seller.test',
  name: 'Rae Rep',
  affiliation: 'Internal' as const,
  speakerId: 's-rep',
};
const call = (id: string, domain: string, daysAgo: number, lines: string[]): GongFakeCall => ({
  id,
  title: `${domain} call`,
  started: new Date(Date.parse('2026-06-01T12:00:00.000Z') - daysAgo * 86_400_000).toISOString(),
  duration: 1200,
  parties: [
    rep,
    { id: `p-${id}`, emailAddress: `buyer@${domain}`, name: 'Buyer', affiliation: 'External', speakerId: `s-${id}` },
  ],
  transcript: [
    { speakerId: 's-rep', sentences: [{ start: 0, end: 3000, text: 'Thanks for the time today.' }] },
    {
      speakerId: `s-${id}`,
      sentences: lines.map((text, i) => ({ start: 4000 + i * 5000, end: 8000 + i * 5000, text })),
    },
  ],
});

describe('lookalike centroids after a sync', () => {
  let w: ConnectionsWorld;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    w = await connectionsWorld();
    for (const [name, domain] of [
      ['Acme', 'acme.com'],
      ['Globex', 'globex.com'],
      ['Hooli', 'hooli.com'],
    ] as const) {
      ids[domain] = newId();
      await w.h.database.db.insert(accounts).values({ id: ids[domain] as string, workspaceId: w.ws.id, name, domain });
    }
    w.gong.calls.push(
      call('7001', 'acme.com', 4, ['Onboarding took far longer than we planned.', 'Data must stay in the EU.']),
      call('7002', 'globex.com', 3, ['The per seat price is above our budget.', 'Security review is slow.']),
    );
  }, 120_000);
  afterAll(async () => w?.close());

  const materializeRuns = () =>
    w.h.database.db
      .select()
      .from(runs)
      .where(and(eq(runs.workspaceId, w.ws.id), eq(runs.kind, 'lookalike.materialize')));
  const findAcme = () =>
    w.h.request('POST', '/lookalike', {
      key: w.ws.viewer.key,
      body: { entity_type: 'company', domain: 'acme.com', limit: 10 },
    });
  const neighbourIds = async () => {
    const res = await findAcme();
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.available, res.text).toBe(true);
    return res.body.data.matches.map((m: { entity_id: string }) => m.entity_id);
  };

  it('materializes on the first sync that writes conversations, then again after a sync brings a new account', async () => {
    const connected = await w.api('POST', '/connections', {
      body: { connector_type: 'gong', api_id: w.gong.accessKey, api_key: w.gong.secret },
    });
    expect(connected.status, connected.text).toBe(200);
    const connectionId = connected.body.data.connection.id;
    expect(await materializeRuns()).toHaveLength(0);
    // The filter decision starts the first sync; settling delivers it and what its commit started. No tick.
    const decided = await w.api('PUT', `/connections/${connectionId}/call-filters`, { body: { enabled: false } });
    expect(decided.status, decided.text).toBe(200);
    await w.settle();
    const first = await materializeRuns();
    expect(first.map((r) => r.status)).toEqual(['complete']);
    const before = await neighbourIds();
    expect(before).toContain(ids['globex.com']);
    expect(before).not.toContain(ids['hooli.com']);

    // A new customer's call arrives; the next scheduled sync (started without the tick's other steps) writes it.
    w.gong.calls.push(
      call('7003', 'hooli.com', 1, ['Onboarding took far longer than we planned.', 'Our data must stay in the EU.']),
    );
    await w.clock.advance(16 * 60_000);
    expect(await startDueSyncs(w.h.services, w.clock.now())).toBe(1);
    await w.settle();
    const second = await materializeRuns();
    expect(second.map((r) => r.status)).toEqual(['complete', 'complete']);
    const after = await neighbourIds();
    expect(after).toContain(ids['hooli.com']);
    const [hooli] = await queryRows<{ n: number }>(
      w.h.database.db,
      sql`select count(*)::int as n from utterances u join interactions i on i.id = u.interaction_id
          where u.workspace_id = ${w.ws.id} and u.side = 'external' and i.account_id = ${ids['hooli.com']}
            and u.embedder = ${w.h.services.embedder.id}`,
    );
    const res = await findAcme();
    const match = res.body.data.matches.find((m: { entity_id: string }) => m.entity_id === ids['hooli.com']);
    expect(match.member_count).toBe(hooli?.n);

    // A sync that writes nothing new starts no materialization (idempotent: the store did not change).
    await w.clock.advance(16 * 60_000);
    expect(await startDueSyncs(w.h.services, w.clock.now())).toBe(1);
    await w.settle();
    expect(await materializeRuns()).toHaveLength(2);
  });
});
