import type { Queryable } from './port.js';

/**
 * How long work over a whole workspace is cut into statements on this backend. The embedded
 * database (PGlite) runs each statement on the process's own event loop, so a statement over every
 * row of a large workspace holds every other tenant's requests until it ends: there a read goes a
 * small slice per statement, the loop turning between two. A database server (Neon, PostgreSQL)
 * runs the statement elsewhere while the loop keeps answering, and every statement costs a round
 * trip: there one large slice reads what the embedded database reads in ten. The slices stay
 * bounded on a server too, so one call's rows and memory stay bounded whatever the workspace.
 */
export interface StatementPacing {
  /** Interactions one statement of a conversation read covers (functions/search/conversation-slices.ts). */
  readonly conversationsPerSlice: number;
  /** Vectors one insert statement of the knowledge embed stage writes. */
  readonly vectorsPerInsert: number;
}

/**
 * The embedded database's: a regular-expression scan of 100 interactions' turns is about a tenth of
 * the demo corpus's (the whole corpus's scan holds the loop ~0.25 s); 32 vectors with their HNSW
 * index updates are a quarter of an embed delivery (128 in one statement held the loop 0.6–1.9 s).
 */
export const EMBEDDED_PACING: StatementPacing = { conversationsPerSlice: 100, vectorsPerInsert: 32 };

/** A database server's: ten thousand interactions (ten demo corpora) a statement, an embed delivery's vectors in one. */
export const SERVER_PACING: StatementPacing = { conversationsPerSlice: 10_000, vectorsPerInsert: 1_000 };

const pacings = new WeakMap<object, StatementPacing>();

/** Said once by the adapter that opens a database (platform/db/pglite.ts, neon.ts): the one place the pacing is chosen. */
export function declarePacing(db: Queryable, pacing: StatementPacing): void {
  pacings.set(db, pacing);
}

/**
 * The pacing of the database a statement goes to. A transaction, or a database no adapter declared
 * (a test's wrapper), gets the embedded pacing: more statements than a server needs, never a
 * statement that holds the loop.
 */
export function pacingOf(db: Queryable): StatementPacing {
  return pacings.get(db) ?? EMBEDDED_PACING;
}
