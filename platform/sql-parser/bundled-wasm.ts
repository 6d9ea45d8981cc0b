import type { PgQueryEmscriptenModule } from 'libpg-query/wasm/libpg-query.js';
import type { SqlParseResult, SqlParser } from './port.js';

let starting: Promise<PgQueryEmscriptenModule> | undefined;

/** The module, started once per isolate on first use; a failed start is retried on the next call. */
async function pgQuery(): Promise<PgQueryEmscriptenModule> {
  starting ??= import('./compiled-module.js').then((m) => m.startBundledPgQuery());
  try {
    return await starting;
  } catch (error) {
    starting = undefined;
    throw error;
  }
}

/**
 * libpg-query on Cloudflare Workers: the package's own emscripten module and parse, with the
 * WebAssembly bundled by wrangler as a compiled module instead of fetched and compiled at run time.
 * `parse` does what the package's wasm/index.js `parse` does, with the same exports and the same
 * result struct, so both adapters give the guard the same trees and the same syntax errors.
 */
export const bundledWasmSqlParser: SqlParser = {
  kind: 'bundled_wasm',
  async parse(sql: string): Promise<SqlParseResult> {
    return parseWith(await pgQuery(), sql);
  },
};

/**
 * One parse on a started module. The result is a PgQueryParseResult {char* parse_tree; char* stderr_buffer;
 * PgQueryError* error}, and a PgQueryError starts with its char* message (as wasm/index.js reads them).
 */
export function parseWith(pg: PgQueryEmscriptenModule, sql: string): SqlParseResult {
  const size = pg.lengthBytesUTF8(sql) + 1;
  const queryPointer = pg._malloc(size);
  let resultPointer = 0;
  try {
    pg.stringToUTF8(sql, queryPointer, size);
    resultPointer = pg._wasm_parse_query_raw(queryPointer);
    if (!resultPointer) throw new Error('libpg-query: parse result allocation failed');
    const treePointer = pg.getValue(resultPointer, 'i32');
    const errorPointer = pg.getValue(resultPointer + 8, 'i32');
    if (errorPointer) {
      const messagePointer = pg.getValue(errorPointer, 'i32');
      return { ok: false, syntaxError: messagePointer ? pg.UTF8ToString(messagePointer) : 'Unknown error' };
    }
    if (!treePointer) throw new Error('libpg-query: no parse tree generated');
    return { ok: true, tree: JSON.parse(pg.UTF8ToString(treePointer)) };
  } finally {
    pg._free(queryPointer);
    if (resultPointer) pg._wasm_free_parse_result(resultPointer);
  }
}
