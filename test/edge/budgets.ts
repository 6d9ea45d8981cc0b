/**
 * Round-trip budgets on the production path, counted at the relay through workerd (never timed).
 * `connections` are WebSocket connections the worker opened (each costs the Neon driver 3 round
 * trips to set up: 2 before the socket opens, 1 for the startup message); `queries` are database
 * round trips past any set-up: Sync and simple Query messages on those WebSockets, plus one per
 * SQL-over-HTTP request (a batch of statements is one). Totals include what the request set off
 * after its response (the credential's last-use write, the handle closing).
 *
 * Since issue 23 item 4 the worker runs statements over Neon's HTTP transport (platform/db/neon.ts):
 * a request that opens no transaction opens no connection, so its reads pay no set-up; only
 * transactions (the OAuth code exchange, the run engine's stage commits) open a WebSocket pool. The
 * quota's read-and-consume is one statement and the freshness probe's two reads one statement.
 * Before (a pool per request): first read 1 connection + 3, steady 1 + 1, filter search 2 + 5,
 * 404 1 + 1, chat run 10 + 140, routine fire 13 + 204 (docs/operate/edge-and-postgres-tiers.md, Round trips and latency).
 */
export const BUDGETS = {
  /**
   * GET /setup/status with a key this isolate has not seen: the key's lookup and the quota read on
   * the critical path (2), then its last-use write after the response.
   */
  firstAuthenticatedRead: { connections: 0, queries: 3 },
  /** The same key again (credential cached in the isolate): the quota read, one round trip. */
  steadyAuthenticatedRead: { connections: 0, queries: 1 },
  /** POST /search/query on the filter lane (key cached): quota read-and-consume, the filter read, the freshness probe. */
  filterSearch: { connections: 0, queries: 3 },
  /** No credential: answered before any database work. */
  unauthenticated: { connections: 0, queries: 0 },
  /** GET /agents/{unknown id} (key cached): one statement, finding nothing. */
  notFound: { connections: 0, queries: 1 },
  /** POST /oauth/token, authorization_code: redeem the code, activate the grant, mint the tokens (one transaction). */
  codeExchange: { connections: 1, queries: 9 },
} as const;

/**
 * Whole asynchronous flows, from the request (or the cron) until every delivery they set off is
 * done: a stage delivery opens a pool only for its transactions, its other statements go over HTTP.
 */
export const RUN_BUDGETS = {
  /**
   * POST /chat with the local model: the request, 4 agent-run stage deliveries (the first turn learns the
   * workspace's vocabulary, issue 22), the session.completed webhook's. Since issue 25 the run reads the
   * member's pins and the workspace's context entries at start and searches the knowledge bank in its
   * first turn (2 statements more). Since 2026-11-26 (issue 25's leftovers) it recalls the workspace memory
   * relevant to the question at start (by meaning and by words) and its knowledge search goes through
   * context.search, which counts its search quota: 133 measured through workerd; 132 since the recall reads
   * both its sides in one statement. 133 since 2026-11-27: the grounding verifier reads each quote's
   * attribution from the warehouse (the quoted turns with their interaction's account, deal and date in the
   * statement the verbatim check already made; the quoted emails in one more when the answer quotes one).
   */
  chatRun: { connections: 6, queries: 133, deliveries: 5 },
  /**
   * One cron tick with one routine due: the tick, the fire run, the chat run it starts (7 deliveries);
   * since issue 26 the same tick also starts the lookalike centroid materialization of the workspace whose
   * utterance store changed (its run: one delivery, one pool, ~30 statements). The chat run's memory recall and
   * counted knowledge search (above) add theirs: 219 measured through workerd, 218 since the recall is one statement.
   * 225 since 2026-11-27: the centroid run computes 16 entities per statement (yielding between them, so no
   * one statement holds an embedded server's event loop) where it computed all in one, and the chat run's
   * verifier reads attributions (above).
   */
  routineFire: { connections: 9, queries: 225, deliveries: 8 },
} as const;
