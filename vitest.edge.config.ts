import { defineConfig } from 'vitest/config';

/**
 * The edge tier (`npm run test:edge`, not part of `npm test`): the real worker bundle in workerd
 * against the local stack (edge/stack.ts), started once for the run. Files run one after another:
 * the relay's counters are the stack's, and each test reads them around its own requests.
 */
export default defineConfig({
  test: {
    include: ['test/edge/**/*.test.ts'],
    globalSetup: ['test/edge/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
