import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { postgresReachable, postgresTierRequired, postgresTierUrl } from './test/pg/postgres.js';
import { TEST_TAGS } from './test/support/tags.js';

/**
 * The PostgreSQL tier (`npm run test:pg`, not part of `npm test`): every test tagged `race` runs
 * again on a real PostgreSQL with a real pool of connections (test/pg/postgres.ts), with the tier's
 * own checks (tagged `postgres`). The files are the ones that hold such a test; the tag filter runs
 * only those tests in them.
 *
 * Skips (no test files, a message) when nothing listens at PG_TEST_URL, unless REQUIRE_PG_TESTS=1
 * (`.ci/run`), which makes it fail instead.
 */
const TIER_TAG = /tags:\s*\[[^\]]*'(race|postgres)'/;

function filesWithTierTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.startsWith(join('test', 'edge')) && TIER_TAG.test(readFileSync(path, 'utf8')));
}

export default defineConfig(async () => {
  const reachable = await postgresReachable();
  if (!reachable) {
    const where = `${postgresTierUrl().hostname}:${postgresTierUrl().port || 5432}`;
    const message = `PostgreSQL is not reachable at ${where} (PG_TEST_URL)`;
    if (postgresTierRequired()) throw new Error(`${message}, and REQUIRE_PG_TESTS=1 makes the tier required`);
    process.stderr.write(
      `\npg tier SKIPPED: ${message}. Start it (pg_ctlcluster 15 main start; see .ci/run) or set REQUIRE_PG_TESTS=1 to fail instead.\n\n`,
    );
  }
  return {
    test: {
      include: reachable ? filesWithTierTests('test') : [],
      passWithNoTests: !reachable,
      tags: TEST_TAGS,
      tagsFilter: ['race || postgres'],
      env: { CIP_TEST_DATABASE: 'postgres' },
      globalSetup: reachable ? ['test/pg/global-setup.ts'] : [],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      pool: 'forks',
      maxWorkers: 2,
    },
  };
});
