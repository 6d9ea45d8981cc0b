/** Outbound HTTP for webhooks, as a port: Node guards DNS at connect time; Workers use fetch. */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Whether a loopback address is an acceptable destination (ALLOW_LOOPBACK_WEBHOOKS). */
  allowLoopback: boolean;
}

export type OutboundResult =
  | { ok: true; status: number; durationMs: number }
  | { ok: false; error: 'timeout' | 'blocked_address' | 'connection_failed' | 'dns_failed'; detail: string; durationMs: number };

export interface OutboundHttp {
  /** Resolve a hostname to every address it has (A and AAAA). */
  resolveHost(hostname: string): Promise<string[]>;
  post(request: OutboundRequest): Promise<OutboundResult>;
}
