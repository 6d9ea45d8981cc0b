import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { LIBRARY_AGENTS } from '../../functions/agents/library.js';
import { defineOperation, type Operation } from '../../functions/registry.js';
import { usageCounters } from '../../schema/index.js';

/**
 * Operations an agent can call in loop tests: one whose every call leaves a countable trace (so a
 * test can prove each tool call's side effect happened once), and one that waits until the test
 * lets it go (to cancel a run in the middle of a tool call).
 */

/**
 * Library agents offer only their curated tools; loop tests that run them (chats default to the
 * researcher, research jobs always are it) call the testing operations too, so those are added to
 * every library agent's toolset before the tests of the file that calls this (at its top level),
 * and taken out after them: the worker runs other files in the same process, which must see the
 * library as it is. Nothing outside tests calls this.
 */
export function offerTestingToolsToLibraryAgents(): void {
  const added: { tools: string[]; id: string }[] = [];
  beforeAll(() => {
    for (const agent of LIBRARY_AGENTS) {
      const tools = agent.tools as string[];
      for (const op of agentTestOperations)
        if (!tools.includes(op.id)) {
          tools.push(op.id);
          added.push({ tools, id: op.id });
        }
    }
  });
  afterAll(() => {
    for (const { tools, id } of added.splice(0)) tools.splice(tools.indexOf(id), 1);
  });
}

export const effectFamily = (tag: string) => `agent-effect:${tag}`;

/** Release functions of `testing.wait_for_release` calls in progress, by tag. */
export const held = new Map<string, () => void>();
export const started = new Map<string, number>();
/** Calls of `testing.crash_once` by tag: the first one dies like a killed process would. */
export const crashes = new Map<string, number>();

export const agentTestOperations: Operation[] = [
  defineOperation({
    id: 'testing.count_effect',
    method: 'post',
    path: '/testing/count-effect',
    summary: 'Record one effect under a tag (a countable trace of each call)',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    // A POST an agent may call without approval, like search.query: what it writes is the trace itself.
    readOnly: true,
    body: z.object({ tag: z.string().min(1).max(100) }).strict(),
    output: z.object({ recorded: z.literal(true), tag: z.string() }),
    async handler(ctx, input) {
      await ctx.services.db
        .insert(usageCounters)
        .values({ workspaceId: ctx.caller.workspaceId, family: effectFamily(input.tag), period: 'test', used: 1 })
        .onConflictDoUpdate({
          target: [usageCounters.workspaceId, usageCounters.family, usageCounters.period],
          set: { used: sql`${usageCounters.used} + 1` },
        });
      return { recorded: true as const, tag: input.tag };
    },
  }),
  defineOperation({
    id: 'testing.wait_for_release',
    method: 'get',
    path: '/testing/wait-for-release',
    summary: 'Wait until the test releases this call (a slow tool)',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    query: z.object({ tag: z.string().min(1) }).strict(),
    output: z.object({ released: z.literal(true) }),
    async handler(_ctx, input) {
      started.set(input.tag, (started.get(input.tag) ?? 0) + 1);
      await new Promise<void>((resolve) => held.set(input.tag, resolve));
      return { released: true as const };
    },
  }),
  defineOperation({
    id: 'testing.crash_once',
    method: 'get',
    path: '/testing/crash-once',
    summary: 'Crash (a plain error, as a dying process) on the first call of a tag, answer after',
    tags: ['Testing'],
    scopes: [],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    query: z.object({ tag: z.string().min(1) }).strict(),
    output: z.object({ survived: z.literal(true) }),
    async handler(_ctx, input) {
      const n = (crashes.get(input.tag) ?? 0) + 1;
      crashes.set(input.tag, n);
      if (n === 1) throw new Error('the process died mid-call');
      return { survived: true as const };
    },
  }),
];
