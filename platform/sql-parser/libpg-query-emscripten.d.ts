/**
 * Types for the two files of the libpg-query package that the Workers adapter imports directly
 * (the package types only its index): the emscripten factory and the WebAssembly beside it.
 */
declare module 'libpg-query/wasm/libpg-query.js' {
  /** The exports and runtime helpers of the built module that the package's own index.js uses. */
  export interface PgQueryEmscriptenModule {
    _malloc(size: number): number;
    _free(pointer: number): void;
    /** Parses to a PgQueryParseResult struct: {char* parse_tree; char* stderr_buffer; PgQueryError* error}. */
    _wasm_parse_query_raw(queryPointer: number): number;
    _wasm_free_parse_result(resultPointer: number): void;
    getValue(pointer: number, type: 'i32'): number;
    lengthBytesUTF8(text: string): number;
    stringToUTF8(text: string, pointer: number, maxBytes: number): void;
    UTF8ToString(pointer: number): string;
  }
  export interface PgQueryEmscriptenOptions {
    /**
     * Emscripten's hook for supplying the instance itself: called with the imports the module needs,
     * it must pass the instance to `done`; its return value is ignored when `done` is called later.
     */
    instantiateWasm?(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void): object;
  }
  const createPgQueryModule: (options?: PgQueryEmscriptenOptions) => Promise<PgQueryEmscriptenModule>;
  export default createPgQueryModule;
}

/** What wrangler makes of an imported .wasm (its CompiledWasm module rule): the compiled module. */
declare module 'libpg-query/wasm/libpg-query.wasm' {
  const compiled: WebAssembly.Module;
  export default compiled;
}
