import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authenticateApiKey } from '../functions/identity/api-keys.js';
import { sha256Hex } from '../platform/crypto.js';
import { openPglite } from '../platform/db/pglite.js';
import { pgliteDataDir } from '../platform/db/pglite-data-dir.js';
import { apiKeys, consoleSignInLinks, demoCorpusLoads, users } from '../schema/index.js';
import { consumeSignInLink } from '../functions/identity/console-sessions.js';
import { runAdminCli } from '../functions/admin-cli.js';

/**
 * The admin CLI on one temporary DATA_DIR shared by the whole file (the tests are a sequence that
 * builds on earlier results). Commands run in-process through runAdminCli, with the same minimal
 * environment and their own stdout and stderr, so a command costs its database work and not a Node
 * process loading the code; the first test runs the real entry point as a subprocess, which is what
 * proves the process-level contract (exit code, stdout holding only the result).
 */

const REPO = fileURLToPath(new URL('..', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SLOW = { timeout: 60_000 };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON: throws unless it holds exactly one JSON value. */
  json: any;
}

const parsedRun = (code: number | null, stdout: string, stderr: string): Run => {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
};

// A minimal, known environment: nothing from the runner's shell changes the configuration.
const cliEnv = (dataDir: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  TMPDIR: tmpdir(),
  APP_ENV: 'test',
  DATA_DIR: dataDir,
});

/** One command in-process: what it writes to its stdout and stderr, and the exit code it returns. */
async function cli(args: string[], dataDir: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const collect = (append: (text: string) => void) => ({
    write(text: string, done: () => void) {
      append(text);
      done();
    },
  });
  const code = await runAdminCli(args, {
    env: cliEnv(dataDir),
    stdout: collect((t) => (stdout += t)),
    stderr: collect((t) => (stderr += t)),
  });
  return parsedRun(code, stdout, stderr);
}

/** One command through the entry point (functions/admin.ts) in its own Node process. */
function cliProcess(args: string[], dataDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'functions/admin.ts', ...args], {
      cwd: REPO,
      env: cliEnv(dataDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve(parsedRun(code, stdout, stderr)));
  });
}

