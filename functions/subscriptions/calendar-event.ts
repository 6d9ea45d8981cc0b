import { and, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { accounts } from '../../schema/warehouse-accounts.js';
import type { CalendarEvent } from '../connections/index.js';
import type { CalendarEventUpcomingConfig } from './kinds.js';
import type { EventSnapshot } from './schemas.js';

/**
 * A Google Calendar event as a subscription sees it: its snapshot (what the ledger keeps and the
 * fired turn shows), whether the subscription's filters keep it, and the account its attendees'
 * email domains match.
 */

/** The event's start, for timed events only (an all-day event has no moment to fire before). */
export function startOf(event: CalendarEvent): Date | null {
  const at = event.start?.dateTime;
  if (!at) return null;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** Attendees that are people other than the calendar's owner (rooms and the owner left out). */
const guestsOf = (event: CalendarEvent) =>
  (event.attendees ?? []).filter((a) => !a.resource && !a.self && typeof a.email === 'string' && a.email.includes('@'));

export function snapshotOf(event: CalendarEvent, calendarId: string, start: Date): EventSnapshot {
  const end = event.end?.dateTime ? Date.parse(event.end.dateTime) : Number.NaN;
  return {
    id: event.id,
    title: event.summary?.trim() || '(no title)',
    start: start.toISOString(),
    end: Number.isNaN(end) ? null : new Date(end).toISOString(),
    calendar_id: calendarId,
    organizer: event.organizer?.email ?? null,
    attendees: (event.attendees ?? [])
      .filter((a) => !a.resource && typeof a.email === 'string')
      .map((a) => ({ email: a.email!, name: a.displayName ?? null })),
    account: null,
  };
}

/** Whether the subscription's filters keep the event (title text, attendees). */
export function matchesFilters(event: CalendarEvent, config: CalendarEventUpcomingConfig): boolean {
  if (config.summary_contains && !(event.summary ?? '').toLowerCase().includes(config.summary_contains.toLowerCase()))
    return false;
  if (config.require_attendees && guestsOf(event).length === 0) return false;
  return true;
}

const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/**
 * The account the meeting is with: the workspace's account whose domain the most attendees' email
 * domains match (the organizer counts as an attendee; ties go to the attendee listed first). Null
 * when no attendee's domain is an account's.
 */
export async function accountOf(
  db: Queryable,
  workspaceId: string,
  event: EventSnapshot,
): Promise<EventSnapshot['account']> {
  const emails = [...event.attendees.map((a) => a.email), ...(event.organizer ? [event.organizer] : [])];
  const domains = emails.map(domainOf).filter((d) => d.length > 0);
  if (domains.length === 0) return null;
  const candidates = await db
    .select({ id: accounts.id, name: accounts.name, domain: accounts.domain })
    .from(accounts)
    .where(and(eq(accounts.workspaceId, workspaceId), inArray(accounts.domain, [...new Set(domains)])));
  let best: { id: string; name: string; domain: string; votes: number; first: number } | null = null;
  for (const c of candidates) {
    if (!c.domain) continue;
    const votes = domains.filter((d) => d === c.domain).length;
    const first = domains.indexOf(c.domain);
    if (!best || votes > best.votes || (votes === best.votes && first < best.first))
      best = { id: c.id, name: c.name, domain: c.domain, votes, first };
  }
  return best ? { id: best.id, name: best.name, domain: best.domain } : null;
}

/** The fired turn: the subscription's prompt, then the event that woke it. */
export function turnFor(
  prompt: string,
  subscription: { name: string; leadMinutes: number },
  event: EventSnapshot,
  firedAt: Date,
  test = false,
): string {
  const minutes = Math.max(0, Math.round((Date.parse(event.start) - firedAt.getTime()) / 60_000));
  const people = event.attendees.map((a) => (a.name ? `${a.name} <${a.email}>` : a.email));
  return [
    prompt,
    '',
    '---',
    `${test ? 'TEST FIRE (a preview with a synthetic event, not a real occurrence). ' : ''}This run was started by the subscription "${subscription.name}" (calendar.event_upcoming, ${subscription.leadMinutes} minutes before the event).`,
    `Event: ${event.title}`,
    `Starts: ${event.start} (in ${minutes} minutes)${event.end ? `; ends ${event.end}` : ''}`,
    `Organizer: ${event.organizer ?? 'unknown'}`,
    `Attendees: ${people.length > 0 ? people.join(', ') : 'none'}`,
    `Account: ${
      event.account
        ? `${event.account.name} (${event.account.domain}, account ${event.account.id}), matched by attendee email domain`
        : 'none of the attendees’ email domains matches an account of this workspace'
    }`,
  ].join('\n');
}
