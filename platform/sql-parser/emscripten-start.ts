import createPgQueryModule, { type PgQueryEmscriptenModule } from 'libpg-query/wasm/libpg-query.js';

/**
 * libpg-query's emscripten module, started from an already compiled WebAssembly module through
 * emscripten's `instantiateWasm` hook, so that it neither fetches nor compiles anything itself
 * (Workers refuse to compile WebAssembly from bytes at run time). compiled-module.ts passes the
 * .wasm wrangler bundles; tests pass one compiled from the package's file.
 */
export function startPgQueryModule(compiled: WebAssembly.Module): Promise<PgQueryEmscriptenModule> {
  // Emscripten waits for `done` forever, so a failed instantiation (or a module `done` cannot take)
  // must reject the start by itself.
  let failed!: (error: unknown) => void;
  const instantiationFailed = new Promise<never>((_, reject) => {
    failed = reject;
  });
  const started = asWebWorker(() =>
    createPgQueryModule({
      instantiateWasm(imports, done) {
        WebAssembly.instantiate(compiled, imports)
          .then((instance) => done(instance))
          .catch(failed);
        return {};
      },
    }),
  );
  return Promise.race([started, instantiationFailed]);
}

/** Where emscripten's web-worker path says the script came from; nothing is fetched from it (instantiateWasm). */
const NOWHERE = 'https://libpg-query.invalid/';

/**
 * Emscripten picks its environment in the synchronous start of the factory call, and workerd looks
 * like two at once: Node (nodejs_compat gives `process.versions.node`), whose path then reads the
 * undefined `__dirname`, and a web worker (`WorkerGlobalScope`), whose path reads the undefined
 * `self.location.href`. For that synchronous moment only, it is shown a web worker: `process.type`
 * 'renderer' (emscripten's own test for "not Node") and a `location`; both are put back before
 * anything else can run. As a web worker it uses fetch/XHR only to load files, which it never does
 * here, and crypto.getRandomValues, which Workers have.
 */
function asWebWorker<T>(start: () => T): T {
  const scope = globalThis as { process?: { type?: unknown }; location?: unknown };
  const processObject = scope.process;
  const hadType = processObject !== undefined && Object.hasOwn(processObject, 'type');
  const previousType = processObject?.type;
  const addLocation = scope.location === undefined;
  if (processObject) processObject.type = 'renderer';
  if (addLocation) Object.defineProperty(scope, 'location', { value: { href: NOWHERE }, configurable: true });
  try {
    return start();
  } finally {
    if (addLocation) Reflect.deleteProperty(scope, 'location');
    if (processObject) {
      if (hadType) processObject.type = previousType;
      else Reflect.deleteProperty(processObject, 'type');
    }
  }
}
