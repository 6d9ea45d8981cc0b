import { expect } from 'vitest';
import { newId } from '../../platform/ids.js';
import { artifacts, artifactVersions } from '../../schema/index.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';

/** Security fixtures of documents and actions: each probe gets a document of its own with a proposed version. */

const EMPTY_GROUNDING = {
  verified: true,
  quotes: { checked: 0, verified: 0, removed: 0 },
  tables: { checked: 0, verified: 0, removed: 0 },
  metrics: { checked: 0, verified: 0, removed: 0 },
  themes: { checked: 0, verified: 0, removed: 0 },
  numbers: { checked: 0, unverified: [] },
  problems: [],
};

async function insertDocument(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(artifacts).values({
    id,
    workspaceId: ws.id,
    title: 'Suite document',
    status: 'proposed',
    currentVersion: null,
    latestVersion: 1,
  });
  await h.database.db.insert(artifactVersions).values({
    artifactId: id,
    version: 1,
    workspaceId: ws.id,
    status: 'proposed',
    markdown: 'Suite text.',
    grounding: EMPTY_GROUNDING,
    reason: 'suite',
  });
  return id;
}

const aDocument = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertDocument(h, ws) },
});
const aVersion = async (ctx: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: (await aDocument(ctx)).params!.id!, version: '1' },
});

export const documentFixtures: Record<string, SecurityFixture> = {
  'outputs.write_doc': {
    request: () => ({ body: { title: 'Suite write', markdown: 'Nothing in figures.' } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data.version).toMatchObject({ version: 1, status: 'proposed' }),
    },
  },
  'artifacts.list': {
    request: async (ctx) => {
      await insertDocument(ctx.h, ctx.ws);
      return { query: { limit: 200 } };
    },
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.total).toBeGreaterThan(0) },
  },
  'artifacts.get': { request: aDocument, tenancy: { kind: 'by_id', foreign: aDocument } },
  'artifacts.versions': { request: aDocument, tenancy: { kind: 'by_id', foreign: aDocument } },
  'artifacts.promote': { request: aVersion, tenancy: { kind: 'by_id', foreign: aVersion } },
  'artifacts.reject': { request: aVersion, tenancy: { kind: 'by_id', foreign: aVersion } },
};

export const actionFixtures: Record<string, SecurityFixture> = {
  'actions.email_member': {
    request: ({ ws }) => ({ body: { to: ws.viewer.email, subject: 'Suite', body: 'Hello from the suite.' } }),
    tenancy: { kind: 'workspace', assertOwn: (data, { ws }) => expect(data.message.to).toBe(ws.viewer.email) },
  },
  'actions.outbox': { request: () => ({ query: { limit: 50 } }), tenancy: { kind: 'workspace' } },
};
