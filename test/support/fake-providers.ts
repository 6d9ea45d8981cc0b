import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for HubSpot and Gong, implementing what the clients rely on from the providers'
 * public API references: auth (HubSpot private-app bearer tokens, Gong Basic access key:secret),
 * paging (HubSpot `after` offsets with its 10,000-result search window, Gong `records.cursor` in the
 * JSON body), HubSpot's GTE filter and ascending sort on hs_lastmodifieddate, Gong's 404 for an
 * empty range, and error shapes. Failures are injected per route: a 429 with Retry-After, a 401, a
 * 5xx, a malformed page. Every request is logged for assertions.
 */

export interface Injected {
  status: number;
  headers?: Record<string, string>;
  /** Sent as is (a malformed page is a 200 with a body that is not the documented shape). */
  body?: unknown;
}

interface Logged {
  method: string;
  path: string;
  /** The query string, `?` included (empty when none). */
  query: string;
  body: unknown;
  authorization: string | undefined;
}

abstract class FakeServer {
  readonly requests: Logged[] = [];
  #server: Server | null = null;
  readonly #failures = new Map<string, Injected[]>();
  url = '';

  async start(): Promise<this> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  /** The next `times` requests to a route (e.g. `search:deals`, `calls`) answer with this instead. */
  failNext(route: string, failure: Injected, times = 1): void {
    const queue = this.#failures.get(route) ?? [];
    for (let i = 0; i < times; i++) queue.push(failure);
    this.#failures.set(route, queue);
  }

  count(route: (l: Logged) => boolean): number {
    return this.requests.filter(route).length;
  }

