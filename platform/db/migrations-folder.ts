import { fileURLToPath } from 'node:url';

/** Absolute path of schema/migrations, for the Node-side migrators. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../schema/migrations', import.meta.url));
