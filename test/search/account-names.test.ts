import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import { accounts, interactions, transcriptTurns } from '../../schema/index.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { searchClient } from '../support/search-client.js';

/**
 * The fuzzy lane links the accounts a query names exactly before any account a letter away, and a
 * name it linked is who spoke, never words of the topic: account families whose names differ by
 * one character, each with a call that says the same words.
 */

const clock = new ManualClock('2026-11-20T12:00:00.000Z');
let h: Harness;
let ws: SeededWorkspace;
let client: ReturnType<typeof searchClient>;
const FAMILY = ['ES2004b Design', 'ES2004c Design', 'ES2011b Design', 'ES2011c Design'];
const callOf = new Map<string, string>();

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace('Account families');
  client = searchClient(h, clock, () => ws.viewer.key);
  for (const [i, name] of FAMILY.entries()) {
    const account = newId();
    const call = newId();
    const at = new Date(Date.parse('2026-11-01T10:00:00Z') + i * 3600_000);
    await h.database.db.insert(accounts).values({ id: account, workspaceId: ws.id, name, type: 'customer' });
    await h.database.db.insert(interactions).values({
      id: call,
      workspaceId: ws.id,
      kind: 'call',
      title: `${name} weekly`,
      accountId: account,
      occurredAt: at,
      source: 'gong',
    });
    await h.database.db.insert(transcriptTurns).values({
      id: newId(),
      workspaceId: ws.id,
      interactionId: call,
      turnIndex: 0,
      side: 'external',
      text: 'We still need to decide on the screen usage and the remote control design.',
      occurredAt: at,
    });
    callOf.set(name, call);
  }
});
afterAll(async () => h.close());

const resolved = (data: Awaited<ReturnType<typeof client.ok>>) =>
  data.detail.internal.plan!.accounts.map((a) => [a.asked, a.matched.map((m) => m.name)]);

describe('fuzzy lane: names that differ by one character', () => {
  it('takes the account named exactly over the one a letter away, in any case', async () => {
    for (const query of ['calls with ES2004c Design about the remote', 'calls with es2004c design about the remote']) {
      const data = await client.ok({ query, mode: 'fuzzy' });
      expect(resolved(data), query).toEqual([[expect.stringMatching(/^es2004c design$/i), ['ES2004c Design']]]);
      expect(
        data.results.map((r) => r.id),
        query,
      ).toEqual([callOf.get('ES2004c Design')]);
    }
  });

  it('searches the topic for the account a lower-case question names, the name never a search term', async () => {
    const data = await client.ok({
      query: 'what customers said about es2011c design decide screen usage',
      mode: 'fuzzy',
      max_subqueries: 1,
    });
    expect(resolved(data)).toEqual([['ES2011c Design', ['ES2011c Design']]]);
    const terms = data.detail.internal.plan!.subqueries.flatMap((sq) => sq.terms);
    expect(terms).toEqual(expect.arrayContaining(['decide', 'screen', 'usage']));
    expect(terms).not.toContain('es2011c');
    expect(terms).not.toContain('design');
  });
});
