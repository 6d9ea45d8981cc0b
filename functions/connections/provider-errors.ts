/**
 * A provider call that failed, classified for the run record (spec: `error_reason`: auth,
 * rate_limit, transient, config, unknown). The message is ours; the provider's raw text is never
 * carried, since it can echo tokens or internal detail back to a client.
 */
export type ErrorReason = 'auth' | 'rate_limit' | 'transient' | 'config' | 'unknown';

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly reason: ErrorReason,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** How the service reaches providers: fetch (a test routes it to a local fake). */
export type ProviderFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or null. */
export function retryAfterOf(value: string | null, now: Date): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(1, Math.ceil((at - now.getTime()) / 1000));
}

/** Map a provider's HTTP status to a reason, in the provider's name. */
export function errorForStatus(provider: string, status: number, retryAfter: number | null): ProviderError {
  if (status === 401 || status === 403)
    return new ProviderError(
      'auth',
      `${provider} refused the credentials (HTTP ${status}): reconnect with a valid key or token.`,
    );
  if (status === 429)
    return new ProviderError(
      'rate_limit',
      `${provider} is rate limiting this connection${retryAfter ? `; it asked to wait ${retryAfter} s` : ''}.`,
      retryAfter ?? 60,
    );
  if (status >= 500)
    return new ProviderError('transient', `${provider} answered HTTP ${status}; the page will be tried again.`);
  return new ProviderError(
    'config',
    `${provider} refused the request (HTTP ${status}); check the connection's permissions.`,
  );
}

/**
 * The JSON body of a provider's answer. A refusal is classified by its status, with the wait the
 * provider asked for (read from its headers by `retryAfter`, each provider names it its own way).
 */
export async function providerJson(
  provider: string,
  response: Response,
  retryAfter: () => number | null,
): Promise<unknown> {
  if (!response.ok) {
    const wait = retryAfter();
    await response.body?.cancel();
    throw errorForStatus(provider, response.status, wait);
  }
  try {
    return await response.json();
  } catch {
    throw new ProviderError('unknown', `${provider} sent a response that is not JSON; it will be read again.`);
  }
}
