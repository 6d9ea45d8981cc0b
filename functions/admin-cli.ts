/**
 * The admin command line's commands and its runner: `runAdminCli(argv, io)` parses the arguments,
 * runs one command on DATA_DIR (PGlite) or DATABASE_URL (Neon) and returns the exit code. The entry
 * point (functions/admin.ts, `npm run -s admin -- <command> [flags]`) hands it the process's
 * arguments, environment and streams; tests call it in-process with their own.
 *
 * Output contract: stdout carries the result and nothing else (exactly one JSON value with --json,
 * a short human-readable text otherwise); notes and logs go to stderr. Exit codes: 0 done,
 * 1 failed, 2 usage error (unknown command or flag, bad flag value). With --json a failure is
 * `{"error":{"code","message"}}` on stdout. Expected failures never print a stack.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../platform/config.js';
import { DataDirInUseError, dataDirOwner, SERVER_LOCK_PURPOSE } from '../platform/db/data-dir-lock.js';
import type { Database, Queryable } from '../platform/db/port.js';
import { isUuid } from '../platform/ids.js';
import type { Role } from '../schema/tenancy.js';
import { BUNDLE_TABLE, BUNDLES, DEFAULT_BUNDLE, roleAtLeast } from './identity/scopes.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const INVOCATION = 'npm run -s admin --';
const DAY_MS = 86_400_000;
const MAX_EXPIRY_DAYS = 36_500;

/**
 * schema/tenancy.ts's ROLES, restated because importing it loads drizzle, and help or a usage error
 * should answer without loading the database layer. Record<Role, true> makes the compiler check
 * that the list is complete.
 */
const ROLE_SET: Record<Role, true> = { viewer: true, editor: true, admin: true };
const ROLES = Object.keys(ROLE_SET) as [Role, ...Role[]];

/** The database layer, loaded once a command is about to run. */
async function loadOperations() {
  const [database, members, apiKeys, seed, consoleSessions] = await Promise.all([
    import('./embedded/open-database.js'),
    import('./identity/members.js'),
    import('./identity/api-keys.js'),
    import('./embedded/demo-seed.js'),
    import('./identity/console-sessions.js'),
  ]);
  return { ...database, ...members, ...apiKeys, ...seed, ...consoleSessions };
}
type Operations = Awaited<ReturnType<typeof loadOperations>>;

/** A failure the operator can act on: reported as code + message, without a stack. */
class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
  }
}

const usageError = (message: string) => new CliError('invalid_argument', message, EXIT_USAGE);

type FlagValues = Record<string, string | boolean | undefined>;
type FlagSpec = Record<string, { type: 'string' | 'boolean' }>;

interface Context {
  db: Database;
  ops: Operations;
  location: string;
  driver: 'pglite' | 'neon';
  /** Where the service is reached (PUBLIC_URL, else http://HOST:PORT): links it prints point there. */
  publicUrl: string;
}

interface Result {
  json: unknown;
  text: string;
  /** Things the operator should know that are not the result (stderr). */
  notes?: string[];
}

interface Command {
  synopsis: string;
  summary: string;
  flags: FlagSpec;
  /** Validate the flags (throws a usage error) and return the work to do on an open database. */
  prepare(values: FlagValues): (ctx: Context) => Promise<Result>;
}

/** A command whose flags a zod object validates, keyed by flag name; issues become `--flag: problem`. */
function defineCommand<S extends z.ZodObject>(spec: {
  synopsis: string;
  summary: string;
  schema: S;
  run(ctx: Context, input: z.output<S>): Promise<Result>;
}): Command {
  const flags: FlagSpec = {};
  for (const name of Object.keys(spec.schema.shape)) flags[name] = { type: 'string' };
  return {
    synopsis: spec.synopsis,
    summary: spec.summary,
    flags,
    prepare(values) {
      const parsed = spec.schema.safeParse(values);
      if (!parsed.success) {
        throw usageError(parsed.error.issues.map((i) => `--${i.path.map(String).join('.')}: ${i.message}`).join('; '));
      }
      return (ctx) => spec.run(ctx, parsed.data);
    },
  };
}

// ---- flag schemas ---------------------------------------------------------------------------

const gotValue = (input: unknown) => (typeof input === 'string' ? `; got "${input}"` : '');

const uuidFlag = (what: string) =>
  z
    .string({ error: 'is required' })
    .trim()
    .refine(isUuid, { error: (iss) => `must be ${what} (a uuid)${gotValue(iss.input)}` });

const nameFlag = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters');

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (iss) =>
      iss.input === undefined
        ? `is required: one of ${values.join(', ')}`
        : `must be one of ${values.join(', ')}${gotValue(iss.input)}`,
  });

