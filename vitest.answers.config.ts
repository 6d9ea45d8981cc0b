import { defineConfig } from 'vitest/config';

/**
 * The measuring run of the question sets (`npm run eval:answers`, bench/answers.ts): only the
 * *.eval.ts files, on the same global setup (the migrated template and the demo corpus) as `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.eval.ts'],
    globalSetup: ['test/global-setup.ts'],
    // A hosted model answers a few hundred questions in one test: hours, not the unit tests' seconds.
    testTimeout: 7_200_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
