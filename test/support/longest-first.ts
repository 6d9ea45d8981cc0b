import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's longest files, longest first, as measured by a full run's JSON report
 * (`npx vitest run --project api --reporter=json --outputFile=…`; the browser and checks files where
 * `npm run test:all` puts them). On a clean checkout vitest has no
 * durations cached and starts the largest files first, which puts a long file such as the security
 * suite (many cases in a short file) near the end, where it runs alone while the other worker idles.
 * Starting these first lets the many short files fill in beside them. A file missing here is only
 * ordered by vitest's own rule; a renamed one is simply ignored, so the list cannot break a run.
 */
export const LONGEST_FILES = [
  'test/security/agents.test.ts',
  'test/admin-cli.test.ts',
  'test/security/data.test.ts',
  'test/research/research-questions.test.ts',
  'test/security/knowledge.test.ts',
  'test/research/research-depth.test.ts',
  'test/console/ask-browser.test.ts',
  'test/agents/question-set/question-set.test.ts',
  'test/layering.test.ts',
  'test/warehouse-corpus.test.ts',
  'test/security/workspace.test.ts',
  'test/console/ask-pages.test.ts',
  'test/agents/quote-attribution.test.ts',
  'test/embedded/pglite-data-dir.test.ts',
  'test/worker-bundle.test.ts',
  'test/knowledge/ingest-bounds.test.ts',
  'test/knowledge/uploads.test.ts',
  'test/search/semantic-filters.test.ts',
  'test/adapters/edge-relay.test.ts',
  'test/research/research.test.ts',
  'test/connections/hubspot-sync.test.ts',
  'test/research/research-hosted.test.ts',
  'test/agents/demo-questions.test.ts',
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const at = LONGEST_FILES.indexOf(relative(file.project.config.root, file.moduleId).replaceAll('\\', '/'));
      return at === -1 ? LONGEST_FILES.length : at;
    };
    // Array.prototype.sort is stable: files off the list keep vitest's order among themselves.
    return byVitest.sort((a, b) => rank(a) - rank(b));
  }
}
