import { expect } from 'vitest';
import type { SecurityFixture } from '../support/security-suite.js';

/** Simulate reads the caller's workspace as a whole (its deals); there is no resource to address by id. */
export const simulateFixtures: Record<string, SecurityFixture> = {
  'simulate.run': {
    request: () => ({
      body: { scenario: 'Suite', assumptions: [{ type: 'scale', field: 'amount', factor: 1.1 }], metrics: ['count'] },
    }),
    tenancy: {
      kind: 'workspace',
      // The suite's workspaces hold no deal: a thin cohort, answered at 200 without a projection.
      assertOwn: (data) => expect(data).toMatchObject({ success: true, projection: null, reason: 'cohort_too_thin' }),
    },
  },
};
