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
