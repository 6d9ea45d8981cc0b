import { expect } from 'vitest';
import type { SecurityFixture } from '../support/security-suite.js';

/** Security fixtures of the setup surface (see index.ts for how to write one). */
export const setupFixtures: Record<string, SecurityFixture> = {
  'setup.status': {
    request: () => ({}),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data, { ws }) => {
        expect(data.workspace).toEqual({ id: ws.id, name: ws.name });
      },
    },
  },
};