  protected abstract route(method: string, path: string): string;
  protected abstract authorized(authorization: string | undefined): boolean;
  protected abstract respond(route: string, body: unknown, url: URL): { status: number; body: unknown };

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      body,
      authorization: req.headers.authorization,
    });
    const route = this.route(req.method ?? 'GET', url.pathname);
    const injected = this.#failures.get(route)?.shift();
    if (injected) return send(res, injected.status, injected.body ?? { message: 'injected failure' }, injected.headers);
    if (!this.isPublic(route) && !this.authorized(req.headers.authorization))
      return send(res, 401, this.unauthorizedBody());
    const answer = this.respond(route, body, url);
    send(res, answer.status, answer.body);
  }

  protected abstract unauthorizedBody(): unknown;

  /** Routes that authenticate in their body (a token endpoint), not with the API's Authorization header. */
  protected isPublic(_route: string): boolean {
    return false;
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

export interface HubSpotFakeRecord {
  id: string;
  properties: Record<string, string | null>;
}

/** HubSpot CRM v3 search, v4 associations, account info. */
export class FakeHubSpot extends FakeServer {
  token = 'pat-na1-fake-token';
  readonly objects: Record<'companies' | 'contacts' | 'deals', HubSpotFakeRecord[]> = {
    companies: [],
    contacts: [],
    deals: [],
  };
  /** deal id → company id */
  readonly dealCompany = new Map<string, string>();

  protected route(method: string, path: string): string {
    const search = /^\/crm\/v3\/objects\/(companies|contacts|deals)\/search$/.exec(path);
    if (method === 'POST' && search) return `search:${search[1]}`;
    if (method === 'POST' && path === '/crm/v4/associations/deals/companies/batch/read') return 'associations';
    if (method === 'GET' && path === '/account-info/v3/details') return 'account';
    return 'unknown';
  }

  protected authorized(authorization: string | undefined): boolean {
    return authorization === `Bearer ${this.token}`;
  }

  protected unauthorizedBody(): unknown {
    return {
      status: 'error',
      message: 'Authentication credentials not found. This API supports OAuth 2.0 authentication.',
      category: 'INVALID_AUTHENTICATION',
      correlationId: 'fake',
    };
  }

  #sorted = new Map<
    string,
    { records: HubSpotFakeRecord[]; properties: object[]; sorted: { r: HubSpotFakeRecord; at: number }[] }
  >();

  /**
   * The records of an object in search order, sorted once and reused while no record was added,
   * removed or given new properties (tests replace `properties` to modify a record): a bench
   * pages through 50,000 records here, and the fake's own time should not be the sync's.
   */
  private sortedByModified(object: keyof FakeHubSpot['objects']): { r: HubSpotFakeRecord; at: number }[] {
    const records = this.objects[object];
    const cached = this.#sorted.get(object);
    if (
      cached &&
      cached.records.length === records.length &&
      records.every((r, i) => r === cached.records[i] && r.properties === cached.properties[i])
    )
      return cached.sorted;
    const sorted = records
      .map((r) => ({ r, at: modified(r) }))
      .sort((a, b) => a.at - b.at || Number(a.r.id) - Number(b.r.id));
    this.#sorted.set(object, { records: [...records], properties: records.map((r) => r.properties), sorted });
    return sorted;
  }

  protected respond(route: string, body: unknown): { status: number; body: unknown } {
    if (route === 'account')
      return {
        status: 200,
        body: {
          portalId: 4242,
          accountType: 'STANDARD',
          timeZone: 'US/Eastern',
          companyCurrency: 'USD',
          uiDomain: 'app.hubspot.com',
        },
      };
    if (route === 'associations') {
      const inputs = (body as { inputs?: { id: string }[] }).inputs ?? [];
      return {
        status: 200,
        body: {
          status: 'COMPLETE',
          results: inputs.map((i) => ({
            from: { id: i.id },
            to: this.dealCompany.has(i.id)
              ? [
                  {
                    toObjectId: Number(this.dealCompany.get(i.id)),
                    associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 5, label: null }],
                  },
                ]
              : [],
          })),
        },
      };
    }
    if (route.startsWith('search:')) {
      const object = route.slice('search:'.length) as keyof FakeHubSpot['objects'];
      const request = body as {
        filterGroups?: { filters: { propertyName: string; operator: string; value: string }[] }[];
        limit?: number;
        after?: string;
      };
      const since = request.filterGroups?.[0]?.filters.find(
        (f) => f.propertyName === 'hs_lastmodifieddate' && f.operator === 'GTE',
      )?.value;
      const limit = Math.min(request.limit ?? 10, 200);
      const after = Number(request.after ?? 0);
      if (after + limit > 10_000)
        return {
          status: 400,
          body: { status: 'error', message: 'Cannot page past 10000 results', category: 'VALIDATION_ERROR' },
        };
      const sorted = this.sortedByModified(object);
      const from = since ? firstAtOrAfter(sorted, Number(since)) : 0;
      const total = sorted.length - from;
      const page = sorted.slice(from + after, from + after + limit).map((x) => x.r);
      const more = after + limit < total;
      return {
        status: 200,
        body: {
          total,
          results: page.map((r) => ({
            id: r.id,
            properties: { hs_object_id: r.id, ...r.properties },
            createdAt: r.properties.createdate,
            updatedAt: r.properties.hs_lastmodifieddate,
            archived: false,
          })),
          ...(more ? { paging: { next: { after: String(after + limit), link: `?after=${after + limit}` } } } : {}),
        },
      };
    }
    return { status: 404, body: { status: 'error', message: 'not found', category: 'OBJECT_NOT_FOUND' } };
  }
}

/** The first index whose time is at or after `ms`, in records sorted by time. */
function firstAtOrAfter(sorted: readonly { at: number }[], ms: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as { at: number }).at < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Parsed times by their text (a pure function, so records edited in place stay right): a bench pages through 50,000 records here. */
const parsedTimes = new Map<string, number>();
const modified = (r: HubSpotFakeRecord): number => {
  const text = r.properties.hs_lastmodifieddate ?? '1970-01-01T00:00:00Z';
  let ms = parsedTimes.get(text);
  if (ms === undefined) {
    if (parsedTimes.size > 200_000) parsedTimes.clear();
    ms = Date.parse(text);
    parsedTimes.set(text, ms);
  }
  return ms;
};

export interface GongFakeCall {
  id: string;
  title: string;
  started: string;
  duration: number;
  brief?: string;
  parties: {
    id: string;
    emailAddress?: string;
    name?: string;
    affiliation: 'Internal' | 'External' | 'Unknown';
    speakerId?: string;
    userId?: string;
  }[];
  /** Monologues; absent when Gong has no transcript for the call yet. */
  transcript?: { speakerId: string; topic?: string; sentences: { start: number; end: number; text: string }[] }[];
}

/** Gong API v2: users, calls/extensive, calls/transcript. */
export class FakeGong extends FakeServer {
  accessKey = 'GONGKEY';
  secret = 'gong-secret';
  pageSize = 100;
  readonly calls: GongFakeCall[] = [];

