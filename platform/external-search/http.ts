import { z } from 'zod';
import type { OutboundHttp } from '../net/port.js';
import type { ExternalSearch, ExternalSearchOutcome, ExternalSearchResult } from './port.js';

export interface HttpExternalSearchOptions {
  /** The search endpoint; the query goes in `q`, the result count in `limit`. */
  url: string;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string;
  outbound: OutboundHttp;
  /** Loopback destinations only in tests and local fakes (ALLOW_LOOPBACK_WEBHOOKS). */
  allowLoopback: boolean;
  timeoutMs?: number;
}

/** The result lists the common search APIs answer with, and the names they give a result's fields. */
const Item = z
  .object({
    title: z.string().optional(),
    name: z.string().optional(),
    url: z.string().optional(),
    link: z.string().optional(),
    snippet: z.string().optional(),
    description: z.string().optional(),
    content: z.string().optional(),
  })
  .loose();
const Body = z
  .object({
    results: z.array(Item).optional(),
    items: z.array(Item).optional(),
    organic_results: z.array(Item).optional(),
    web: z
      .object({ results: z.array(Item) })
      .loose()
      .optional(),
  })
  .loose();

const HTTP_URL = /^https?:\/\//i;

/** Items with a title and an http(s) URL, cleaned; the rest are dropped (a result must be citable). */
export function parseSearchBody(json: unknown, limit: number): ExternalSearchResult[] | null {
  const body = Body.safeParse(json);
  if (!body.success) return null;
  const list = body.data.results ?? body.data.items ?? body.data.organic_results ?? body.data.web?.results;
  if (!list) return null;
  return list
    .map((i) => ({
      title: (i.title ?? i.name ?? '').trim(),
      url: (i.url ?? i.link ?? '').trim(),
      snippet: (i.snippet ?? i.description ?? i.content ?? '').replace(/\s+/g, ' ').trim().slice(0, 600),
    }))
    .filter((r) => r.title.length > 0 && HTTP_URL.test(r.url))
    .slice(0, limit);
}

export function httpExternalSearch(options: HttpExternalSearchOptions): ExternalSearch {
  const provider = new URL(options.url).host;
  return {
    provider,
    async search(query, { limit }): Promise<ExternalSearchOutcome> {
      const url = new URL(options.url);
      url.searchParams.set('q', query);
      url.searchParams.set('limit', String(limit));
      const res = await options.outbound.send({
        method: 'GET',
        url: url.toString(),
        headers: {
          accept: 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        timeoutMs: options.timeoutMs ?? 10_000,
        allowLoopback: options.allowLoopback,
      });
      if (!res.ok) return { status: 'failed', provider, detail: `${res.error}: ${res.detail}`, results: [] };
      if (res.status < 200 || res.status > 299)
        return { status: 'failed', provider, detail: `HTTP ${res.status}`, results: [] };
      let json: unknown;
      try {
        json = JSON.parse(res.body);
      } catch {
        return { status: 'failed', provider, detail: 'the answer is not JSON', results: [] };
      }
      const results = parseSearchBody(json, limit);
      if (!results) return { status: 'failed', provider, detail: 'the answer holds no result list', results: [] };
      return { status: 'ok', provider, results };
    },
  };
}
