import { describe, expect, it } from 'vitest';
import {
  parseToolContent,
  searchesIn,
  TOOL_RESULT_BUDGET,
  toolExchanges,
  toolResultContent,
} from '../../functions/agents/transcript.js';

/** Tool results enter the transcript within a budget, saying what was cut. */

const bigSearch = () => ({
  ok: true as const,
  output: {
    success: true,
    compiled: { sql: 'SELECT '.repeat(500) },
    results: Array.from({ length: 40 }, (_, i) => ({
      id: `row-${i}`,
      title: `Call ${i}`,
      text: `${'word '.repeat(300)}end ${i}`,
    })),
    corpus: { row_count: 40, coverage: { age_buckets: { last_7d: { row_count: 1 } } } },
  },
});

describe('toolResultContent', () => {
  it('leaves a small result as its JSON', () => {
    const small = { ok: false as const, error: { code: 'scope_denied', message: 'nope' } };
    expect(toolResultContent(small)).toBe(JSON.stringify(small));
  });

  it('cuts a large result to the budget: debug fields first, then long strings, then rows from the end, and says so', () => {
    const content = toolResultContent(bigSearch());
    expect(content.length).toBeLessThanOrEqual(TOOL_RESULT_BUDGET);
    const parsed = parseToolContent(content) as {
      ok: true;
      output: { compiled?: unknown; results: { id: string; text: string }[]; _cut?: string };
    } & { _cut?: string };
    expect(parsed.ok).toBe(true);
    expect(parsed.output.compiled).toBeUndefined();
    expect(parsed.output.results[0]!.id).toBe('row-0');
    expect(parsed.output.results[0]!.text.endsWith('…')).toBe(true);
    expect(parsed.output.results.length).toBeLessThan(40);
    const note = (parsed as unknown as { _cut: string })._cut;
    expect(note).toContain('debug fields');
    expect(note).toMatch(new RegExp(`output\\.results: kept ${parsed.output.results.length} of 40`));
  });

  it("drops an analysis's copy of its rows before any of its tables: the blocks show them, a citation re-runs it", () => {
    const rows = (n: number, what: string) =>
      Array.from({ length: n }, (_, i) => ({ name: `${what} ${i}`, note: 'x'.repeat(60) }));
    const table = (what: string, n: number) => ({ kind: 'table', title: what, columns: [], data: rows(n, what) });
    const analysis = {
      ok: true as const,
      output: {
        analysis: 'account_history',
        summary: ['Deals: 4 opened.'],
        blocks: [table('overview', 1), table('changes', 40), table('deals', 4)],
        results: { overview: rows(1, 'overview'), changes: rows(40, 'changes'), deals: rows(4, 'deals') },
        empty_reason: null,
      },
    };
    expect(JSON.stringify(analysis).length).toBeGreaterThan(TOOL_RESULT_BUDGET);
    const parsed = parseToolContent(toolResultContent(analysis)) as unknown as {
      output: { blocks: { title: string; data: unknown[] }[]; results?: unknown };
      _cut: string;
    };
    expect(parsed.output.results).toBeUndefined();
    expect(parsed.output.blocks.map((b) => [b.title, b.data.length])).toEqual([
      ['overview', 1],
      ['changes', 40],
      ['deals', 4],
    ]);
    expect(parsed._cut).toContain('output.results dropped');
    // A search's results are its rows, not a copy: they are cut, never dropped.
    const search = parseToolContent(toolResultContent(bigSearch())) as unknown as { output: { results: unknown[] } };
    expect(search.output.results.length).toBeGreaterThan(0);
  });

  it('pairs each tool call with its result', () => {
    const exchanges = toolExchanges([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', name: 'x', arguments: {} },
          { id: 'b', name: 'y', arguments: {} },
        ],
      },
      { role: 'tool', tool_call_id: 'a', name: 'x', content: '{"ok":true,"output":1}' },
    ]);
    expect(exchanges.map((e) => [e.call.id, e.content])).toEqual([
      ['a', '{"ok":true,"output":1}'],
      ['b', null],
    ]);
    expect(parseToolContent('{"ok":tru')).toBeNull();
  });
});

describe('the searches a run made, read back for the absence check', () => {
  const exchange = (id: string, args: Record<string, unknown>, content: string) => [
    { role: 'assistant' as const, content: null, tool_calls: [{ id, name: 'search_query', arguments: args }] },
    { role: 'tool' as const, tool_call_id: id, name: 'search_query', content },
  ];
  it('counts what each search found: rows, an aggregate counting 0 as nothing, and a cut result by its count before the cut', () => {
    const tiny = 300;
    const cut = toolResultContent(bigSearch(), tiny);
    expect(JSON.parse(cut).output.results.length).toBe(0);
    const messages = [
      ...exchange('a', { query: 'pricing' }, JSON.stringify({ ok: true, output: { results: [{ id: 1 }, { id: 2 }] } })),
      ...exchange('b', { surface: 'deals' }, JSON.stringify({ ok: true, output: { results: [{ count: 0 }] } })),
      ...exchange('c', { query: 'big' }, cut),
      ...exchange('d', { query: 'failed' }, JSON.stringify({ ok: false, error: { code: 'x', message: 'y' } })),
    ];
    expect(searchesIn(messages)).toEqual([
      { request: { query: 'pricing' }, results: 2 },
      { request: { surface: 'deals' }, results: 0 },
      { request: { query: 'big' }, results: 40 },
    ]);
  });
});