  protected route(method: string, path: string): string {
    if (method === 'GET' && path === '/v2/users') return 'users';
    if (method === 'POST' && path === '/v2/calls/extensive') return 'calls';
    if (method === 'POST' && path === '/v2/calls/transcript') return 'transcript';
    return 'unknown';
  }

  protected authorized(authorization: string | undefined): boolean {
    return authorization === `Basic ${Buffer.from(`${this.accessKey}:${this.secret}`).toString('base64')}`;
  }

  protected unauthorizedBody(): unknown {
    return { requestId: 'fake', errors: ['Authentication failed'] };
  }

  protected respond(route: string, body: unknown): { status: number; body: unknown } {
    const request = (body ?? {}) as { cursor?: string; filter?: { fromDateTime?: string; callIds?: string[] } };
    if (route === 'users') {
      return {
        status: 200,
        body: {
          requestId: 'fake',
          records: { totalRecords: 1, currentPageSize: 1, currentPageNumber: 0 },
          users: [{ id: 'u1', emailAddress: 'rep@seller.test', firstName: 'Rae', lastName: 'Rep' }],
        },
      };
    }
    if (route === 'calls') {
      const from = request.filter?.fromDateTime ? Date.parse(request.filter.fromDateTime) : 0;
      const matching = this.calls
        .filter((c) => Date.parse(c.started) >= from)
        .sort((a, b) => a.started.localeCompare(b.started) || a.id.localeCompare(b.id));
      if (matching.length === 0)
        return {
          status: 404,
          body: { requestId: 'fake', errors: ['No calls found corresponding to the provided filters'] },
        };
      const offset = request.cursor ? Number(Buffer.from(request.cursor, 'base64').toString('utf8')) : 0;
      const page = matching.slice(offset, offset + this.pageSize);
      const next =
        offset + this.pageSize < matching.length
          ? Buffer.from(String(offset + this.pageSize)).toString('base64')
          : undefined;
      return {
        status: 200,
        body: {
          requestId: 'fake',
          records: {
            totalRecords: matching.length,
            currentPageSize: page.length,
            currentPageNumber: offset / this.pageSize,
            ...(next ? { cursor: next } : {}),
          },
          calls: page.map((c) => ({
            metaData: {
              id: c.id,
              url: `https://app.gong.io/call?id=${c.id}`,
              title: c.title,
              started: c.started,
              duration: c.duration,
              system: 'Zoom',
              scope: 'External',
              direction: 'Conference',
              media: 'Video',
              language: 'eng',
            },
            parties: c.parties.map((p) => ({ ...p, context: [] })),
            content: c.brief ? { brief: c.brief } : {},
          })),
        },
      };
    }
    if (route === 'transcript') {
      const ids = new Set(request.filter?.callIds ?? []);
      const found = this.calls.filter((c) => ids.has(c.id) && c.transcript);
      if (found.length === 0)
        return {
          status: 404,
          body: { requestId: 'fake', errors: ['No calls found corresponding to the provided filters'] },
        };
      return {
        status: 200,
        body: {
          requestId: 'fake',
          records: { totalRecords: found.length, currentPageSize: found.length, currentPageNumber: 0 },
          callTranscripts: found.map((c) => ({ callId: c.id, transcript: c.transcript })),
        },
      };
    }
    return { status: 404, body: { requestId: 'fake', errors: ['not found'] } };
  }
}

/**
 * The authorization side of an OAuth provider as a confidential client meets it: a consent (the
 * test plays the person) issues a one-time code bound to the PKCE challenge; the token endpoint
 * takes it with the client secret and the verifier, and later refresh tokens. Access tokens can be
 * expired at will to exercise a refresh.
 */
class FakeAuthority {
  clientId = 'fake-client-id';
  clientSecret = 'fake-client-secret';
  readonly codes = new Map<string, { challenge: string; redirectUri: string }>();
  accessToken = 'access-1';
  refreshToken = 'refresh-1';
  private issued = 1;

  /** The person consents on the provider's page: read the authorize URL, get the code the provider would redirect with. */
  consent(authorizeUrl: string): { code: string; state: string; redirectUri: string } {
    const url = new URL(authorizeUrl);
    const challenge = url.searchParams.get('code_challenge') ?? '';
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    const code = `code-${this.codes.size + 1}-${Math.random().toString(36).slice(2)}`;
    this.codes.set(code, { challenge, redirectUri });
    return { code, state: url.searchParams.get('state') ?? '', redirectUri };
  }

