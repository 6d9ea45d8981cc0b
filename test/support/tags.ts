import type { TestTagDefinition } from 'vitest/config';

/**
 * The tags a test may carry (vitest refuses an undeclared one). `race`: the test makes requests or
 * deliveries race on the same rows; `npm run test:pg` runs these again on PostgreSQL with several
 * real connections (vitest.pg.config.ts), where PGlite's one connection can only interleave them.
 * `postgres`: a check of that tier itself, which runs there only.
 */
export const TEST_TAGS: TestTagDefinition[] = [
  { name: 'race', description: 'races on the same rows; run again on PostgreSQL by npm run test:pg' },
  { name: 'postgres', description: 'checks the PostgreSQL tier itself; skipped outside npm run test:pg' },
];