const emailFlag = z
  .string({ error: 'is required' })
  .trim()
  // The HTML5 (browser) definition: `a@b.c` is an address, as the admin CLI page's examples (docs/operate/admin-cli.md) use.
  .pipe(z.email({ pattern: z.regexes.html5Email, error: (iss) => `must be an email address${gotValue(iss.input)}` }));

const positiveIntFlag = (max: number) =>
  z
    .string()
    .trim()
    .regex(/^[1-9][0-9]*$/, 'must be a positive integer')
    .transform(Number)
    .refine((n) => n <= max, `must be at most ${max}`);

const positiveNumberFlag = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const n = v === '' ? Number.NaN : Number(v);
    if (!Number.isFinite(n) || n <= 0) {
      ctx.addIssue({ code: 'custom', message: `must be a positive number${gotValue(v)}` });
      return z.NEVER;
    }
    return n;
  });

// ---- commands -------------------------------------------------------------------------------

async function requireWorkspace({ findWorkspace }: Operations, db: Queryable, workspaceId: string): Promise<void> {
  if (!(await findWorkspace(db, workspaceId))) {
    throw new CliError(
      'not_found',
      `No workspace with id ${workspaceId}. List them with: ${INVOCATION} workspace list`,
    );
  }
}

const COMMANDS: Record<string, Command> = {
  'workspace create': defineCommand({
    synopsis: '--name <name>',
    summary: 'Create a workspace.',
    schema: z.strictObject({ name: nameFlag }),
    async run({ db, ops }, input) {
      const { workspaceId, name } = await ops.createWorkspace(db, { name: input.name });
      return { json: { workspace_id: workspaceId, name }, text: `Created workspace "${name}" (${workspaceId}).` };
    },
  }),

  'workspace list': defineCommand({
    synopsis: '',
    summary: 'List every workspace, oldest first.',
    schema: z.strictObject({}),
    async run({ db, ops }) {
      const rows = await ops.listWorkspaces(db);
      return {
        json: rows.map((w) => ({ workspace_id: w.workspaceId, name: w.name })),
        text: rows.length === 0 ? 'No workspaces.' : rows.map((w) => `${w.workspaceId}  ${w.name}`).join('\n'),
      };
    },
  }),

  'key create': defineCommand({
    synopsis: `--workspace <workspace_id> --email <email> --role <${ROLES.join('|')}> [--bundle <${BUNDLES.join('|')}>] [--expires-in-days <n>] [--name <key name>]`,
    summary: `Create an API key (printed once) for a member, adding the user and membership if needed; an existing membership gets the given role. Bundle default: ${DEFAULT_BUNDLE}.`,
    schema: z
      .strictObject({
        workspace: uuidFlag('a workspace id'),
        email: emailFlag,
        role: oneOf(ROLES),
        bundle: oneOf(BUNDLES).default(DEFAULT_BUNDLE),
        'expires-in-days': positiveIntFlag(MAX_EXPIRY_DAYS).optional(),
        name: nameFlag.optional(),
      })
      // Decidable from the flags alone, so answered before opening the database (createApiKey checks it again).
      .superRefine(({ role, bundle }, ctx) => {
        const needed = BUNDLE_TABLE[bundle].minRoleToCreate;
        if (!roleAtLeast(role, needed)) {
          ctx.addIssue({
            code: 'custom',
            path: ['bundle'],
            message: `${bundle} can only be given to a member with --role ${needed} or above; got --role ${role}`,
          });
        }
      }),
    async run({ db, ops }, input) {
      const now = new Date();
      const expiresAt =
        input['expires-in-days'] === undefined ? null : new Date(now.getTime() + input['expires-in-days'] * DAY_MS);
      const name = input.name ?? `${BUNDLE_TABLE[input.bundle].label} key (admin CLI)`;
      // One transaction: the user, the membership and the key land together or not at all.
      const created = await db.transaction(async (tx) => {
        await requireWorkspace(ops, tx, input.workspace);
        const userId = await ops.ensureUser(tx, input.email);
        const previousRole = await ops.findMembership(tx, input.workspace, userId);
        await ops.ensureMembership(tx, input.workspace, userId, input.role);
        const key = await ops.createApiKey(tx, {
          workspaceId: input.workspace,
          userId,
          name,
          bundle: input.bundle,
          role: input.role,
          expiresAt,
        });
        return { ...key, userId, previousRole };
      });
      const notes =
        created.previousRole && created.previousRole !== input.role
          ? [`note: ${input.email}'s role in this workspace changed from ${created.previousRole} to ${input.role}.`]
          : [];
      return {
        json: {
          key: created.key,
          key_id: created.keyId,
          user_id: created.userId,
          workspace_id: input.workspace,
          name,
          bundle: input.bundle,
          role: input.role,
          expires_at: expiresAt?.toISOString() ?? null,
        },
        text: [
          `Created API key ${created.keyId} "${name}" for ${input.email} (role ${input.role}, bundle ${input.bundle}, ${expiresAt ? `expires ${expiresAt.toISOString()}` : 'no expiry'}) in workspace ${input.workspace}.`,
          'The key, shown this once (only its hash is stored):',
          `  ${created.key}`,
        ].join('\n'),
        notes,
      };
    },
  }),

  'key revoke': defineCommand({
    synopsis: '--key-id <key_id>',
    summary: 'Revoke an API key (idempotent).',
    schema: z.strictObject({ 'key-id': uuidFlag('a key id') }),
    async run({ db, ops }, input) {
      const keyId = input['key-id'];
      const result = await ops.revokeApiKey(db, keyId, new Date());
      if (!result) throw new CliError('not_found', `No API key with id ${keyId}.`);
      return {
        json: { key_id: keyId, revoked: result.revoked, already_revoked: result.alreadyRevoked },
        text: result.alreadyRevoked ? `API key ${keyId} was already revoked.` : `Revoked API key ${keyId}.`,
      };
    },
  }),

  'login-link': defineCommand({
    synopsis: '--email <email>',
    summary:
      'Print a one-time console sign-in link for a member (valid 15 minutes, single use; only its hash is stored).',
    schema: z.strictObject({ email: emailFlag }),
    async run({ db, ops, publicUrl }, input) {
      let link: { url: string; expiresAt: Date };
      try {
        link = await ops.createSignInLink(db, publicUrl, input.email, new Date());
      } catch (e) {
        if (e instanceof ops.NotAMember)
          throw new CliError(
            'not_found',
            `${input.email} is not a member of any workspace. Add them first: ${INVOCATION} key create --workspace <id> --email ${input.email} --role viewer`,
          );
        throw e;
      }
      return {
        json: { url: link.url, email: input.email, expires_at: link.expiresAt.toISOString() },
        text: [
          `Console sign-in link for ${input.email} (single use, expires ${link.expiresAt.toISOString()}):`,
          `  ${link.url}`,
        ].join('\n'),
      };
    },
  }),

  'demo seed': defineCommand({
    synopsis: '[--scale <n>]',
    summary: 'Create the demo workspace if it is absent (idempotent). --scale sizes its corpus (default 1).',
    schema: z.strictObject({ scale: positiveNumberFlag.default(1) }),
    async run({ db, ops }, input) {
      const demo = await ops.seedDemoWorkspace(db, { scale: input.scale });
      return {
        json: { workspace_id: demo.workspaceId, name: demo.name, created: demo.created },
        text: demo.created
          ? `Created the demo workspace "${demo.name}" (${demo.workspaceId}). Mint a key for it with: ${INVOCATION} key create --workspace ${demo.workspaceId} --email <email> --role admin --bundle full_admin`
          : `The demo workspace already exists: "${demo.name}" (${demo.workspaceId}).`,
      };
    },
  }),

  'db migrate': defineCommand({
    synopsis: '',
    summary: 'Apply pending migrations (opening the database does it; run it against Neon before a deploy).',
    schema: z.strictObject({}),
    async run({ location, driver }) {
      return { json: { migrated: true, location, driver }, text: `Migrations applied (${driver}: ${location}).` };
    },
  }),
};

