import { z } from 'zod';
import { providerJson, ProviderError, retryAfterOf, type ProviderFetch } from '../../provider-errors.js';

/**
 * A Gong client, written against Gong's public API v2: Basic auth with the access key and its
 * secret, `POST /v2/calls/extensive` for calls with their parties (the `cursor` in the JSON body,
 * `records.cursor` in the answer, absent on the last page), `POST /v2/calls/transcript` for the
 * monologues of given call ids, and a 429 with Retry-After past the company's limit (3 calls a
 * second, 10,000 a day by default). Gong answers an empty date range with 404 ("No calls found
 * corresponding to the provided filters"): that is an empty page here, not an error.
 */

const Records = z.object({ cursor: z.string().optional() }).passthrough();
const Party = z
  .object({
    id: z.string().optional(),
    emailAddress: z.string().nullish(),
    name: z.string().nullish(),
    title: z.string().nullish(),
    userId: z.string().nullish(),
    speakerId: z.string().nullish(),
    affiliation: z.enum(['Internal', 'External', 'Unknown']).nullish(),
  })
  .passthrough();
const Call = z
  .object({
    metaData: z
      .object({
        id: z.string(),
        title: z.string().nullish(),
        started: z.string(),
        duration: z.number().nullish(),
        system: z.string().nullish(),
        scope: z.string().nullish(),
        primaryUserId: z.string().nullish(),
      })
      .passthrough(),
    parties: z.array(Party).nullish(),
    content: z.object({ brief: z.string().nullish() }).passthrough().nullish(),
  })
  .passthrough();
const CallsPage = z.object({ records: Records.optional(), calls: z.array(Call) });
const Sentence = z.object({ start: z.number(), end: z.number(), text: z.string() });
const Monologue = z.object({
  speakerId: z.string().nullish(),
  topic: z.string().nullish(),
  sentences: z.array(Sentence),
});
const TranscriptsPage = z.object({
  records: Records.optional(),
  callTranscripts: z.array(z.object({ callId: z.string(), transcript: z.array(Monologue) })),
});

export type GongCall = z.infer<typeof Call>;
export type GongParty = z.infer<typeof Party>;
export type GongMonologue = z.infer<typeof Monologue>;

/** Where the calls stream's next page starts: calls started at or after `from`, at Gong's `cursor` of that query. */
export interface GongCursor {
  from: string;
  cursor: string | null;
}

const NO_CALLS = 404;

export class GongClient {
  constructor(
    private readonly options: {
      baseUrl: string;
      accessKey: string;
      accessKeySecret: string;
      fetch?: ProviderFetch;
      now?: () => Date;
    },
  ) {}

  /** Check the key pair before a connection is stored (one page of users). */
  async validate(): Promise<void> {
    await this.call('GET', '/v2/users');
  }

  /** One page of calls (with parties and brief) started at or after the cursor's `from`, oldest first as Gong pages them. */
  async callsPage(cursor: GongCursor): Promise<{ calls: GongCall[]; next: string | null }> {
    const json = await this.call('POST', '/v2/calls/extensive', {
      ...(cursor.cursor ? { cursor: cursor.cursor } : {}),
      filter: { fromDateTime: cursor.from },
      contentSelector: { context: 'Extended', exposedFields: { parties: true, content: { brief: true } } },
    });
    if (json === null) return { calls: [], next: null };
    const parsed = CallsPage.safeParse(json);
    if (!parsed.success)
      throw new ProviderError('unknown', 'Gong sent a calls page in an unexpected shape; it will be read again.');
    return { calls: parsed.data.calls, next: parsed.data.records?.cursor ?? null };
  }

  /** The transcripts of these calls, by call id (a call Gong has no transcript for is absent). */
  async transcripts(callIds: readonly string[]): Promise<Map<string, GongMonologue[]>> {
    const out = new Map<string, GongMonologue[]>();
    if (callIds.length === 0) return out;
    let cursor: string | undefined;
    do {
      const json = await this.call('POST', '/v2/calls/transcript', {
        ...(cursor ? { cursor } : {}),
        filter: { callIds: [...callIds] },
      });
      if (json === null) break;
      const parsed = TranscriptsPage.safeParse(json);
      if (!parsed.success)
        throw new ProviderError('unknown', 'Gong sent transcripts in an unexpected shape; they will be read again.');
      for (const t of parsed.data.callTranscripts) out.set(t.callId, t.transcript);
      cursor = parsed.data.records?.cursor;
    } while (cursor);
    return out;
  }

  /** The parsed JSON body, or null for Gong's "nothing matched" 404 on a POST query. */
  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const fetchImpl = this.options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
    const basic = btoa(`${this.options.accessKey}:${this.options.accessKeySecret}`);
    let response: Response;
    try {
      response = await fetchImpl(`${this.options.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: {
          authorization: `Basic ${basic}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      throw new ProviderError('transient', 'Gong could not be reached; the page will be tried again.');
    }
    if (response.status === NO_CALLS && method === 'POST') {
      await response.body?.cancel();
      return null;
    }
    return providerJson('Gong', response, () =>
      retryAfterOf(response.headers.get('retry-after'), this.options.now?.() ?? new Date()),
    );
  }
}
