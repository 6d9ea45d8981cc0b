import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { PgQueryEmscriptenModule } from 'libpg-query/wasm/libpg-query.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkQuery } from '../../functions/sql-query/guard.js';
import { ApiError } from '../../platform/errors.js';
import { parseWith } from '../../platform/sql-parser/bundled-wasm.js';
import { startPgQueryModule } from '../../platform/sql-parser/emscripten-start.js';
import { packageSqlParser } from '../../platform/sql-parser/package.js';
import type { SqlParser } from '../../platform/sql-parser/port.js';

/**
 * The two ways the Postgres parser loads (platform/sql-parser): the npm package (Node) and the
 * emscripten module started from an already compiled .wasm (Workers; here compiled from the package's
 * own file, since Node cannot import a .wasm the way wrangler bundles it). Both must hand the guard
 * the same trees and the same syntax errors. That it loads in workerd itself is the edge tier's
 * test/edge/sql-query.test.ts.
 */
const wasmPath = createRequire(import.meta.url).resolve('libpg-query/wasm/libpg-query.wasm');
let started: PgQueryEmscriptenModule;

beforeAll(async () => {
  started = await startPgQueryModule(await WebAssembly.compile(readFileSync(wasmPath)));
});

const SAMPLES = [
  'select stage, count(*) as n from deals group by stage',
  "select 'é' || name as n from accounts -- trailing comment",
  'select 1; delete from accounts',
  'with gone as (delete from accounts returning id) select count(*) from gone',
  'select pg_sleep(10)',
  'select U&"d\\0061ta" from pg_catalog.pg_class',
  '/* block */ select x from "Quoted ""name"""',
];
const SYNTAX_ERRORS = ['selec 1', 'select from where', "select 'unterminated"];

describe('the SQL parser adapters', () => {
  it('give the same parse trees from the package and from the compiled module', async () => {
    for (const sql of SAMPLES) {
      const fromPackage = await packageSqlParser.parse(sql);
      expect(fromPackage.ok, sql).toBe(true);
      expect(parseWith(started, sql), sql).toEqual(fromPackage);
    }
  });

  it('give the same syntax errors', async () => {
    for (const sql of SYNTAX_ERRORS) {
      const fromPackage = await packageSqlParser.parse(sql);
      expect(fromPackage.ok, sql).toBe(false);
      expect(parseWith(started, sql), sql).toEqual(fromPackage);
    }
  });

  it('leave the globals the start borrowed as they were', async () => {
    await startPgQueryModule(await WebAssembly.compile(readFileSync(wasmPath)));
    expect(Object.hasOwn(process, 'type')).toBe(false);
    expect('location' in globalThis).toBe(false);
  });

  it('reject a start whose WebAssembly is not the parser, rather than wait forever', async () => {
    const notTheParser = await WebAssembly.compile(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    await expect(startPgQueryModule(notTheParser)).rejects.toThrow();
  });
});

describe('the guard with a parser that cannot load', () => {
  it('answers 503 dependency_unavailable, naming the parser, and never a syntax error', async () => {
    const broken: SqlParser = {
      kind: 'bundled_wasm',
      parse: () => Promise.reject(new Error('WebAssembly.instantiate(): refused')),
    };
    const error = await checkQuery(broken, 'select 1').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).code).toBe('dependency_unavailable');
    expect((error as ApiError).details).toEqual({
      reason: 'sql_parser_unavailable',
      parser: 'bundled_wasm',
      cause: 'WebAssembly.instantiate(): refused',
    });
  });
});
