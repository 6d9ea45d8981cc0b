import { expect } from 'vitest';
import type { SecurityFixture } from '../support/security-suite.js';

/** Security fixtures of the analyses (see index.ts for how to write one): each reads the workspace as a whole. */
export const analysisFixtures: Record<string, SecurityFixture> = {
  // An empty workspace's talk ratio: nothing of another tenant's conversations, and why it is empty.
  'analyses.talk_ratio': {
    request: () => ({ body: { period: { from: '2026-01-01', to: '2027-01-01' }, limit: 5 } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.analysis).toBe('talk_ratio');
        expect(data.results.by_rep).toEqual([]);
        expect(data.empty_reason).toMatch(/No timed turns/);
      },
    },
  },
};
