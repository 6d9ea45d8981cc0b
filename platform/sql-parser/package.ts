import type { SqlParseResult, SqlParser } from './port.js';

type PackageModule = typeof import('libpg-query');
let loading: Promise<PackageModule> | undefined;

/**
 * libpg-query as published (Node: the embedded default and the tests). Imported on first use, not
 * at import: the package starts loading its WebAssembly the moment it is imported, and this file is
 * also in the Worker's bundle (the services' default), where that load could only fail. A failed load
 * is retried on the next call.
 */
export const packageSqlParser: SqlParser = {
  kind: 'package',
  async parse(sql: string): Promise<SqlParseResult> {
    loading ??= import('libpg-query');
    let pg: PackageModule;
    try {
      pg = await loading;
    } catch (error) {
      loading = undefined;
      throw error;
    }
    try {
      return { ok: true, tree: await pg.parse(sql) };
    } catch (error) {
      if (error instanceof pg.SqlError) return { ok: false, syntaxError: error.message };
      throw error;
    }
  },
};