let root: string;
let dataDir: string;
const state = {
  workspaceId: '',
  keptKey: '',
  keptKeyId: '',
  signInToken: '',
  revokedKeyId: '',
  editorUserId: '',
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cip-admin-cli-'));
  dataDir = join(root, 'data');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('admin CLI', () => {
  // Two Node processes loading the code through tsx: minutes on a loaded machine.
  test('db migrate, run as its own process, creates and migrates a fresh DATA_DIR', { timeout: 180_000 }, async () => {
    const [run, usage] = await Promise.all([
      cliProcess(['db', 'migrate', '--json'], dataDir),
      cliProcess(['key', 'revoke', '--key-id', '42'], join(root, 'never-created')),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toEqual({ migrated: true, location: dataDir, driver: 'pglite' });
    expect(existsSync(join(dataDir, '.cip.lock'))).toBe(false);
    // The process's exit code is the runner's, and a usage error prints nothing on stdout.
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(usage.stderr).toContain('--key-id: must be a key id (a uuid); got "42"');
  });

  test('workspace create, then workspace list shows it', SLOW, async () => {
    const created = await cli(['workspace', 'create', '--name', 'Acme Corp', '--json'], dataDir);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toEqual({ workspace_id: expect.stringMatching(UUID), name: 'Acme Corp' });
    state.workspaceId = created.json.workspace_id;

    const listed = await cli(['workspace', 'list', '--json'], dataDir);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json).toEqual([{ workspace_id: state.workspaceId, name: 'Acme Corp' }]);
  });

  test('key create mints a key for a new member; a second key for the same email changes the role', SLOW, async () => {
    const first = await cli(
      [
        'key',
        'create',
        '--workspace',
        state.workspaceId,
        '--email',
        'Editor@Acme.test',
        '--role',
        'editor',
        '--bundle',
        'internal_agent',
        '--expires-in-days',
        '30',
        '--name',
        'CI key',
        '--json',
      ],
      dataDir,
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({
      key: expect.stringMatching(/^cip_[0-9A-Za-z]{40}$/),
      key_id: expect.stringMatching(UUID),
      user_id: expect.stringMatching(UUID),
      workspace_id: state.workspaceId,
      bundle: 'internal_agent',
      role: 'editor',
    });
    const expiresInDays = (Date.parse(first.json.expires_at) - Date.now()) / 86_400_000;
    expect(expiresInDays).toBeGreaterThan(29.9);
    expect(expiresInDays).toBeLessThanOrEqual(30);
    state.keptKey = first.json.key;
    state.keptKeyId = first.json.key_id;
    state.editorUserId = first.json.user_id;

    // Same person (email matched case-insensitively), default bundle, human output.
    const second = await cli(
      ['key', 'create', '--workspace', state.workspaceId, '--email', 'editor@acme.test', '--role', 'viewer'],
      dataDir,
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/bundle customer_agent/);
    expect(second.stdout).toMatch(/cip_[0-9A-Za-z]{40}/);
    expect(second.stderr).toMatch(/role .* changed from editor to viewer/);
    state.revokedKeyId = /Created API key ([0-9a-f-]{36})/.exec(second.stdout)?.[1] ?? '';
    expect(state.revokedKeyId).toMatch(UUID);
  });

  test("the admin CLI page's key create examples run as written", SLOW, async () => {
    const page = readFileSync(join(REPO, 'docs', 'operate', 'admin-cli.md'), 'utf8');
    const examples = [...page.matchAll(/npm run -s admin -- (key create [^`\n]*)/g)].map((m) =>
      (m[1] ?? '').replace(/[[\]]/g, '').replace(/\.$/, '').trim(),
    );
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      const args = example.split(/\s+/).map((a) => (a === '<id>' ? state.workspaceId : a));
      const run = await cli(args.includes('--json') ? args : [...args, '--json'], dataDir);
      expect(run.code, `${example}: ${run.stdout}${run.stderr}`).toBe(0);
      expect(run.json.key).toMatch(/^cip_/);
    }
  });

  test('key create for an unknown workspace is an error', SLOW, async () => {
    const missing = '0193a1b2-0000-7000-8000-00000000dead';
    const run = await cli(
      ['key', 'create', '--workspace', missing, '--email', 'x@acme.test', '--role', 'admin', '--json'],
      dataDir,
    );
    expect(run.code).toBe(1);
    expect(run.json).toEqual({ error: { code: 'not_found', message: expect.stringContaining(missing) } });
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  test(
    'bad arguments are usage errors (exit 2) that name the problem, before touching the database',
    SLOW,
    async () => {
      const elsewhere = join(root, 'never-created');
      const [badKey, bundleAboveRole, badUuid, badScale, unknownCommand, unknownFlag, help] = await Promise.all([
        cli(
          [
            'key',
            'create',
            '--workspace',
            state.workspaceId,
            '--email',
            'not-an-email',
            '--role',
            'owner',
            '--expires-in-days',
            '1.5',
            '--json',
          ],
          elsewhere,
        ),
        cli(
          [
            'key',
            'create',
            '--workspace',
            state.workspaceId,
            '--email',
            'v@acme.test',
            '--role',
            'viewer',
            '--bundle',
            'full_admin',
            '--json',
          ],
          elsewhere,
        ),
        cli(['key', 'revoke', '--key-id', '42'], elsewhere),
        cli(['demo', 'seed', '--scale', '0', '--json'], elsewhere),
        cli(['workspace', 'delete', '--json'], elsewhere),
        cli(['workspace', 'list', '--verbose'], elsewhere),
        cli(['--help'], elsewhere),
      ]);
      expect(badKey.code).toBe(2);
      expect(badKey.json.error.code).toBe('invalid_argument');
      expect(badKey.json.error.message).toContain('--role: must be one of viewer, editor, admin; got "owner"');
      expect(badKey.json.error.message).toContain('--email: must be an email address; got "not-an-email"');
      expect(badKey.json.error.message).toContain('--expires-in-days: must be a positive integer');

      expect(bundleAboveRole.code).toBe(2);
      expect(bundleAboveRole.json.error.message).toBe(
        '--bundle: full_admin can only be given to a member with --role admin or above; got --role viewer',
      );

      expect(badUuid.code).toBe(2);
      expect(badUuid.stdout).toBe('');
      expect(badUuid.stderr).toContain('--key-id: must be a key id (a uuid); got "42"');

      expect(badScale.code).toBe(2);
      expect(badScale.json.error.message).toContain('--scale: must be a positive number');

      expect(unknownCommand.code).toBe(2);
      expect(unknownCommand.json.error.message).toContain('Unknown command "workspace delete"');

      expect(unknownFlag.code).toBe(2);
      expect(unknownFlag.stderr).toContain("Unknown option '--verbose'");

      expect(help.code).toBe(0);
      for (const command of [
        'workspace create',
        'workspace list',
        'key create',
        'key revoke',
        'demo seed',
        'db migrate',
      ]) {
        expect(help.stdout).toContain(command);
      }
      expect(existsSync(elsewhere)).toBe(false);
    },
  );

  test('key revoke revokes a key', SLOW, async () => {
    const revoked = await cli(['key', 'revoke', '--key-id', state.revokedKeyId, '--json'], dataDir);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json).toEqual({ key_id: state.revokedKeyId, revoked: true, already_revoked: false });
  });

  test('login-link prints a one-time console sign-in link for a member, and refuses anyone else', SLOW, async () => {
    const link = await cli(['login-link', '--email', 'EDITOR@acme.test', '--json'], dataDir);
    expect(link.code, link.stderr).toBe(0);
    expect(link.json).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/console\/sign-in\/link\?token=[0-9A-Za-z]{43}$/),
      email: 'EDITOR@acme.test',
    });
    const minutes = (Date.parse(link.json.expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);
    state.signInToken = new URL(link.json.url).searchParams.get('token') ?? '';

    const stranger = await cli(['login-link', '--email', 'nobody@acme.test', '--json'], dataDir);
    expect(stranger.code).toBe(1);
    expect(stranger.json.error.code).toBe('not_found');
    const human = await cli(['login-link', '--email', 'editor@acme.test'], dataDir);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /single use, expires .*\n {2}http:\/\/127\.0\.0\.1:8787\/console\/sign-in\/link\?token=/,
    );
  });

  // A small corpus: the flag is what is tested here; the loader's scales are test/warehouse-corpus.test.ts's.
  test('demo seed is idempotent', SLOW, async () => {
    const first = await cli(['demo', 'seed', '--scale', '0.05', '--json'], dataDir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({ workspace_id: expect.stringMatching(UUID), name: expect.any(String), created: true });

    const again = await cli(['demo', 'seed', '--json'], dataDir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toEqual({ ...first.json, created: false });
  });

  test('refuses to run while the server holds the DATA_DIR lock', SLOW, async () => {
    const lockedDir = join(root, 'locked');
    // The lock is taken over when its pid is dead or is the caller's own: a live other process must hold it.
    const server: ChildProcess = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('spawn', resolve);
        server.once('error', reject);
      });
      mkdirSync(lockedDir, { recursive: true });
      const lockFile = join(lockedDir, '.cip.lock');
      writeFileSync(
        lockFile,
        JSON.stringify({ pid: server.pid, purpose: 'npm start', since: new Date().toISOString() }),
      );

      const run = await cli(['workspace', 'list', '--json'], lockedDir);
      expect(run.code).toBe(1);
      expect(run.json.error.code).toBe('data_dir_in_use');
      expect(run.json.error.message).toContain(`The server is running (process ${server.pid}`);
      expect(run.json.error.message).toContain('Stop it first');
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid).toBe(server.pid);
    } finally {
      server.kill();
    }
  });

  test(
    'the database holds what the CLI wrote: a working key stored only as a hash, the revoked key, nothing from failures',
    SLOW,
    async () => {
      const handle = await openPglite({ dataDir: pgliteDataDir(dataDir) });
      try {
        const db = handle.db;
        const caller = await authenticateApiKey(db, state.keptKey, new Date());
        expect(caller).toMatchObject({
          workspaceId: state.workspaceId,
          userId: state.editorUserId,
          role: 'viewer',
          bundle: 'internal_agent',
          authMethod: 'api_key',
        });

        const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, state.keptKeyId));
        expect(row?.keyHash).toBe(await sha256Hex(state.keptKey));
        expect(JSON.stringify(row)).not.toContain(state.keptKey);
        expect(row?.name).toBe('CI key');

        const [revoked] = await db.select().from(apiKeys).where(eq(apiKeys.id, state.revokedKeyId));
        expect(revoked?.revokedAt).toBeInstanceOf(Date);

        // The sign-in link is stored as a hash and works once.
        const [link] = await db
          .select()
          .from(consoleSignInLinks)
          .where(eq(consoleSignInLinks.tokenHash, await sha256Hex(state.signInToken)));
        expect(link?.userId).toBe(state.editorUserId);
        expect(await consumeSignInLink(db, state.signInToken, new Date())).toBe(state.editorUserId);
        expect(await consumeSignInLink(db, state.signInToken, new Date())).toBeNull();

        // demo seed loaded the corpus at the scale its flag gave, once.
        const loads = await db
          .select({ scale: demoCorpusLoads.scale, status: demoCorpusLoads.status })
          .from(demoCorpusLoads);
        expect(loads).toEqual([{ scale: expect.closeTo(0.05, 6), status: 'complete' }]);

        // Failed commands wrote nothing.
        const strays = await db
          .select()
          .from(users)
          .where(sql`lower(${users.email}) not in ('editor@acme.test', 'a@b.c', 'admin@demo.example')`);
        expect(strays).toEqual([]);
      } finally {
        await handle.close();
      }
    },
  );
});
