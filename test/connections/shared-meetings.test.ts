import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCalendarPage, SOURCE } from '../../functions/connections/connectors/google-calendar/ingest.js';
import type { CalendarEvent } from '../../functions/connections/connectors/google-calendar/client.js';
import { interactionHolders, interactions, participants } from '../../schema/index.js';
import { insertConnection } from '../security-fixtures/connections.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * One meeting on two members' calendars is one interaction held by both calendars: a cancellation
 * read from one of them (Google reports an attendee's removal the same way) releases only that
 * calendar's hold, and the meeting goes when the last calendar lets go.
 */
let h: Harness;
let ws: SeededWorkspace;
let aliceCalendar: string;
let bobCalendar: string;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('Shared calendars');
  aliceCalendar = await insertConnection(h, ws, 'google_calendar');
  bobCalendar = await insertConnection(h, ws, 'google_calendar');
});
afterAll(() => h.close());

const review = (self: 'alice' | 'bob'): CalendarEvent => ({
  id: `local-${self}`,
  iCalUID: 'review@google.com',
  status: 'confirmed',
  summary: 'Umbrella security review',
  start: { dateTime: '2026-03-02T15:00:00Z' },
  end: { dateTime: '2026-03-02T16:00:00Z' },
  attendees: [
    { email: 'alice@seller.test', self: self === 'alice' },
    { email: 'bob@seller.test', self: self === 'bob' },
    { email: 'carol@umbrella.test' },
  ],
});
const canceled = (self: 'alice' | 'bob'): CalendarEvent => ({
  id: `local-${self}`,
  iCalUID: 'review@google.com',
  status: 'cancelled',
});

async function sync(connectionId: string, events: CalendarEvent[]): Promise<void> {
  const planned = await planCalendarPage(
    h.database.db,
    { workspaceId: ws.id, connectionId },
    events,
    undefined,
    'seller.test',
  );
  await h.database.db.transaction((tx) => planned.write(tx));
}

const meetings = () =>
  h.database.db
    .select()
    .from(interactions)
    .where(and(eq(interactions.workspaceId, ws.id), eq(interactions.source, SOURCE)));
const holders = async () =>
  (await h.database.db.select().from(interactionHolders).where(eq(interactionHolders.workspaceId, ws.id)))
    .map((r) => r.connectionId)
    .sort();

describe('a meeting on two calendars', () => {
  it('syncs once, held by both calendars, with its attendees once', async () => {
    await sync(aliceCalendar, [review('alice')]);
    await sync(bobCalendar, [review('bob')]);
    await sync(aliceCalendar, [review('alice')]); // a repeated page changes nothing
    const rows = await meetings();
    expect(rows).toHaveLength(1);
    expect(await holders()).toEqual([aliceCalendar, bobCalendar].sort());
    expect(
      await h.database.db.select().from(participants).where(eq(participants.interactionId, rows[0]!.id)),
    ).toHaveLength(3);
  });

  it('stays while one calendar cancels it, and goes when the last one does', async () => {
    await sync(aliceCalendar, [canceled('alice')]);
    expect(await meetings()).toHaveLength(1);
    expect(await holders()).toEqual([bobCalendar]);
    await sync(aliceCalendar, [canceled('alice')]); // read again: still only Alice's hold released
    expect(await meetings()).toHaveLength(1);

    await sync(bobCalendar, [canceled('bob')]);
    expect(await meetings()).toHaveLength(0);
    expect(await holders()).toEqual([]);
  });

  it('comes back when a calendar shows it again', async () => {
    await sync(bobCalendar, [review('bob')]);
    expect(await meetings()).toHaveLength(1);
    expect(await holders()).toEqual([bobCalendar]);
  });
});
