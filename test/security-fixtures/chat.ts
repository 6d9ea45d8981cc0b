import { expect } from 'vitest';
import { startAgentRun } from '../../functions/agents/start.js';
import { authenticateApiKey } from '../../functions/identity/api-keys.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import type { Harness, Member, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';
import { readOnce } from './read-once.js';

/**
 * Security fixtures of the chat surface. A request that reads a run or a chat reads a finished one
 * (started as the member given, run to its end by the local model, which on an empty workspace
 * answers that nothing is synced), so a stream of it ends and nothing is left working; the reads of
 * a workspace share one (read-once.ts).
 */

/** Let every run queued so far finish, so no probe meets the per-workspace cap on working runs. */
export const settle = (h: Harness) => (h.services.queue as LocalTransport).drain();

export async function finishedChat(
  h: Harness,
  ws: SeededWorkspace,
  member: Member = ws.editor,
): Promise<{ chat_id: string; run_id: string }> {
  const caller = await authenticateApiKey(h.database.db, member.key, h.services.clock.now());
  const handles = await startAgentRun(h.services, caller, {
    input: 'What changed this week?',
    onQuestion: 'auto',
    depth: 'quick',
    trigger: 'api',
  });
  await settle(h);
  return handles;
}

/** The workspace's finished chat that the read operations share. */
const sharedChat = (h: Harness, ws: SeededWorkspace) => readOnce(ws, 'finished chat', () => finishedChat(h, ws));

const aRun = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { run_id: (await sharedChat(h, ws)).run_id },
});
const aChat = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { chat_id: (await sharedChat(h, ws)).chat_id },
});
/** A chat of its own for the renames, so the reads' chat keeps its name. */
const aChatToRename = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { chat_id: (await readOnce(ws, 'chat to rename', () => finishedChat(h, ws))).chat_id },
  body: { name: 'Renamed by the suite' },
});

export const chatFixtures: Record<string, SecurityFixture> = {
  'chat.start': {
    request: async ({ h }) => {
      await settle(h);
      return { body: { input: 'What changed this week?', config: { depth: 'quick' } } };
    },
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) =>
        expect(data).toMatchObject({ status: 'queued', chat_id: expect.any(String), run_id: expect.any(String) }),
    },
  },
  'chat.run_status': { request: aRun, tenancy: { kind: 'by_id', foreign: aRun } },
  'chat.run_stream': { request: aRun, tenancy: { kind: 'by_id', foreign: aRun } },
  'chats.list': {
    request: async ({ h, ws }) => {
      await sharedChat(h, ws);
      return { query: { limit: 200 } };
    },
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.total).toBeGreaterThan(0) },
  },
  'chats.get': { request: aChat, tenancy: { kind: 'by_id', foreign: aChat } },
  'chats.rename': { request: aChatToRename, tenancy: { kind: 'by_id', foreign: aChatToRename } },
};
