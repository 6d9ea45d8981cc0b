import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/longest-first.js';
import { TEST_TAGS } from './test/support/tags.js';

/**
 * The suite in tiers (vitest projects), all on the one global setup (the migrated template and the
 * demo corpus, built once per run and loaded per file):
 *
 *   - `api` (`npm test`): the unit and API tests, the security suite split by surface, and the answer
 *     sets with their tools' results replayed (test/support/tool-recording.ts).
 *   - `answers-live`: the same answer sets with every tool run live, end to end.
 *   - `browser`: the console in Chromium.
 *   - `checks`: the layering rules and the Workers bundle, which `npm run lint` and `.ci/run` also check.
 *
 * `npm run test:all` runs every tier (CI runs it); the edge and PostgreSQL tiers have their own configs.
 */

const ANSWER_SETS = ['test/agents/demo-questions.test.ts', 'test/agents/question-set/question-set.test.ts'];
const BROWSER = ['test/console/*-browser.test.ts', 'test/console/browser.test.ts'];
const CHECKS = ['test/layering.test.ts', 'test/worker-bundle.test.ts'];

const shared = {
  // Tests tagged `race` run here on PGlite and again on PostgreSQL: `npm run test:pg` (vitest.pg.config.ts).
  tags: TEST_TAGS,
  testTimeout: 30_000,
  // Generous: a file's set-up loads a database dump, which a busy machine can make slow.
  hookTimeout: 120_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    maxWorkers: 2,
    // The longest files start first, so the short ones fill in beside them (test/support/longest-first.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          name: 'api',
          include: ['test/**/*.test.ts'],
          // A worker runs its files one after another in one process and keeps the modules it has
          // loaded: the app, PGlite's compiled WebAssembly and the NLP library load once per worker,
          // not once per file (about 7 s of CPU a file). Files share no state beyond that: each
          // opens its own database and app, and restores the timers and mocks it changes.
          isolate: false,
          // The edge tier runs the worker in workerd: `npm run test:edge` (vitest.edge.config.ts).
          exclude: ['test/edge/**', '**/node_modules/**', ...BROWSER, ...CHECKS],
          env: { ANSWER_TOOLS: process.env.ANSWER_TOOLS ?? 'replay' },
        },
      },
      { test: { ...shared, name: 'answers-live', include: ANSWER_SETS, env: { ANSWER_TOOLS: 'live' } } },
      { test: { ...shared, name: 'browser', include: BROWSER } },
      { test: { ...shared, name: 'checks', include: CHECKS } },
    ],
  },
});
