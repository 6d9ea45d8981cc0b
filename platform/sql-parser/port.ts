/**
 * The real Postgres parser (libpg-query, PostgreSQL's own grammar compiled to WebAssembly) that the
 * SQL query guard reads parse trees from. Only how the WebAssembly loads differs by runtime, so the
 * entry point picks the adapter: the npm package as published on Node (package.ts: it fetches and
 * compiles its .wasm itself), the .wasm bundled as a compiled module on Cloudflare Workers
 * (bundled-wasm.ts: Workers refuse to compile WebAssembly from bytes at run time).
 */
export interface SqlParser {
  /** Which adapter this is (shown in errors and logs). */
  readonly kind: 'package' | 'bundled_wasm';
  /**
   * The statement list as libpg-query's JSON tree (`{version, stmts: [{stmt, stmt_location, stmt_len}]}`),
   * or the parser's syntax error. Throws only when the parser itself cannot load or run.
   */
  parse(sql: string): Promise<SqlParseResult>;
}

export type SqlParseResult = { ok: true; tree: unknown } | { ok: false; syntaxError: string };
