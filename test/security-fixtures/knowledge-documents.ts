import { expect } from 'vitest';
import { newId } from '../../platform/ids.js';
import { contextEntries, documentGroups, knowledgeNodes, pins, storedFiles } from '../../schema/knowledge.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';

const TEXT = 'Knowledge fixtures: support answers within four business hours.';
const B64 = Buffer.from(`# Fixture\n\n${TEXT}\n`).toString('base64');
const NODE_KEY = 'p-0000abcd';

async function insertFile(h: Harness, ws: SeededWorkspace, purpose: 'library' | 'knowledge' | 'context_attachment') {
  const id = newId();
  await h.database.db.insert(storedFiles).values({
    id,
    workspaceId: ws.id,
    purpose,
    filename: 'fixture.md',
    contentType: 'text/markdown',
    byteSize: TEXT.length,
    storageKey: `${ws.id}/${id}`,
    sha256: '0'.repeat(64),
    createdBy: ws.admin.userId,
  });
  return id;
}

/** A ready document with one node, written straight to the tables (no ingest run needed). */
async function insertDocument(h: Harness, ws: SeededWorkspace): Promise<string> {
  const fileId = await insertFile(h, ws, 'knowledge');
  const id = newId();
  await h.database.db.insert(documentGroups).values({
    id,
    workspaceId: ws.id,
    fileId,
    title: 'Fixture document',
    format: 'markdown',
    status: 'ready',
    nodeCount: 1,
    createdBy: ws.admin.userId,
  });
  await h.database.db.insert(knowledgeNodes).values({
    workspaceId: ws.id,
    documentGroupId: id,
    nodeKey: NODE_KEY,
    kind: 'paragraph',
    position: 0,
    heading: '',
    text: TEXT,
  });
  return id;
}

async function insertPin(h: Harness, ws: SeededWorkspace, userId: string): Promise<string> {
  const id = await insertDocument(h, ws);
  await h.database.db.insert(pins).values({ workspaceId: ws.id, userId, documentGroupId: id, nodeKey: NODE_KEY });
  return id;
}

async function insertEntry(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(contextEntries).values({
    id,
    workspaceId: ws.id,
    scope: 'workspace',
    userId: null,
    title: 'Fixture background',
    body: 'We sell to mid-market SaaS.',
    createdBy: ws.admin.userId,
  });
  return id;
}

const aDocument = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertDocument(h, ws) },
});
const aNode = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertDocument(h, ws), node_key: NODE_KEY },
});
const anEntry = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertEntry(h, ws) },
});
const aLibraryFile = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertFile(h, ws, 'library') },
});

/** Security fixtures of the knowledge surface: the knowledge bank, pins, context entries and the library. */
export const knowledgeDocumentFixtures: Record<string, SecurityFixture> = {
  'knowledge.upload': {
    request: async () => ({ body: { content_base64: B64, filename: 'fixture.md' } }),
    tenancy: { kind: 'workspace' },
  },
  'knowledge.list': {
    request: async ({ h, ws }) => {
      await insertDocument(h, ws);
      return { query: { limit: 5 } };
    },
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data.documents.length).toBeGreaterThan(0),
    },
  },
  'knowledge.get': { request: aDocument, tenancy: { kind: 'by_id', foreign: aDocument } },
  'knowledge.nodes': { request: aDocument, tenancy: { kind: 'by_id', foreign: aDocument } },
  'knowledge.search': {
    request: async ({ h, ws }) => {
      await insertDocument(h, ws);
      return { body: { query: 'support hours', mode: 'keyword' } };
    },
    tenancy: { kind: 'workspace' },
  },
  'knowledge.node_widget': { request: aNode, tenancy: { kind: 'by_id', foreign: aNode } },
  'knowledge.delete': { request: aDocument, tenancy: { kind: 'by_id', foreign: aDocument } },
  'pins.list': { request: async () => ({ query: { limit: 5 } }), tenancy: { kind: 'workspace' } },
  'pins.create': {
    request: async ({ h, ws }) => ({ body: { document_group_id: await insertDocument(h, ws), node_key: NODE_KEY } }),
    tenancy: {
      kind: 'by_id',
      foreign: async ({ h, ws }) => ({ body: { document_group_id: await insertDocument(h, ws), node_key: NODE_KEY } }),
    },
  },
  'pins.delete': {
    // Every member of the workspace gets the pin, so whichever member probes has one to remove.
    request: async ({ h, ws }) => {
      const id = await insertDocument(h, ws);
      for (const m of [ws.admin, ws.editor, ws.viewer])
        await h.database.db
          .insert(pins)
          .values({ workspaceId: ws.id, userId: m.userId, documentGroupId: id, nodeKey: NODE_KEY });
      return { params: { document_group_id: id, node_key: NODE_KEY } };
    },
    tenancy: {
      kind: 'by_id',
      foreign: async ({ h, ws }) => ({
        params: { document_group_id: await insertPin(h, ws, ws.admin.userId), node_key: NODE_KEY },
      }),
    },
  },
  'context.create': {
    request: async () => ({ body: { scope: 'member', title: 'My role', body: 'I own the EMEA accounts.' } }),
    tenancy: { kind: 'workspace' },
  },
  'context.list': { request: async () => ({}), tenancy: { kind: 'workspace' } },
  'context.get': { request: anEntry, tenancy: { kind: 'by_id', foreign: anEntry } },
  'context.attach': {
    request: async ({ h, ws }) => ({
      params: { id: await insertEntry(h, ws) },
      body: { content_base64: B64, filename: 'fixture.md' },
    }),
    tenancy: {
      kind: 'by_id',
      foreign: async ({ h, ws }) => ({
        params: { id: await insertEntry(h, ws) },
        body: { content_base64: B64, filename: 'fixture.md' },
      }),
    },
  },
  'context.delete': { request: anEntry, tenancy: { kind: 'by_id', foreign: anEntry } },
  'library.upload': {
    request: async () => ({ body: { content_base64: B64, filename: 'fixture.md' } }),
    tenancy: { kind: 'workspace' },
  },
  'library.list': { request: async () => ({ query: { limit: 5 } }), tenancy: { kind: 'workspace' } },
  'library.delete': { request: aLibraryFile, tenancy: { kind: 'by_id', foreign: aLibraryFile } },
};
