/**
 * Round-trip budgets on the production path, counted at the relay through workerd (never timed).
 * `connections` are WebSocket connections the worker opened (each costs the Neon driver 3 round
 * trips to set up: 2 before the socket opens, 1 for the startup message); `queries` are Sync and
 * simple Query messages, one round trip each. Totals include what the request set off after its
 * response (the credential's last-use write, the pool closing).
 *
 * These are TODAY's counts (issue 23, before its item 4): a pool per request, so every request
 * that reads pays a connection set-up on its critical path. Item 4's targets: a steady
 * authenticated read at 1 round trip with no set-up on the critical path, a first request in an
 * isolate at most 2, a filter search at most 4, a stage delivery's steady path at most 6 statements.
 */
export const BUDGETS = {
  /** GET /setup/status with a key this isolate has not seen: the key's lookup, the quota read, then its last-use write. */
  firstAuthenticatedRead: { connections: 1, queries: 3 },
  /** The same key again (credential cached in the isolate): the quota read. */
  steadyAuthenticatedRead: { connections: 1, queries: 1 },
  /** POST /search/query on the filter lane (key cached): the coverage reads run on a second connection in parallel. */
  filterSearch: { connections: 2, queries: 5 },
  /** No credential: answered before any database work. */
  unauthenticated: { connections: 0, queries: 0 },
  /** GET /agents/{unknown id} (key cached): one statement, finding nothing. */
  notFound: { connections: 1, queries: 1 },
  /** POST /oauth/token, authorization_code: redeem the code, activate the grant, mint the tokens. */
  codeExchange: { connections: 1, queries: 9 },
} as const;

/**
 * Whole asynchronous flows, from the request (or the cron) until every delivery they set off is
 * done: each stage delivery opens its own pool, so connections grow with the deliveries.
 */
export const RUN_BUDGETS = {
  /**
   * POST /chat with the local model: the request, 4 agent-run stage deliveries (the first turn learns the
   * workspace's vocabulary, issue 22), the session.completed webhook's.
   */
  chatRun: { connections: 10, queries: 140, deliveries: 5 },
  /** One cron tick with one routine due: the tick, the fire run, the chat run it starts (7 deliveries). */
  routineFire: { connections: 13, queries: 204, deliveries: 7 },
} as const;
