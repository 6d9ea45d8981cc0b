import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/longest-first.js';
import { TEST_TAGS } from './test/support/tags.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The edge tier runs the worker in workerd: `npm run test:edge` (vitest.edge.config.ts).
    exclude: ['test/edge/**', '**/node_modules/**'],
    // Tests tagged `race` run here on PGlite and again on PostgreSQL: `npm run test:pg` (vitest.pg.config.ts).
    tags: TEST_TAGS,
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // The longest files start first, so the short ones fill in beside them (test/support/longest-first.ts).
    sequence: { sequencer: LongestFirstSequencer },
  },
});
