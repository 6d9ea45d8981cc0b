/**
 * Outbound HTTP as a port: webhook deliveries today, connector syncs and hosted APIs tomorrow.
 * Node guards DNS at connect time (SSRF); Workers use fetch (Cloudflare refuses private addresses).
 * Redirects are never followed: a 3xx is the endpoint's answer.
 */
export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Whether a loopback address is an acceptable destination (ALLOW_LOOPBACK_WEBHOOKS, tests). */
  allowLoopback: boolean;
  /** Read at most this many bytes of the response body (default 1 MiB); the rest is dropped and `truncated` set. */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;

export type OutboundResult =
  | {
      ok: true;
      status: number;
      /** Response headers, names lower-cased. */
      headers: Record<string, string>;
      /** The body as UTF-8 text, cut at maxResponseBytes. */
      body: string;
      truncated: boolean;
      durationMs: number;
    }
  | {
      ok: false;
      error: 'timeout' | 'blocked_address' | 'connection_failed' | 'dns_failed';
      detail: string;
      durationMs: number;
    };

export interface OutboundHttp {
  /** Resolve a hostname to every address it has (A and AAAA). */
  resolveHost(hostname: string): Promise<string[]>;
  send(request: OutboundRequest): Promise<OutboundResult>;
}

/** Collects response chunks up to a byte budget; what lies beyond is counted as cut, not kept. */
export class BoundedBody {
  readonly #chunks: Uint8Array[] = [];
  #kept = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  /** Keep what fits; false once the budget is spent (the caller stops reading). */
  add(chunk: Uint8Array): boolean {
    const room = this.max - this.#kept;
    if (chunk.byteLength > room) {
      if (room > 0) this.#chunks.push(chunk.subarray(0, room));
      this.#kept = this.max;
      this.truncated = true;
      return false;
    }
    this.#chunks.push(chunk);
    this.#kept += chunk.byteLength;
    return true;
  }

  text(): string {
    const all = new Uint8Array(this.#kept);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    // A cut can split a multi-byte character: decode leniently.
    return new TextDecoder('utf-8', { fatal: false }).decode(all);
  }
}