  expireAccessToken(): void {
    this.accessToken = `access-${++this.issued}`;
  }

  /** The token endpoint (form-encoded), answering like RFC 6749 §5. */
  token(form: URLSearchParams, extra: Record<string, unknown>): { status: number; body: unknown } {
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret)
      return { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } };
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!grant || grant.challenge !== challenge || grant.redirectUri !== form.get('redirect_uri'))
        return { status: 400, body: { error: 'invalid_grant', error_description: 'authorization code is invalid' } };
      return {
        status: 200,
        body: { access_token: this.accessToken, refresh_token: this.refreshToken, token_type: 'Bearer', ...extra },
      };
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (form.get('refresh_token') !== this.refreshToken)
        return {
          status: 400,
          body: { error: 'invalid_grant', error_description: 'token has been expired or revoked' },
        };
      this.accessToken = `access-${++this.issued}`;
      return { status: 200, body: { access_token: this.accessToken, token_type: 'Bearer', ...extra } };
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }
}

const formOf = (body: unknown): URLSearchParams => new URLSearchParams(typeof body === 'string' ? body : '');

/** Salesforce: the OAuth token endpoint on the login host and the REST query API on the instance (one server here). */
export class FakeSalesforce extends FakeServer {
  readonly auth = new FakeAuthority();
  batchSize = 200;
  readonly objects: Record<'Account' | 'Contact' | 'Opportunity', Record<string, unknown>[]> = {
    Account: [],
    Contact: [],
    Opportunity: [],
  };
  readonly #cursors = new Map<string, { rows: Record<string, unknown>[]; offset: number }>();
  /** The SOQL of every query, in order. */
  readonly soql: string[] = [];

  protected route(method: string, path: string): string {
    if (method === 'POST' && path === '/services/oauth2/token') return 'token';
    if (method === 'GET' && path === '/services/data/v60.0/query') return 'query';
    if (method === 'GET' && path.startsWith('/services/data/v60.0/query/')) return 'more';
    return 'unknown';
  }

  protected authorized(authorization: string | undefined): boolean {
    return authorization === `Bearer ${this.auth.accessToken}`;
  }

  protected override isPublic(route: string): boolean {
    return route === 'token';
  }

  protected unauthorizedBody(): unknown {
    return [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }];
  }

  protected respond(route: string, body: unknown, url: URL): { status: number; body: unknown } {
    if (route === 'token')
      return this.auth.token(formOf(body), {
        instance_url: this.url,
        id: `${this.url}/id/00D/005`,
        issued_at: String(Date.now()),
        signature: 'sig',
      });
    if (route === 'query') {
      const q = url.searchParams.get('q') ?? '';
      this.soql.push(q);
      const object = /FROM (\w+)/.exec(q)?.[1] as keyof FakeSalesforce['objects'] | undefined;
      if (!object || !this.objects[object])
        return {
          status: 400,
          body: [{ message: `sObject type '${object}' is not supported.`, errorCode: 'INVALID_TYPE' }],
        };
      const since = /WHERE SystemModstamp >= (\S+)/.exec(q)?.[1];
      const rows = this.objects[object]
        .filter((r) => !since || Date.parse(String(r.SystemModstamp)) >= Date.parse(since))
        .sort(
          (a, b) =>
            Date.parse(String(a.SystemModstamp)) - Date.parse(String(b.SystemModstamp)) ||
            String(a.Id).localeCompare(String(b.Id)),
        );
      return this.#batch(rows, 0);
    }
    if (route === 'more') {
      const key = url.pathname.split('/').pop() ?? '';
      const cursor = this.#cursors.get(key);
      if (!cursor)
        return { status: 400, body: [{ message: 'invalid query locator', errorCode: 'INVALID_QUERY_LOCATOR' }] };
      return this.#batch(cursor.rows, cursor.offset);
    }
    return { status: 404, body: [{ message: 'not found', errorCode: 'NOT_FOUND' }] };
  }

  #batch(rows: Record<string, unknown>[], offset: number): { status: number; body: unknown } {
    const records = rows
      .slice(offset, offset + this.batchSize)
      .map((r) => ({ attributes: { type: 'x', url: `/services/data/v60.0/sobjects/x/${String(r.Id)}` }, ...r }));
    const done = offset + this.batchSize >= rows.length;
    let nextRecordsUrl: string | undefined;
    if (!done) {
      const key = `01gFAKE-${this.#cursors.size + 1}-${offset + this.batchSize}`;
      this.#cursors.set(key, { rows, offset: offset + this.batchSize });
      nextRecordsUrl = `/services/data/v60.0/query/${key}`;
    }
    return {
      status: 200,
      body: { totalSize: rows.length, done, records, ...(nextRecordsUrl ? { nextRecordsUrl } : {}) },
    };
  }
}

