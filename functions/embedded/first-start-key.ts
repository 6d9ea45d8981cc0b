/**
 * The name of the admin key the embedded default mints at its first start. Its own file, with no
 * imports, because the console (which runs in the Worker too) warns before revoking it: importing
 * it from demo-bootstrap.ts pulled the demo corpus loader, and with it PGlite's name, into the
 * Worker bundle (test/worker-bundle.test.ts).
 */
export const FIRST_START_KEY_NAME = 'Demo admin key (first start)';
