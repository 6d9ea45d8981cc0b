import { expect } from 'vitest';
import { newId } from '../../platform/ids.js';
import { accounts } from '../../schema/index.js';
import type { FixtureContext, OperationRequest, SecurityFixture } from '../support/security-suite.js';

/** Security fixtures of lookalikes (see index.ts for how to write one). */

/** An account with no conversation in `ws`, addressed as a company seed: past the checks it answers available: false. */
async function companySeed({ h, ws }: FixtureContext): Promise<OperationRequest> {
  const id = newId();
  await h.database.db.insert(accounts).values({ id, workspaceId: ws.id, name: `Suite account ${id.slice(-6)}` });
  return { body: { entity_type: 'company', entity_id: id, limit: 5 } };
}

export const lookalikeFixtures: Record<string, SecurityFixture> = {
  'lookalike.find': { request: companySeed, tenancy: { kind: 'by_id', foreign: companySeed } },
  'lookalike.similar_themes': {
    request: () => ({ body: { query: 'slow security reviews', limit: 5 } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data).toMatchObject({ success: true, results: [], freshness: { theme_count: 0 } }),
    },
  },
};