export interface FakeCalendarEvent {
  id: string;
  status?: 'confirmed' | 'cancelled';
  summary?: string;
  description?: string;
  iCalUID?: string;
  start?: { dateTime?: string; date?: string };
  end?: { dateTime?: string; date?: string };
  attendees?: { email?: string; displayName?: string; self?: boolean; organizer?: boolean; resource?: boolean }[];
  organizer?: { email?: string; self?: boolean };
  /** The calendar it is on (default `primary`): the sync reads only primary; a window read names its calendar. */
  calendarId?: string;
}

/**
 * Google: the OAuth token endpoint and Calendar v3 events.list with page and sync tokens (one server here);
 * also a window read (`timeMin`/`timeMax`, `showDeleted`, ordered by start) of any calendar, and events.get.
 */
export class FakeGoogle extends FakeServer {
  readonly auth = new FakeAuthority();
  pageSize = 250;
  readonly events: (FakeCalendarEvent & { version: number })[] = [];
  #version = 0;
  /** Sync tokens issued before this version answer 410 Gone. */
  expireSyncTokensBefore = 0;

  /** Add or change an event: it shows up in the next incremental read. */
  put(event: FakeCalendarEvent): void {
    const version = ++this.#version;
    const at = this.events.findIndex((e) => e.id === event.id);
    if (at >= 0) this.events[at] = { ...event, version };
    else this.events.push({ ...event, version });
  }

  protected route(method: string, path: string): string {
    if (method === 'POST' && path === '/token') return 'token';
    if (method === 'GET' && path === '/calendar/v3/calendars/primary/events') return 'events';
    if (method === 'GET' && /^\/calendar\/v3\/calendars\/[^/]+\/events$/.test(path)) return 'events';
    if (method === 'GET' && /^\/calendar\/v3\/calendars\/[^/]+\/events\/[^/]+$/.test(path)) return 'event';
    return 'unknown';
  }

  protected authorized(authorization: string | undefined): boolean {
    return authorization === `Bearer ${this.auth.accessToken}`;
  }

  protected override isPublic(route: string): boolean {
    return route === 'token';
  }

  protected unauthorizedBody(): unknown {
    return {
      error: {
        code: 401,
        message: 'Request had invalid authentication credentials.',
        errors: [{ reason: 'authError' }],
        status: 'UNAUTHENTICATED',
      },
    };
  }

  protected respond(route: string, body: unknown, url: URL): { status: number; body: unknown } {
    if (route === 'token')
      return this.auth.token(formOf(body), {
        expires_in: 3599,
        scope: 'https://www.googleapis.com/auth/calendar.readonly',
      });
    const calendarId = decodeURIComponent(url.pathname.split('/')[4] ?? 'primary');
    const onCalendar = (e: FakeCalendarEvent) => (e.calendarId ?? 'primary') === calendarId;
    if (route === 'event') {
      const id = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      const found = this.events.find((e) => e.id === id && onCalendar(e));
      if (!found)
        return { status: 404, body: { error: { code: 404, message: 'Not Found', errors: [{ reason: 'notFound' }] } } };
      const { version: _v, calendarId: _c, ...event } = found;
      return { status: 200, body: { kind: 'calendar#event', ...event } };
    }
    const p = url.searchParams;
    if (p.get('timeMax')) return this.#window(p, onCalendar);
    const syncToken = p.get('syncToken');
    let since = 0;
    if (syncToken) {
      since = Number(syncToken.replace('sync-', ''));
      if (since < this.expireSyncTokensBefore)
        return {
          status: 410,
          body: {
            error: {
              code: 410,
              message: 'Sync token is no longer valid, a full sync is required.',
              errors: [{ reason: 'fullSyncRequired' }],
            },
          },
        };
    }
    const timeMin = p.get('timeMin');
    const matching = this.events
      .filter(onCalendar)
      .filter((e) => (syncToken ? e.version > since : e.status !== 'cancelled'))
      .filter(
        (e) =>
          syncToken || !timeMin || Date.parse(e.end?.dateTime ?? e.end?.date ?? '9999-01-01') >= Date.parse(timeMin),
      )
      .sort((a, b) => a.version - b.version);
    const offset = Number(p.get('pageToken') ?? 0);
    const page = matching.slice(offset, offset + this.pageSize);
    const last = offset + this.pageSize >= matching.length;
    return {
      status: 200,
      body: {
        kind: 'calendar#events',
        items: page.map(({ version: _v, calendarId: _c, ...e }) => ({ kind: 'calendar#event', ...e })),
        ...(last ? { nextSyncToken: `sync-${this.#version}` } : { nextPageToken: String(offset + this.pageSize) }),
      },
    };
  }

