import type { Operation } from '../registry.js';

/**
 * Plain-language labels for the run's stream (`tool.started {tool, label}`): what a person watching
 * the run should read ("Searching what customers said about “pricing”"), not a function name.
 */
export function toolLabel(op: Operation | null, tool: string, args: Record<string, unknown>): string {
  if (op?.id === 'search.query') return searchLabel(args);
  if (tool === 'ask_user') return 'Asking you a question';
  if (tool === 'delegate') return `Handing a task to ${typeof args.agent === 'string' ? args.agent : 'another agent'}`;
  if (tool === 'final_answer') return 'Writing the answer';
  return op ? op.summary : `Calling ${tool}`;
}

function searchLabel(args: Record<string, unknown>): string {
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  const quoted = query ? `“${query.length > 80 ? `${query.slice(0, 77)}…` : query}”` : '';
  const surface = typeof args.surface === 'string' ? args.surface.replace('_', ' ') : 'interactions';
  if (args.job_id) return 'Collecting a search';
  if (args.mode === 'semantic') return `Searching what customers said about ${quoted || 'the question'}`;
  if (Array.isArray(args.metrics) && args.metrics.length > 0) return `Counting ${surface}`;
  if (!query && Array.isArray(args.filters)) return `Reading ${surface}`;
  return `Searching calls and emails for ${quoted || 'the question'}`;
}

/** A one-line summary of a tool result for `tool.completed`. */
export function toolSummary(result: {
  ok: boolean;
  output?: unknown;
  error?: { code: string; message: string };
}): string {
  if (!result.ok) return `${result.error?.code ?? 'error'}: ${result.error?.message ?? 'failed'}`.slice(0, 300);
  const output = result.output as {
    results?: unknown[];
    corpus?: { row_count?: number; empty_reason?: string };
  } | null;
  if (output && Array.isArray(output.results)) {
    const reason = output.corpus?.empty_reason;
    return output.results.length === 0 && reason
      ? `no rows (${reason})`
      : `${output.results.length} row${output.results.length === 1 ? '' : 's'}`;
  }
  return 'done';
}
