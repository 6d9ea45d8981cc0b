import { expect } from 'vitest';
import { newId } from '../../platform/ids.js';
import { routines } from '../../schema/index.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';
import { settle } from './chat.js';

/** Security fixtures of routines: each probe gets a routine of its own (disabled: the suite's clock never fires it). */

async function insertRoutine(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(routines).values({
    id,
    workspaceId: ws.id,
    name: 'Suite routine',
    prompt: 'Which deals are in negotiation?',
    cron: '0 9 * * 1',
    timezone: 'UTC',
    config: {},
    enabled: false,
    createdBy: ws.editor.userId,
    caller: {
      user_id: ws.editor.userId,
      email: ws.editor.email,
      role: 'editor',
      auth_method: 'identity_provider',
      credential_id: 'suite',
      scopes: ['data:read'],
      bundle: null,
    },
  });
  return id;
}

const aRoutine = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertRoutine(h, ws) },
});
const body = {
  name: 'Weekly digest',
  prompt: 'Which deals are in negotiation?',
  cron: '0 9 * * 1',
  timezone: 'Europe/Berlin',
};

export const routineFixtures: Record<string, SecurityFixture> = {
  'routines.list': {
    request: async (ctx) => {
      await insertRoutine(ctx.h, ctx.ws);
      return { query: { limit: 200 } };
    },
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.total).toBeGreaterThan(0) },
  },
  'routines.get': { request: aRoutine, tenancy: { kind: 'by_id', foreign: aRoutine } },
  'routines.create': {
    request: () => ({ body }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data).toMatchObject({ name: 'Weekly digest', enabled: true }),
    },
  },
  'routines.update': {
    request: async (ctx) => ({ ...(await aRoutine(ctx)), body: { name: 'Renamed' } }),
    tenancy: { kind: 'by_id', foreign: async (ctx) => ({ ...(await aRoutine(ctx)), body: { name: 'Renamed' } }) },
  },
  'routines.delete': { request: aRoutine, tenancy: { kind: 'by_id', foreign: aRoutine } },
  'routines.run_now': {
    request: async (ctx) => {
      await settle(ctx.h);
      return aRoutine(ctx);
    },
    tenancy: { kind: 'by_id', foreign: aRoutine },
  },
};
