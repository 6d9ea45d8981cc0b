import { expect } from 'vitest';
import { newId } from '../../platform/ids.js';
import { sessions } from '../../schema/sessions.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';

async function insertSession(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(sessions).values({ id, workspaceId: ws.id, userId: ws.admin.userId, name: 'suite' });
  return id;
}

const aSession = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertSession(h, ws) },
});

/** Security fixtures of memory, sessions and the knowledge operations (see index.ts for how to write one). */
export const knowledgeFixtures: Record<string, SecurityFixture> = {
  'memory.remember': {
    // A fresh text per probe, so every authorized call stores a row of its own workspace.
    request: () => ({ body: { text: `Security suite evidence ${newId()}`, source: 'web' } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data.persisted).toBe(true),
    },
  },
  'context.search': {
    request: () => ({ body: { query: 'pricing', mode: 'keyword' } }),
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.sources_searched).toContain('memory') },
  },
  'context.cluster_search': {
    request: () => ({ body: { query: 'pricing' } }),
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.clusters_searched).toBe(0) },
  },
  'context.explore': {
    request: () => ({ query: { scope: 'knowledge' } }),
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.scope).toBe('knowledge') },
  },
  'context.substrate_query': {
    request: () => ({ body: { intent: 'assess_viability', query: 'pricing' } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data.summary.evidence_items).toBe(data.results.length),
    },
  },
  'context.ask': {
    request: () => ({ body: { query: 'Why do customers push back on pricing?' } }),
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(typeof data.answer).toBe('string') },
  },
  'sessions.list': {
    request: async ({ h, ws }) => {
      await insertSession(h, ws);
      return { query: { limit: 200 } };
    },
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data.sessions.length).toBeGreaterThan(0),
    },
  },
  'sessions.create': {
    request: () => ({ body: { name: 'suite', metadata: { from: 'security-suite' } } }),
    tenancy: { kind: 'workspace', assertOwn: (data, { ws }) => expect(data.session.business_id).toBe(ws.id) },
  },
  'sessions.get': { request: aSession, tenancy: { kind: 'by_id', foreign: aSession } },
  'sessions.delete': { request: aSession, tenancy: { kind: 'by_id', foreign: aSession } },
};
