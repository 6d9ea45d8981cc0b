import type { Queryable } from '../../../../platform/db/port.js';
import type { PlannedPage } from '../../crm-ingest.js';
import { DEFAULT_COMMS_FILTER, domainOf, judgeCall, type CommsFilter } from '../../filters.js';
import {
  holdInteractions,
  linkRosters,
  releaseInteractions,
  writeInteractions,
  type InteractionDraft,
  type RosterMember,
} from '../../interaction-ingest.js';
import type { CalendarEvent } from './client.js';

/**
 * A member's calendar into the warehouse: each timed event with people on it becomes a `meeting`
 * interaction with its attendees (rooms and other resources left out). Who is internal: attendees
 * at the calendar owner's email domain. The comms filter applies as call filters do (exclusions
 * first, suffix-aware domains); without a saved one only meetings with someone from outside are
 * kept (a calendar is mostly internal meetings, which are not customer data). All-day events are
 * not meetings. Two members with the same meeting on their calendars sync one interaction: it is
 * keyed on the event's iCalUID (and, for an instance of a series, its original start), and each
 * calendar holds it (interaction_holders); a canceled event releases this calendar's hold, and the
 * meeting is removed once no calendar holds it.
 */
export const SOURCE = 'google_calendar';

const externalIdOf = (e: CalendarEvent): string => {
  const uid = e.iCalUID ?? e.id;
  const instance = e.originalStartTime?.dateTime ?? e.originalStartTime?.date;
  return instance ? `${uid}@${new Date(instance).toISOString()}` : uid;
};

function rosterOf(event: CalendarEvent, ownerDomain: string | null): RosterMember[] {
  return (event.attendees ?? [])
    .filter((a) => !a.resource)
    .map((a) => {
      const email = a.email?.trim().toLowerCase() || null;
      const domain = email ? domainOf(email) : null;
      return {
        name: a.displayName?.trim() || null,
        email,
        side: a.self || (ownerDomain !== null && domain === ownerDomain) ? 'internal' : 'external',
      };
    });
}

/** The calendar owner's domain, from the page itself (the attendee or organizer marked `self`), else the one remembered. */
export function ownerDomainOf(events: readonly CalendarEvent[], known: string | null): string | null {
  for (const e of events) {
    const self = e.attendees?.find((a) => a.self)?.email ?? (e.organizer?.self ? e.organizer.email : undefined);
    const domain = self ? domainOf(self.toLowerCase()) : null;
    if (domain) return domain;
  }
  return known;
}

export async function planCalendarPage(
  db: Queryable,
  target: { workspaceId: string; connectionId: string },
  events: readonly CalendarEvent[],
  filter: CommsFilter | undefined,
  ownerDomain: string | null,
): Promise<PlannedPage> {
  const { workspaceId, connectionId } = target;
  const rules = { enabled: true, reps: [], ...(filter ?? DEFAULT_COMMS_FILTER) };
  const canceled: string[] = [];
  const drafts: InteractionDraft[] = [];
  let skipped = 0;
  for (const e of events) {
    if (e.status === 'cancelled') {
      canceled.push(externalIdOf(e));
      continue;
    }
    const start = e.start?.dateTime;
    const end = e.end?.dateTime;
    if (!start) {
      skipped++;
      continue;
    }
    const roster = rosterOf(e, ownerDomain);
    if (!judgeCall(roster, rules).keep) {
      skipped++;
      continue;
    }
    const occurredAt = new Date(start);
    drafts.push({
      externalId: externalIdOf(e),
      kind: 'meeting',
      title: e.summary?.trim() || 'Untitled meeting',
      occurredAt,
      durationSeconds: end ? Math.max(0, Math.round((Date.parse(end) - occurredAt.getTime()) / 1000)) : null,
      summary: e.description?.trim().slice(0, 2000) || null,
      participants: roster,
    });
  }
  // A meeting that is filtered out now but was kept before (a filter changed) is left as it is: filters apply to what is synced from now on.
  const links = await linkRosters(
    db,
    workspaceId,
    drafts.map((d) => d.participants),
  );
  const latest = drafts.reduce<Date | null>((a, d) => (!a || d.occurredAt > a ? d.occurredAt : a), null);
  return {
    result: { written: drafts.length, skipped, latestEventAt: latest },
    write: async (tx) => {
      const written = await writeInteractions(tx, workspaceId, SOURCE, drafts, links);
      await holdInteractions(tx, workspaceId, connectionId, [...written.values()]);
      await releaseInteractions(tx, workspaceId, SOURCE, connectionId, canceled);
    },
  };
}