const COMMAND_NAMES = Object.keys(COMMANDS);
const GROUPS = [...new Set(COMMAND_NAMES.map((n) => n.split(' ')[0]))];

function commandUsage(name: string, command: Command): string {
  return `  ${INVOCATION} ${name}${command.synopsis ? ` ${command.synopsis}` : ''} [--json]\n      ${command.summary}`;
}

function usage(): string {
  return [
    'Customer Intelligence Platform admin. Works on DATA_DIR (PGlite, default ./.data) or DATABASE_URL (Neon); stop the server first.',
    '',
    'Commands:',
    ...COMMAND_NAMES.map((name) => commandUsage(name, COMMANDS[name]!)),
    '',
    'Flags for every command:',
    '  --json    print exactly one JSON value on stdout (errors as {"error":{"code","message"}})',
    '  --help    print this help',
    '',
    'Exit codes: 0 done, 1 failed, 2 usage error.',
  ].join('\n');
}

// ---- running --------------------------------------------------------------------------------

const GLOBAL_FLAGS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

type Invocation = { kind: 'help'; text: string } | { kind: 'run'; name: string; command: Command; values: FlagValues };

/** Split argv into the command words (first, before any flag but --json/--help) and its flags. */
function resolveInvocation(argv: string[]): Invocation {
  const words: string[] = [];
  let i = 0;
  for (; i < argv.length && words.length < 2; i++) {
    const arg = argv[i]!;
    if (arg === '--json' || arg === '--help' || arg === '-h') continue;
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (words.length === 0 || words[0] === 'help') {
    if (wantsHelp || argv.length === 0 || words[0] === 'help') return { kind: 'help', text: usage() };
    throw usageError(`Missing command. Commands: ${COMMAND_NAMES.join(', ')}.`);
  }
  const name = words.join(' ');
  const command = COMMANDS[name];
  if (!command) {
    if (words.length === 1 && GROUPS.includes(name)) {
      if (wantsHelp) return { kind: 'help', text: usage() };
      const actions = COMMAND_NAMES.filter((n) => n.startsWith(`${name} `)).map((n) => n.slice(name.length + 1));
      throw usageError(`"${name}" needs a subcommand: ${actions.join(', ')}.`);
    }
    throw usageError(`Unknown command "${name}". Commands: ${COMMAND_NAMES.join(', ')}.`);
  }
  const rest = argv.filter((arg, index) => index >= i || arg.startsWith('-'));
  let values: FlagValues;
  try {
    values = parseArgs({
      args: rest,
      options: { ...command.flags, ...GLOBAL_FLAGS },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    const message = e instanceof Error ? e.message.split('\n')[0]! : String(e);
    const allowed = Object.keys(command.flags).map((f) => `--${f}`);
    throw usageError(`${message} (${name} takes ${allowed.length ? allowed.join(', ') : 'no flags'} and --json).`);
  }
  if (values.help) return { kind: 'help', text: `Usage:\n${commandUsage(name, command)}` };
  const { json: _json, help: _help, ...own } = values;
  return { kind: 'run', name, command, values: own };
}

function dataDirMessage(e: DataDirInUseError): string {
  const { pid, purpose, since } = e.owner;
  if (purpose === SERVER_LOCK_PURPOSE) {
    return `The server is running (process ${pid}, since ${since}) and holds DATA_DIR ${e.dataDir}. Stop it first (Ctrl-C in its terminal, or kill ${pid}), then run this command again. (Every start of the server also prints a fresh console sign-in link for the demo admin.)`;
  }
  return `DATA_DIR ${e.dataDir} is in use by process ${pid} (${purpose}, since ${since}). Wait for it to finish or stop it, then run this command again.`;
}

async function toCliError(e: unknown): Promise<CliError | null> {
  if (e instanceof CliError) return e;
  if (e instanceof ConfigError) return new CliError('invalid_config', e.message);
  if (e instanceof DataDirInUseError) return new CliError('data_dir_in_use', dataDirMessage(e));
  const { isApiError } = await import('../platform/errors.js');
  if (isApiError(e)) return new CliError(e.code, e.message);
  return null;
}

/** Where the runner writes: a process's stdout or stderr, or a test's collector. */
export interface CliOutput {
  write(text: string, done: () => void): unknown;
}

export interface CliIo {
  /** The environment the configuration is read from (process.env for the entry point). */
  env: Record<string, string | undefined>;
  stdout: CliOutput;
  stderr: CliOutput;
}

const write = (stream: CliOutput, text: string) =>
  new Promise<void>((done) => {
    stream.write(text.endsWith('\n') ? text : `${text}\n`, () => done());
  });

/** Run one admin command; resolves to the exit code (0 done, 1 failed, 2 usage error). */
export async function runAdminCli(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    const invocation = resolveInvocation(argv);
    if (invocation.kind === 'help') {
      await write(io.stdout, invocation.text);
      return 0;
    }
    const work = invocation.command.prepare(invocation.values);
    const config = loadConfig(io.env);
    // Refuse at once when the server holds DATA_DIR; opening takes the lock for real (and would refuse too).
    const owner = config.DATABASE_URL ? null : dataDirOwner(config.DATA_DIR);
    if (owner) throw new DataDirInUseError(config.DATA_DIR, owner);
    const ops = await loadOperations();
    const database = await ops.openNodeDatabase(config, `admin ${invocation.name}`);
    let result: Result;
    try {
      result = await work({
        db: database.handle.db,
        ops,
        location: database.location,
        driver: database.handle.driver,
        publicUrl: config.publicUrl,
      });
    } finally {
      await database.close();
    }
    for (const note of result.notes ?? []) await write(io.stderr, note);
    await write(io.stdout, json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (e) {
    const known = await toCliError(e);
    const error = known ?? new CliError('internal', `Unexpected error: ${e instanceof Error ? e.message : String(e)}`);
    if (!known) await write(io.stderr, e instanceof Error ? (e.stack ?? e.message) : String(e));
    if (json) await write(io.stdout, JSON.stringify({ error: { code: error.code, message: error.message } }));
    else await write(io.stderr, `error: ${error.message}`);
    if (error.exitCode === EXIT_USAGE && !json) await write(io.stderr, `Run "${INVOCATION} --help" for usage.`);
    return error.exitCode;
  }
}