  /** events.list over a window: events overlapping [timeMin, timeMax), cancelled ones only with showDeleted, by start. */
  #window(p: URLSearchParams, onCalendar: (e: FakeCalendarEvent) => boolean): { status: number; body: unknown } {
    const timeMin = Date.parse(p.get('timeMin') ?? '');
    const timeMax = Date.parse(p.get('timeMax') ?? '');
    const at = (w?: { dateTime?: string; date?: string }) => Date.parse(w?.dateTime ?? w?.date ?? '');
    const matching = this.events
      .filter(onCalendar)
      .filter((e) => p.get('showDeleted') === 'true' || e.status !== 'cancelled')
      .filter((e) => at(e.start) < timeMax && (at(e.end) || at(e.start)) > timeMin)
      .sort((a, b) => at(a.start) - at(b.start));
    const offset = Number(p.get('pageToken') ?? 0);
    const page = matching.slice(offset, offset + this.pageSize);
    return {
      status: 200,
      body: {
        kind: 'calendar#events',
        items: page.map(({ version: _v, calendarId: _c, ...e }) => ({ kind: 'calendar#event', ...e })),
        ...(offset + this.pageSize < matching.length ? { nextPageToken: String(offset + this.pageSize) } : {}),
      },
    };
  }
}

export interface BlueskyFakeAccount {
  did: string;
  handle: string;
  displayName?: string;
}

export interface BlueskyFakePost {
  uri: string;
  authorDid: string;
  text: string;
  createdAt: string;
  indexedAt: string;
  /** The post answered; absent for a thread's first post. */
  parentUri?: string;
  /** A repost by this account of someone else's post: shown in its feed with a reason. */
  repostedBy?: string;
  /** Deleted by its author: gone from feeds and threads, while its replies still name it as their root. */
  deleted?: boolean;
}

/**
 * Bluesky's public AppView (no auth), as the lexicons define it: actor.getProfile,
 * feed.getAuthorFeed (newest first, `cursor` paging, `limit` ≤ 100, replies with their `reply`
 * root and parent), feed.getPostThread (the post with its replies as a tree, `depth` levels), and
 * XRPC errors as `{error, message}` (400 InvalidRequest "Profile not found", 400 NotFound).
 */
export class FakeBluesky extends FakeServer {
  readonly accounts: BlueskyFakeAccount[] = [];
  readonly posts: BlueskyFakePost[] = [];
  /** The most a feed page holds, whatever `limit` asks (the AppView's own cap is 100). */
  pageSize = 100;

  protected route(method: string, path: string): string {
    if (method !== 'GET') return 'unknown';
    if (path === '/xrpc/app.bsky.actor.getProfile') return 'profile';
    if (path === '/xrpc/app.bsky.feed.getAuthorFeed') return 'feed';
    if (path === '/xrpc/app.bsky.feed.getPostThread') return 'thread';
    return 'unknown';
  }

  protected authorized(): boolean {
    return true;
  }

  protected unauthorizedBody(): unknown {
    return { error: 'AuthRequired', message: 'Authentication Required' };
  }

  protected override isPublic(): boolean {
    return true;
  }

