import type { PGlite } from '@electric-sql/pglite';
import type { PgliteHandle } from '../../platform/db/pglite.js';

/**
 * Make a test database go away and come back, at the driver: while down, every statement (inside a
 * transaction too, named ones too) fails as a closed PGlite does. `failAfter(n)` lets n more statements through
 * first, to cut a write in the middle of its transaction.
 */
export interface Outage {
  down(): void;
  up(): void;
  failAfter(statements: number): void;
  readonly failures: number;
}

export function controlOutages(handle: PgliteHandle): Outage {
  const client = handle.client as PGlite;
  let budget = Infinity;
  let failures = 0;
  const check = () => {
    if (budget <= 0) {
      failures++;
      throw new Error('PGlite is closed');
    }
    budget--;
  };
  const guard = <T extends { query: PGlite['query'] }>(target: T): T => {
    const query = target.query.bind(target);
    (target as { query: unknown }).query = (async (...args: Parameters<PGlite['query']>) => {
      check();
      return query(...args);
    }) as PGlite['query'];
    return target;
  };
  guard(client);
  // Named statements (pglite-statements.ts) reach the database without the client's query.
  const statements = handle.statements;
  const named = statements.query.bind(statements);
  statements.query = (async (...args: Parameters<typeof named>) => {
    check();
    return named(...args);
  }) as typeof statements.query;
  const namedIn = statements.queryIn.bind(statements);
  statements.queryIn = (async (...args: Parameters<typeof namedIn>) => {
    check();
    return namedIn(...args);
  }) as typeof statements.queryIn;
  const exec = client.exec.bind(client);
  client.exec = (async (...args: Parameters<PGlite['exec']>) => {
    check();
    return exec(...args);
  }) as PGlite['exec'];
  const transaction = client.transaction.bind(client);
  client.transaction = (async (fn: Parameters<PGlite['transaction']>[0]) => {
    check();
    return transaction(async (tx) => fn(guard(tx)));
  }) as PGlite['transaction'];
  return {
    down: () => {
      budget = 0;
    },
    up: () => {
      budget = Infinity;
    },
    failAfter: (n) => {
      budget = n;
    },
    get failures() {
      return failures;
    },
  };
}
