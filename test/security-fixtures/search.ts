import { expect } from 'vitest';
import type { SecurityFixture } from '../support/security-suite.js';

/** Security fixtures of the search surface (see index.ts for how to write one). */
export const searchFixtures: Record<string, SecurityFixture> = {
  // The filter lane on the workspace's (empty) warehouse: past validation an empty workspace is success: true.
  'search.query': {
    request: () => ({ body: { filters: [{ field: 'kind', op: 'eq', value: 'call' }], limit: 5 } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.success).toBe(true);
        expect(data.mode_ran).toBe('filter');
        expect(data.corpus.empty_reason).toBe('not_synced');
        expect(data.detail.coverage).toMatchObject({ total_rows: 0, latest_event_at: null });
      },
    },
  },
  'search.fields': {
    request: () => ({}),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(Object.keys(data.surfaces)).toEqual(['interactions', 'deals', 'deal_qualification']),
    },
  },
  'search.overview': {
    request: () => ({}),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        for (const surface of ['interactions', 'deals', 'deal_qualification'])
          expect(data.surfaces[surface]).toMatchObject({ row_count: 0, latest_event_at: null });
      },
    },
  },
};
