import { z } from 'zod';
import { errorForStatus, ProviderError, retryAfterOf } from '../../provider-errors.js';
import type { OAuthSession } from '../../oauth-client.js';

/**
 * A Google Calendar client, written against the Calendar API v3 reference: `events.list` on the
 * primary calendar with `singleEvents=true` (recurring meetings as their instances), 250 a page by
 * `pageToken`; a full read from `timeMin`, then incremental reads with the `nextSyncToken` the last
 * page of a read returns (changed and canceled events only). An expired sync token answers 410
 * Gone: the read starts over in full. Quota errors are 403 `rateLimitExceeded` /
 * `userRateLimitExceeded` or 429.
 */
const Attendee = z
  .object({
    email: z.string().optional(),
    displayName: z.string().optional(),
    self: z.boolean().optional(),
    organizer: z.boolean().optional(),
    resource: z.boolean().optional(),
  })
  .passthrough();
const When = z.object({ dateTime: z.string().optional(), date: z.string().optional() }).passthrough();
const Event = z
  .object({
    id: z.string(),
    status: z.string().optional(),
    summary: z.string().optional(),
    description: z.string().optional(),
    iCalUID: z.string().optional(),
    start: When.optional(),
    end: When.optional(),
    originalStartTime: When.optional(),
    attendees: z.array(Attendee).optional(),
    organizer: z.object({ email: z.string().optional(), self: z.boolean().optional() }).passthrough().optional(),
  })
  .passthrough();
const EventsPage = z.object({
  items: z.array(Event).default([]),
  nextPageToken: z.string().optional(),
  nextSyncToken: z.string().optional(),
});
const GoogleError = z.object({
  error: z.object({ errors: z.array(z.object({ reason: z.string() })).optional() }).passthrough(),
});

export type CalendarEvent = z.infer<typeof Event>;

/** Where the events stream's next page starts: a full read from `timeMin`, or an incremental one from `syncToken`. */
export interface CalendarCursor {
  timeMin: string | null;
  syncToken: string | null;
  pageToken: string | null;
}

/** The sync token expired: the caller starts a full read again. */
export class SyncTokenExpired extends Error {
  override name = 'SyncTokenExpired';
}

export class GoogleCalendarClient {
  constructor(
    private readonly session: OAuthSession,
    private readonly baseUrl: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async page(
    cursor: CalendarCursor,
  ): Promise<{ events: CalendarEvent[]; nextPageToken: string | null; nextSyncToken: string | null }> {
    const params = new URLSearchParams({ singleEvents: 'true', maxResults: '250' });
    if (cursor.syncToken) params.set('syncToken', cursor.syncToken);
    else {
      params.set('showDeleted', 'false');
      if (cursor.timeMin) params.set('timeMin', cursor.timeMin);
    }
    if (cursor.pageToken) params.set('pageToken', cursor.pageToken);
    const response = await this.session.fetch(
      `${this.baseUrl.replace(/\/+$/, '')}/calendar/v3/calendars/primary/events?${params}`,
    );
    const text = await response.text();
    if (response.status === 410) throw new SyncTokenExpired('the sync token expired');
    if (!response.ok) throw this.#error(response, text);
    let parsed: z.infer<typeof EventsPage>;
    try {
      parsed = EventsPage.parse(JSON.parse(text));
    } catch {
      throw new ProviderError(
        'unknown',
        'Google Calendar sent a page of events in an unexpected shape; it will be read again.',
      );
    }
    return {
      events: parsed.items,
      nextPageToken: parsed.nextPageToken ?? null,
      nextSyncToken: parsed.nextSyncToken ?? null,
    };
  }

  /**
   * The events of one calendar that overlap a window (`events.list` with `timeMin`/`timeMax`, its
   * pages read to the end), recurring meetings as their instances and cancelled ones included
   * (`showDeleted`), so a watcher sees a cancellation as well as a new start time.
   */
  async window(calendarId: string, timeMin: Date, timeMax: Date): Promise<CalendarEvent[]> {
    const events: CalendarEvent[] = [];
    let pageToken: string | null = null;
    do {
      const params = new URLSearchParams({
        singleEvents: 'true',
        showDeleted: 'true',
        orderBy: 'startTime',
        maxResults: '250',
        timeMin: timeMin.toISOString(),
        timeMax: timeMax.toISOString(),
      });
      if (pageToken) params.set('pageToken', pageToken);
      const response = await this.session.fetch(`${this.#eventsUrl(calendarId)}?${params}`);
      const text = await response.text();
      if (!response.ok) throw this.#error(response, text);
      const parsed = EventsPage.safeParse(safeJson(text));
      if (!parsed.success)
        throw new ProviderError('unknown', 'Google Calendar sent a page of events in an unexpected shape.');
      events.push(...parsed.data.items);
      pageToken = parsed.data.nextPageToken ?? null;
    } while (pageToken);
    return events;
  }

  /** One event by id (`events.get`); null when Google no longer has it (404, 410). */
  async event(calendarId: string, eventId: string): Promise<CalendarEvent | null> {
    const response = await this.session.fetch(`${this.#eventsUrl(calendarId)}/${encodeURIComponent(eventId)}`);
    const text = await response.text();
    if (response.status === 404 || response.status === 410) return null;
    if (!response.ok) throw this.#error(response, text);
    const parsed = Event.safeParse(safeJson(text));
    if (!parsed.success) throw new ProviderError('unknown', 'Google Calendar sent an event in an unexpected shape.');
    return parsed.data;
  }

  #eventsUrl(calendarId: string): string {
    return `${this.baseUrl.replace(/\/+$/, '')}/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events`;
  }

  #error(response: Response, text: string): ProviderError {
    let reasons: string[] = [];
    try {
      reasons = (GoogleError.parse(JSON.parse(text)).error.errors ?? []).map((e) => e.reason);
    } catch {
      reasons = [];
    }
    const retryAfter = retryAfterOf(response.headers.get('retry-after'), this.now());
    if (response.status === 403 && reasons.some((r) => r === 'rateLimitExceeded' || r === 'userRateLimitExceeded')) {
      return new ProviderError('rate_limit', 'Google Calendar asked this connection to slow down.', retryAfter ?? 60);
    }
    return errorForStatus('Google Calendar', response.status, retryAfter);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
