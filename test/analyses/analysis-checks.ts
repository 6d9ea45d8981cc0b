import { expect } from 'vitest';
import type { BlockDraft } from '../../functions/agents/answer.js';
import { rerunCitedQuery } from '../../functions/agents/cited-query.js';
import { verifyAnswer } from '../../functions/agents/grounding.js';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { analysisOperations } from '../../functions/analyses/operations.js';
import { API_PREFIX } from '../../functions/http/env.js';
import type { Harness } from '../support/harness.js';

/**
 * Checks every analysis's tests share: its answer passes the grounding verifier as returned (the
 * verifier re-runs each cited operation or search as the caller), a table cell a model changes fails
 * it, a malformed request is a 400 naming the field, and the MCP `analyze` tool returns what REST does.
 */

export async function verifyAsReturned(h: Harness, key: string, workspaceId: string, out: AnalysisOutput) {
  const invoke = async (operationId: string, input: Record<string, unknown>) => {
    const op = analysisOperations.find((o) => o.id === operationId);
    const res = await h.request('POST', op ? op.path : '/search/query', { key, body: input });
    return res.status === 200
      ? { ok: true as const, output: (res.body as { data: unknown }).data }
      : { ok: false as const, error: (res.body as never as { error: never }).error };
  };
  const ctx = {
    db: h.database.db,
    workspaceId,
    rerun: (q: Record<string, unknown>) => rerunCitedQuery(invoke, q),
  };
  const honest = await verifyAnswer({ text: out.summary.join('\n'), content_blocks: out.blocks, follow_ups: [] }, ctx);
  return {
    honest,
    /** The answer with one cell changed: the first row's `column`, in the first table showing it. */
    tampered: async (column: string, value: unknown) => {
      const table = out.blocks.find((b) => b.kind === 'table' && b.columns.some((c) => c.key === column)) as Extract<
        BlockDraft,
        { kind: 'table' }
      >;
      const changed = { ...table, data: table.data.map((r, i) => (i === 0 ? { ...r, [column]: value } : r)) };
      return verifyAnswer({ text: 'The analysis.', content_blocks: [changed], follow_ups: [] }, ctx);
    },
  };
}

export async function expectInvalid(h: Harness, key: string, path: string, body: unknown, field: string) {
  const res = await h.request('POST', path, { key, body });
  expect(res.status, JSON.stringify(body)).toBe(400);
  const error = (res.body as { error: { code: string; details: { fields: { field: string }[] } } }).error;
  expect(error.code).toBe('invalid_argument');
  expect(error.details.fields.map((f) => f.field)).toContain(field);
}

/** The MCP `analyze` tool's answer to an action, as text. */
export async function mcpAnalyze(h: Harness, key: string, action: string, args: Record<string, unknown>) {
  const res = await h.fetch(`${API_PREFIX}/mcp`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'analyze', arguments: { action, ...args } },
    }),
  });
  return res.text();
}
