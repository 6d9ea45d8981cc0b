import { z } from '@hono/zod-openapi';
import { expect } from 'vitest';
import { defineOperation, type Operation } from '../../functions/registry.js';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { SecurityFixture } from './security-suite.js';

/**
 * Probe operations that exercise the branches no live operation reaches yet (a scope gate, an editor
 * and an admin gate, a resource addressed by id, a console-only operation), so the suite itself is
 * known to catch what it claims before a real operation depends on it.
 */
const notes = new Map<string, { workspaceId: string; text: string }>();
const NoteSchema = z.object({ id: z.uuid(), text: z.string() });
const ownNote = (workspaceId: string, id: string) => {
  const note = notes.get(id);
  if (!note || note.workspaceId !== workspaceId) throw new ApiError('not_found', `No note ${id}.`, { id });
  return { id, text: note.text };
};
export const probeOperations: Operation[] = [
  defineOperation({
    id: 'security_probe.get_note',
    method: 'get',
    path: '/security-probe/notes/{id}',
    summary: 'Read a note (probe: viewer, data:read, by id, with an event-stream form)',
    tags: ['Probe'],
    scopes: ['data:read'],
    minRole: 'viewer',
    stability: 'stable',
    visibility: 'public',
    mcp: { tool: 'security_probe', action: 'get_note' },
    params: z.object({ id: z.uuid() }),
    output: NoteSchema,
    async handler(ctx, input) {
      return ownNote(ctx.caller.workspaceId, input.id);
    },
    async stream(ctx, input) {
      ownNote(ctx.caller.workspaceId, input.id);
      return { runId: input.id, after: 0 };
    },
  }),
  defineOperation({
    id: 'security_probe.create_note',
    method: 'post',
    path: '/security-probe/notes',
    summary: 'Create a note (probe: editor, two scopes, body)',
    tags: ['Probe'],
    scopes: ['data:read', 'agents:write'],
    minRole: 'editor',
    stability: 'stable',
    visibility: 'public',
    mcp: { tool: 'security_probe', action: 'create_note' },
    body: z.object({ text: z.string().min(1) }).strict(),
    output: NoteSchema,
    successStatus: 201,
    async handler(ctx, input) {
      const id = newId();
      notes.set(id, { workspaceId: ctx.caller.workspaceId, text: input.text });
      return { id, text: input.text };
    },
  }),
  defineOperation({
    id: 'security_probe.delete_note',
    method: 'delete',
    path: '/security-probe/notes/{id}',
    summary: 'Delete a note (probe: admin, by id)',
    tags: ['Probe'],
    scopes: ['agents:write'],
    minRole: 'admin',
    stability: 'stable',
    visibility: 'public',
    params: z.object({ id: z.uuid() }),
    output: z.object({ deleted: z.boolean() }),
    async handler(ctx, input) {
      ownNote(ctx.caller.workspaceId, input.id);
      notes.delete(input.id);
      return { deleted: true };
    },
  }),
  defineOperation({
    id: 'security_probe.console_settings',
    method: 'get',
    path: '/security-probe/console-settings',
    summary: 'Console only (probe)',
    tags: ['Probe'],
    scopes: [],
    minRole: 'viewer',
    stability: 'stable',
    visibility: 'console',
    output: z.object({ ok: z.boolean() }),
    async handler() {
      return { ok: true };
    },
  }),
];

const addNote = (workspaceId: string) => {
  const id = newId();
  notes.set(id, { workspaceId, text: `note of ${workspaceId}` });
  return { params: { id } };
};
export const probeFixtures: Record<string, SecurityFixture> = {
  'security_probe.get_note': {
    request: ({ ws }) => addNote(ws.id),
    tenancy: { kind: 'by_id', foreign: async ({ ws }) => addNote(ws.id) },
  },
  'security_probe.create_note': {
    request: () => ({ body: { text: 'hello' } }),
    tenancy: { kind: 'workspace', assertOwn: (data, { ws }) => expect(notes.get(data.id)?.workspaceId).toBe(ws.id) },
  },
  'security_probe.delete_note': {
    request: ({ ws }) => addNote(ws.id),
    tenancy: { kind: 'by_id', foreign: async ({ ws }) => addNote(ws.id) },
  },
  'security_probe.console_settings': { request: () => ({}), tenancy: { kind: 'workspace' } },
};
