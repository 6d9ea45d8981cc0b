/**
 * The admin command line, `npm run -s admin -- <command> [flags]`: workspaces, API keys, the demo
 * workspace and migrations, on DATA_DIR (PGlite) or DATABASE_URL (Neon), with the server stopped
 * (PGlite allows one process per folder; the DATA_DIR lock enforces it). The commands and their
 * output contract are in admin-cli.ts.
 */
import { runAdminCli } from './admin-cli.js';

// stdout is the result channel: anything a library prints with console.log/info/debug goes to stderr.
console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

process.exit(
  await runAdminCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }),
);
