import { BoundedBody, DEFAULT_MAX_RESPONSE_BYTES, type OutboundHttp, type OutboundResult } from './port.js';

const DnsAnswer = (json: unknown): string[] => {
  const answers = (json as { Answer?: { type: number; data: string }[] }).Answer ?? [];
  return answers.filter((a) => a.type === 1 || a.type === 28).map((a) => a.data);
};

/**
 * Outbound HTTP on fetch (Workers): DNS answers come from DNS-over-HTTPS for the policy check,
 * and Cloudflare itself refuses fetches to private addresses at connect time. Redirects are not
 * followed: a 3xx is the endpoint's answer.
 */
export const fetchOutboundHttp: OutboundHttp = {
  async resolveHost(hostname) {
    const lookups = await Promise.all(
      ['A', 'AAAA'].map(async (type) => {
        const res = await fetch(
          `https://cloudflare-dns.com/dns-query?name=${encodeURIComponent(hostname)}&type=${type}`,
          {
            headers: { accept: 'application/dns-json' },
          },
        );
        if (!res.ok) throw new Error(`DNS lookup failed with HTTP ${res.status}`);
        return DnsAnswer(await res.json());
      }),
    );
    const all = lookups.flat();
    if (all.length === 0) throw Object.assign(new Error(`cannot resolve ${hostname}`), { code: 'ENOTFOUND' });
    return all;
  },

  async send(req): Promise<OutboundResult> {
    const started = Date.now();
    try {
      const res = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        ...(req.body !== undefined ? { body: req.body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(req.timeoutMs),
      });
      const body = new BoundedBody(req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      const reader = res.body?.getReader();
      if (reader) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (!body.add(value)) {
            await reader.cancel();
            break;
          }
        }
      }
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      return {
        ok: true,
        status: res.status,
        headers,
        body: body.text(),
        truncated: body.truncated,
        durationMs: Date.now() - started,
      };
    } catch (error) {
      const durationMs = Date.now() - started;
      if (error instanceof DOMException && error.name === 'TimeoutError')
        return { ok: false, error: 'timeout', detail: `no response within ${req.timeoutMs} ms`, durationMs };
      return {
        ok: false,
        error: 'connection_failed',
        detail: error instanceof Error ? error.name : 'connection error',
        durationMs,
      };
    }
  },
};
