import { z } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allOperations } from '../functions/modules.js';
import { defineOperation, LAUNCH_SWITCHES, type Operation } from '../functions/registry.js';
import { ManualClock } from '../platform/clock.js';
import { ApiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { FakeHubSpot } from './support/fake-providers.js';
import { createHarness, type Harness } from './support/harness.js';
import { fixtureSurface, securityFixtures } from './security-fixtures/index.js';
import {
  createSecurityContext,
  describeSecurity,
  fieldsThatReadDates,
  hsIdpSigner,
  idpEnv,
  type SecurityContext,
  type SecurityFixture,
} from './support/security-suite.js';

/**
 * The security cases of every operation, driven by the registry: one harness and one pair of seeded
 * workspaces for the whole file. An operation without a fixture fails the first test below.
 */

const clock = new ManualClock('2026-03-10T12:00:00.000Z');
const idp = hsIdpSigner({
  issuer: 'https://idp.security.test',
  audience: 'cip-security-suite',
  secret: 'idp-shared-secret-for-the-security-suite',
  clock,
});

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
const probeOperations: Operation[] = [
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
const probeFixtures: Record<string, SecurityFixture> = {
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

let h: Harness;
let ctx: SecurityContext;
const get = () => ctx;

const hubspot = new FakeHubSpot();

beforeAll(async () => {
  await hubspot.start();
  h = await createHarness({
    clock,
    // Every launch switch on, so a `coming_soon` operation is probed like the others (off, it is 404 to everyone).
    env: {
      ...idpEnv(idp),
      ALLOW_LOOPBACK_WEBHOOKS: '1',
      HUBSPOT_API_BASE_URL: hubspot.url,
      ...Object.fromEntries(LAUNCH_SWITCHES.map((name) => [name, '1'])),
    },
    operations: [...allOperations, ...probeOperations],
  });
  ctx = await createSecurityContext(h, clock, idp);
});
afterAll(async () => {
  await h?.close();
  await hubspot.stop();
});

describe('security fixtures table', () => {
  it('has an entry for every operation in the registry, and none for an operation that does not exist', () => {
    const ids = allOperations.map((op) => op.id);
    const missing = ids.filter((id) => !securityFixtures[id]);
    const stale = Object.keys(securityFixtures).filter((id) => !ids.includes(id));
    expect(missing, `add these operations to test/security-fixtures/<surface>.ts: ${missing.join(', ')}`).toEqual([]);
    expect(
      stale,
      `remove these entries: ${stale.map((id) => `${id} (in test/security-fixtures/${fixtureSurface(id)}.ts)`).join(', ')}`,
    ).toEqual([]);
  });
});

describe('operations that read dates', () => {
  it('are found from their declarations (the date class of the suite below runs for each)', () => {
    const reading = allOperations
      .map((op) => [op.id, fieldsThatReadDates(op).map((f) => f.name)] as const)
      .filter(([, fields]) => fields.length > 0);
    expect(Object.fromEntries(reading)).toEqual({
      'search.query': ['query'],
      'research.start': ['question', 'context'],
      'chat.start': ['input'],
      'routines.create': ['prompt'],
      'routines.update': ['prompt'],
      'context.ask': ['query'],
    });
  });
});

describe('every operation', () => {
  for (const op of allOperations) {
    const fixture = securityFixtures[op.id];
    if (fixture) describeSecurity(op, fixture, get);
  }
});

describe('the suite itself, on probe operations that reach every branch', () => {
  for (const op of probeOperations) describeSecurity(op, probeFixtures[op.id] as SecurityFixture, get);
});
