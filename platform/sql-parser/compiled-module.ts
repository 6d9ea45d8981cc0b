import type { PgQueryEmscriptenModule } from 'libpg-query/wasm/libpg-query.js';
import compiledPgQuery from 'libpg-query/wasm/libpg-query.wasm';
import { startPgQueryModule } from './emscripten-start.js';

/**
 * libpg-query started from the .wasm that wrangler bundles as a compiled module (its CompiledWasm rule
 * for imported .wasm files). Only the Workers bundle can import this file (Node and vitest do not load
 * .wasm as a module), so the adapter (bundled-wasm.ts) imports it dynamically, on first use.
 */
export const startBundledPgQuery = (): Promise<PgQueryEmscriptenModule> => startPgQueryModule(compiledPgQuery);