  #actor(actor: string | null): BlueskyFakeAccount | undefined {
    return this.accounts.find((a) => a.did === actor || a.handle === actor);
  }

  #view(p: BlueskyFakePost) {
    const author = this.accounts.find((a) => a.did === p.authorDid) ?? { did: p.authorDid, handle: 'handle.invalid' };
    const rootUri = this.#rootOf(p).uri;
    return {
      uri: p.uri,
      cid: `cid-${p.uri.split('/').at(-1)}`,
      author: {
        did: author.did,
        handle: author.handle,
        ...(author.displayName ? { displayName: author.displayName } : {}),
        labels: [],
      },
      record: {
        $type: 'app.bsky.feed.post',
        text: p.text,
        createdAt: p.createdAt,
        langs: ['en'],
        ...(p.parentUri ? { reply: { root: { uri: rootUri, cid: 'x' }, parent: { uri: p.parentUri, cid: 'x' } } } : {}),
      },
      replyCount: this.posts.filter((r) => r.parentUri === p.uri && !r.repostedBy && !r.deleted).length,
      repostCount: 0,
      likeCount: 0,
      quoteCount: 0,
      indexedAt: p.indexedAt,
      labels: [],
    };
  }

  /** A reply's record names its thread's first post for good, deleted or not. */
  #rootOf(p: BlueskyFakePost): BlueskyFakePost {
    let at = p;
    for (let parent = this.#record(at.parentUri); parent; parent = this.#record(at.parentUri)) at = parent;
    return at;
  }

  #record(uri: string | undefined): BlueskyFakePost | undefined {
    return uri ? this.posts.find((p) => p.uri === uri && !p.repostedBy) : undefined;
  }

  #post(uri: string | undefined): BlueskyFakePost | undefined {
    const found = this.#record(uri);
    return found && !found.deleted ? found : undefined;
  }

  #notFound(uri: string) {
    return { $type: 'app.bsky.feed.defs#notFoundPost', uri, notFound: true };
  }

  #tree(p: BlueskyFakePost, depth: number): unknown {
    const replies =
      depth <= 0
        ? undefined
        : this.posts
            .filter((r) => r.parentUri === p.uri && !r.repostedBy && !r.deleted)
            .map((r) => this.#tree(r, depth - 1));
    return { $type: 'app.bsky.feed.defs#threadViewPost', post: this.#view(p), ...(replies ? { replies } : {}) };
  }

  protected respond(route: string, _body: unknown, url: URL): { status: number; body: unknown } {
    const q = url.searchParams;
    if (route === 'profile') {
      const account = this.#actor(q.get('actor'));
      if (!account) return { status: 400, body: { error: 'InvalidRequest', message: 'Profile not found' } };
      return {
        status: 200,
        body: {
          did: account.did,
          handle: account.handle,
          displayName: account.displayName,
          followersCount: 10,
          followsCount: 3,
          postsCount: this.posts.filter((p) => p.authorDid === account.did).length,
        },
      };
    }
    if (route === 'feed') {
      const account = this.#actor(q.get('actor'));
      if (!account) return { status: 400, body: { error: 'InvalidRequest', message: 'Profile not found' } };
      const limit = Math.min(this.pageSize, Number(q.get('limit') ?? 50));
      const mine = this.posts
        .filter((p) => !p.deleted && (p.repostedBy ? p.repostedBy === account.did : p.authorDid === account.did))
        .sort((a, b) => b.indexedAt.localeCompare(a.indexedAt) || b.uri.localeCompare(a.uri));
      const offset = q.get('cursor') ? Number(Buffer.from(q.get('cursor') as string, 'base64').toString('utf8')) : 0;
      const page = mine.slice(offset, offset + limit);
      const next = offset + limit < mine.length ? Buffer.from(String(offset + limit)).toString('base64') : undefined;
      return {
        status: 200,
        body: {
          ...(next ? { cursor: next } : {}),
          feed: page.map((p) => {
            if (p.repostedBy) {
              const original = this.#post(p.uri);
              return {
                post: this.#view(original ?? p),
                reason: {
                  $type: 'app.bsky.feed.defs#reasonRepost',
                  by: { did: account.did, handle: account.handle },
                  indexedAt: p.indexedAt,
                },
              };
            }
            const parent = this.#post(p.parentUri);
            const root = this.#rootOf(p);
            return {
              post: this.#view(p),
              ...(p.parentUri
                ? {
                    reply: {
                      root: root.deleted ? this.#notFound(root.uri) : this.#view(root),
                      parent: parent ? this.#view(parent) : this.#notFound(p.parentUri),
                    },
                  }
                : {}),
            };
          }),
        },
      };
    }
    if (route === 'thread') {
      const post = this.#post(q.get('uri') ?? undefined);
      if (!post) return { status: 400, body: { error: 'NotFound', message: `Post not found: ${q.get('uri')}` } };
      return { status: 200, body: { thread: this.#tree(post, Number(q.get('depth') ?? 6)) } };
    }
    return { status: 404, body: { error: 'MethodNotImplemented', message: 'Method Not Implemented' } };
  }
}
