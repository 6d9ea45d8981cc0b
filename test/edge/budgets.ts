import { CENTROID_ENTITY_CHUNK } from '../../functions/lookalike/centroids.js';

/**
 * Round-trip budgets on the production path, counted at the relay through workerd (never timed).
 * `connections` are WebSocket connections the worker opened (each costs the Neon driver 3 round
 * trips to set up: 2 before the socket opens, 1 for the startup message); `queries` are database
 * round trips past any set-up: Sync and simple Query messages on those WebSockets, plus one per
 * SQL-over-HTTP request (a batch of statements is one). Totals include what the request set off
 * after its response (the credential's last-use write, the handle closing).
 *
 * The worker runs statements over Neon's HTTP transport (platform/db/neon.ts): a request that opens
 * no transaction opens no connection, so its reads pay no set-up; only transactions (the OAuth code
 * exchange, the run engine's stage commits) open a WebSocket pool. The quota's read-and-consume is one
 * statement and the freshness probe's two reads one statement. The `websocket` transport (a pool per
 * request) costs far more: docs/operate/edge-and-postgres-tiers.md, Round trips and latency.
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
  /**
   * POST /analyses/talk-ratio over the demo corpus (key cached): the quota, then every call and meeting
   * read as one slice, the database server's pacing (platform/db/pacing.ts): where its slice ends (none
   * within it), the reps' sums and both sides' sums. On the embedded pacing (100 interactions a slice)
   * the same read is three statements per slice, over thirty round trips.
   */
  talkRatio: { connections: 0, queries: 5 },
  /** POST /oauth/token, authorization_code: redeem the code, activate the grant, mint the tokens (one transaction). */
  codeExchange: { connections: 1, queries: 9 },
} as const;

/**
 * Whole asynchronous flows, from the request (or the cron) until every delivery they set off is
 * done: a stage delivery opens a pool only for its transactions, its other statements go over HTTP.
 */
export const RUN_BUDGETS = {
  /**
   * POST /chat with the local model: the request, 4 agent-run stage deliveries, the session.completed
   * webhook's. The first turn learns the workspace's vocabulary; the run reads the member's pins, the
   * workspace's context entries and the memory relevant to the question (by meaning and by words, one
   * statement) at start; its knowledge search goes through context.search, which counts its search quota;
   * the grounding verifier reads each quote's attribution from the warehouse (the quoted turns with their
   * interaction's account, deal and date in the statement the verbatim check already makes; the quoted
   * emails in one more when the answer quotes one). What customers said is searched by meaning with hybrid
   * ranking, which reads the turns around its matches in one statement more. The ask holds a word the
   * lexicon does not explain ("pricing"), so the first turn also learns the rivals the conversations name
   * (the competitors analysis, paced over the interactions: 14 round trips) beside the vocabulary, in the
   * same delivery.
   */
  chatRun: { connections: 6, queries: 148, deliveries: 5 },
  /**
   * One cron tick with one routine due: the tick, the fire run, the chat run it starts (7 deliveries),
   * and the lookalike centroid materialization of the workspace whose utterance store changed (its run:
   * one delivery, one pool, ~30 statements). The chat run costs what it costs above. The centroids'
   * reads are not in this figure: see `centroidReads`.
   */
  routineFire: { connections: 9, queriesBesideCentroidReads: 227, deliveries: 8 },
} as const;

/**
 * The centroid materialization's reads: one statement per CENTROID_ENTITY_CHUNK accounts and deals
 * with interactions (so that no one statement holds an embedded server's event loop). How many deals
 * the demo corpus links to calls moves with the hour it is generated (139 to 147 on seed 20240601),
 * so the budget counts them rather than fixing a number that holds only some hours of the day.
 */
export const centroidReads = (entities: { accounts: number; deals: number }): number =>
  Math.ceil(entities.accounts / CENTROID_ENTITY_CHUNK) + Math.ceil(entities.deals / CENTROID_ENTITY_CHUNK);
