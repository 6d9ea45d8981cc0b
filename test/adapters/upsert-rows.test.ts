import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../functions/identity/members.js';
import { upsertRows } from '../../platform/db/upsert-rows.js';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { newId } from '../../platform/ids.js';
import { connections, deals, interactions, utterances, utteranceVectors } from '../../schema/index.js';
import { textHash } from '../../platform/text-hash.js';
import { openTestDatabase } from '../support/harness.js';

/**
 * The one-parameter upsert the syncs write pages with: what lands is what drizzle's own insert
 * would have written (timestamps, numerics, dates, booleans, jsonb, vectors, nulls), conflicts
 * update only the named columns (and only where told), and rows that disagree on their columns
 * are refused.
 */
let database: PgliteHandle;
let workspaceId: string;
beforeAll(async () => {
  database = await openTestDatabase();
  ({ workspaceId } = await createWorkspace(database.db, { name: 'upserts' }));
});
afterAll(async () => {
  await database.close();
});

const at = new Date('2026-03-04T05:06:07.890Z');
const deal = (externalId: string, overrides: Partial<typeof deals.$inferInsert> = {}): typeof deals.$inferInsert => ({
  id: newId(),
  workspaceId,
  accountId: null,
  name: `Deal ${externalId}`,
  stage: 'evaluation',
  amount: 1234.5,
  currency: 'EUR',
  closeDate: '2026-05-31',
  probability: 40,
  isClosed: false,
  isWon: false,
  source: 'crm',
  externalId,
  occurredAt: at,
  updatedAt: at,
  ...overrides,
});
const readDeal = async (externalId: string) => {
  const [row] = await database.db
    .select()
    .from(deals)
    .where(and(eq(deals.workspaceId, workspaceId), eq(deals.externalId, externalId)));
  return row;
};
const target = [deals.workspaceId, deals.source, deals.externalId];

describe('upsertRows', () => {
  it('writes the same values as drizzle’s insert, nulls included', async () => {
    await database.db.insert(deals).values(deal('by-drizzle', { name: 'Same' }));
    await upsertRows(
      database.db,
      deals,
      [
        deal('by-json', { name: 'Same' }),
        deal('nulls', { amount: null, currency: null, closeDate: null, probability: null }),
      ],
      { target },
    );
    const { id: _a, externalId: _b, ...viaDrizzle } = (await readDeal('by-drizzle'))!;
    const { id: _c, externalId: _d, ...viaJson } = (await readDeal('by-json'))!;
    expect(viaJson).toEqual(viaDrizzle);
    expect(viaJson).toMatchObject({ amount: 1234.5, closeDate: '2026-05-31', occurredAt: at, isClosed: false });
    expect(await readDeal('nulls')).toMatchObject({ amount: null, currency: null, closeDate: null, probability: null });
  });

  it('updates only the named columns on a match, keeps the row’s id, and honours updateWhere', async () => {
    const before = (await readDeal('by-json'))!;
    const later = new Date(at.getTime() + 60_000);
    await upsertRows(
      database.db,
      deals,
      [deal('by-json', { name: 'Renamed', amount: 99, currency: 'USD', updatedAt: later })],
      { target, update: ['name', 'amount', 'updatedAt'] },
    );
    expect(await readDeal('by-json')).toMatchObject({
      id: before.id,
      name: 'Renamed',
      amount: 99,
      currency: 'EUR',
      updatedAt: later,
    });
    // An older version does not overwrite a newer one.
    await upsertRows(database.db, deals, [deal('by-json', { name: 'Stale', updatedAt: at })], {
      target,
      update: ['name', 'updatedAt'],
      updateWhere: sql`excluded.updated_at > ${deals.updatedAt}`,
    });
    expect(await readDeal('by-json')).toMatchObject({ name: 'Renamed', updatedAt: later });
    // No columns to update: a match is left alone.
    await upsertRows(database.db, deals, [deal('by-json', { name: 'Ignored' })], { target });
    expect((await readDeal('by-json'))?.name).toBe('Renamed');
  });

  it('round-trips jsonb as JSON (not as a string) and vectors, and skips any conflict without a target', async () => {
    const id = newId();
    const row: typeof connections.$inferInsert = {
      id,
      workspaceId,
      connectorType: 'hubspot',
      status: 'connected',
      createdBy: newId(),
      caller: { kind: 'member', scopes: ['a', 'b'] },
      fields: { api_id: 'x' },
      config: { nested: { n: 1, ok: true } },
      cursors: {},
      nextSyncAt: null,
    };
    await upsertRows(database.db, connections, [row]);
    await upsertRows(database.db, connections, [{ ...row, caller: { changed: true } }]);
    const [stored] = await database.db.select().from(connections).where(eq(connections.id, id));
    expect(stored).toMatchObject({
      caller: { kind: 'member', scopes: ['a', 'b'] },
      fields: { api_id: 'x' },
      config: { nested: { n: 1, ok: true } },
      cursors: {},
      nextSyncAt: null,
    });
    expect(stored?.createdAt).toBeInstanceOf(Date); // left out, so the column's default applies

    const interactionId = newId();
    await database.db.insert(interactions).values({
      id: interactionId,
      workspaceId,
      kind: 'call',
      title: 'Call',
      occurredAt: at,
      source: 'crm',
      externalId: 'call-1',
    });
    const vector = Array.from({ length: 384 }, (_, i) => (i % 7) / 7 - 0.5);
    await upsertRows(database.db, utterances, [
      {
        id: newId(),
        workspaceId,
        interactionId,
        turnId: null,
        utteranceIndex: 0,
        side: 'external',
        speakerName: 'Buyer',
        text: 'We need SSO.',
        embedder: 'local',
        occurredAt: at,
      },
      {
        id: newId(),
        workspaceId,
        interactionId,
        turnId: null,
        utteranceIndex: 1,
        side: 'internal',
        speakerName: null,
        text: 'Noted.',
        embedder: null,
        occurredAt: at,
      },
    ]);
    await upsertRows(database.db, utteranceVectors, [
      { workspaceId, embedder: 'local', textHash: textHash('We need SSO.'), embedding: vector },
    ]);
    const stored2 = await database.db
      .select()
      .from(utterances)
      .where(eq(utterances.interactionId, interactionId))
      .orderBy(utterances.utteranceIndex);
    expect(stored2.map((u) => [u.text, u.embedder, u.speakerName])).toEqual([
      ['We need SSO.', 'local', 'Buyer'],
      ['Noted.', null, null],
    ]);
    // The generated column is left to the database, and agrees with the hash the writers compute.
    expect(stored2[0]?.textHash).toBe(textHash('We need SSO.'));
    const [storedVector] = await database.db
      .select()
      .from(utteranceVectors)
      .where(eq(utteranceVectors.workspaceId, workspaceId));
    expect(storedVector?.embedding.map((v) => Number(v.toFixed(5)))).toEqual(vector.map((v) => Number(v.toFixed(5))));
  });

  it('refuses rows that do not all set the same columns, writing none of them', async () => {
    const partial = deal('partial');
    delete (partial as Partial<typeof partial>).currency;
    await expect(upsertRows(database.db, deals, [deal('complete'), partial], { target })).rejects.toThrow(
      /every row must set "currency"/,
    );
    expect(await readDeal('complete')).toBeUndefined();
  });
});
