import { askedQuestion } from '../asked-question.js';
import type { AgentMessage, StepRequest, ToolCall } from '../../../platform/model/port.js';
import { ASK_USER, FINAL_ANSWER } from '../tool-names.js';
import { parseToolContent, toolExchanges } from '../transcript.js';
import { MEMORY_LINE } from '../memory-context.js';

/**
 * What the local policy knows at a step, read only from the request (it keeps no state between
 * steps: a run can crash, retry or move to another process and the same transcript gives the same
 * next step). Its own calls carry ids `s<step>_<purpose>`, so a later step finds each result by
 * what it was for.
 */
export interface PolicyContext {
  /** The user's words for this run (the last user message). */
  ask: string;
  /** Earlier user messages of the thread, oldest first. */
  earlierAsks: string[];
  /** "YYYY-MM-DD", from the system message (fixed when the run started). */
  today: string;
  agent: string;
  /** The run's depth tier: `deep` runs the research plan (research-plan.ts) on top of the chat plan. */
  depth: 'quick' | 'standard' | 'deep';
  /** Set when a routine fired the run: its findings should be committed as a document. */
  routine: string | null;
  /** Tool names offered this step. */
  tools: ReadonlySet<string>;
  mayAsk: boolean;
  /** The budget is spent: only final_answer is offered, and it must be called now. */
  mustFinish: boolean;
  /** 1 for the first step of the run. */
  step: number;
  results: Map<string, Result>;
  /** The workspace memory the run started with (memory-context.ts), most relevant first. */
  memories: { id: string; text: string }[];
}

export type Result = { ok: true; output: unknown } | { ok: false; error: { code: string; message: string } };

export function readContext(request: StepRequest): PolicyContext {
  const users = request.messages
    .filter((m): m is Extract<AgentMessage, { role: 'user' }> => m.role === 'user')
    .map((m) => m.content);
  const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
  const tools = new Set(request.tools.map((t) => t.name));
  const results = new Map<string, Result>();
  for (const { call, content } of toolExchanges(request.messages)) {
    const purpose = purposeOf(call);
    const parsed = content === null ? null : parseToolContent(content);
    if (purpose && parsed) results.set(purpose, parsed);
  }
  return {
    ask: askedQuestion(users.at(-1) ?? ''),
    earlierAsks: users.slice(0, -1).map(askedQuestion),
    today: /Today is (\d{4}-\d{2}-\d{2})/.exec(system)?.[1] ?? new Date(0).toISOString().slice(0, 10),
    agent: /Agent: ([a-z0-9-]+)/.exec(system)?.[1] ?? 'researcher',
    depth: (/Depth: (quick|standard|deep)/.exec(system)?.[1] as PolicyContext['depth'] | undefined) ?? 'standard',
    routine: /Routine: ([0-9a-f-]{36})/.exec(system)?.[1] ?? null,
    tools,
    mayAsk: tools.has(ASK_USER),
    mustFinish: request.toolChoice === 'required' && tools.size === 1 && tools.has(FINAL_ANSWER),
    step: request.messages.filter((m) => m.role === 'assistant').length + 1,
    results,
    memories: system.split('\n').flatMap((line) => {
      const m = MEMORY_LINE.exec(line);
      return m?.[1] && m[2] ? [{ id: m[1], text: m[2] }] : [];
    }),
  };
}

/** The purpose part of one of the policy's own call ids (`s2_deals` → `deals`). */
function purposeOf(call: ToolCall): string | null {
  return /^s\d+_(.+)$/.exec(call.id)?.[1] ?? null;
}

/** A search result's rows (empty for a failed call or a non-search output). */
export function rowsOf(result: Result | undefined): Record<string, unknown>[] {
  if (!result?.ok) return [];
  const rows = (result.output as { results?: unknown } | null)?.results;
  return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
}

/** What a search said about itself: its message, why it is empty, whether data is behind. */
export function searchNotes(result: Result | undefined): {
  message: string | null;
  emptyReason: string | null;
  stale: boolean;
} {
  if (!result?.ok) return { message: result ? result.error.message : null, emptyReason: null, stale: false };
  const out = result.output as {
    detail?: { message?: string; coverage?: { is_stale?: boolean } | null };
    corpus?: { empty_reason?: string };
  } | null;
  return {
    message: out?.detail?.message ?? null,
    emptyReason: out?.corpus?.empty_reason ?? null,
    stale: out?.detail?.coverage?.is_stale === true,
  };
}

/** The accounts the fuzzy lane matched for each company the ask named. */
export function matchedAccounts(
  result: Result | undefined,
): { asked: string; matched: { id: string; name: string }[] }[] {
  if (!result?.ok) return [];
  const plan = (result.output as { detail?: { internal?: { plan?: { accounts?: unknown } } } } | null)?.detail?.internal
    ?.plan;
  return Array.isArray(plan?.accounts)
    ? (plan.accounts as { asked: string; matched: { id: string; name: string }[] }[])
    : [];
}
