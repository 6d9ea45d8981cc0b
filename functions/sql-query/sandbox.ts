import { sql } from 'drizzle-orm';
import { queryRows, type Database, type DatabaseHandle, type Transaction } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { VIEW_SCHEMA } from './guard.js';

/** The least-privilege role caller SQL runs as (schema/migrations/0025_sql_query_sandbox.sql makes and grants it). */
export const QUERY_ROLE = 'cip_query';

/**
 * Where caller SQL may run so that it can read only the caller's workspace, whatever the parser guard misses:
 * - `set_role`: on the server's own connection, under `SET LOCAL ROLE cip_query`. Sound only when the role
 *   cannot call set_config (the one way a SELECT can `SET ROLE` back to the session's user) and holds no
 *   privilege of its own beyond the views: true where the migration ran as a superuser (PGlite, the
 *   embedded default; a self-managed PostgreSQL migrated as a superuser).
 * - `own_connection`: on a connection that logs in as the role itself (SQL_QUERY_DATABASE_URL): a managed
 *   PostgreSQL such as Neon, where nobody may revoke set_config from PUBLIC; the session's user is then the
 *   role, so there is nothing to switch back to.
 * - otherwise nothing runs: 503, never the table owner's privileges.
 */
export type QuerySandbox =
  | { kind: 'set_role' }
  | { kind: 'own_connection'; open: () => DatabaseHandle }
  | { kind: 'unavailable'; reason: string };

interface RoleFacts extends Record<string, unknown> {
  exists: boolean;
  superuser: boolean | null;
  bypass_rls: boolean | null;
  can_set_config: boolean | null;
  may_switch: boolean | null;
}

/** What the database says of the role, from the server's connection. */
async function roleFacts(db: Database): Promise<RoleFacts> {
  const [facts] = await queryRows<RoleFacts>(
    db,
    sql.raw(`select
      exists (select from pg_roles where rolname = '${QUERY_ROLE}') as exists,
      (select rolsuper from pg_roles where rolname = '${QUERY_ROLE}') as superuser,
      (select rolbypassrls from pg_roles where rolname = '${QUERY_ROLE}') as bypass_rls,
      case when exists (select from pg_roles where rolname = '${QUERY_ROLE}')
        then has_function_privilege('${QUERY_ROLE}', 'pg_catalog.set_config(text,text,boolean)', 'EXECUTE') end
        as can_set_config,
      case when exists (select from pg_roles where rolname = '${QUERY_ROLE}')
        then pg_has_role(current_user, '${QUERY_ROLE}', 'MEMBER') end as may_switch`),
  );
  return facts ?? { exists: false, superuser: null, bypass_rls: null, can_set_config: null, may_switch: null };
}

const decided = new WeakMap<object, Promise<QuerySandbox>>();

/**
 * The sandbox for a database: the role's own login where one is configured; else decided once per handle
 * from the role's facts (they change only with a migration or an operator's grant, both of which come with
 * a restart). A failed look-up is not remembered.
 */
export function querySandbox(db: Database, ownConnection?: () => DatabaseHandle): Promise<QuerySandbox> {
  if (ownConnection) return Promise.resolve({ kind: 'own_connection', open: ownConnection });
  const known = decided.get(db);
  if (known) return known;
  const deciding = decideSandbox(db);
  decided.set(db, deciding);
  deciding.catch(() => decided.delete(db));
  return deciding;
}

async function decideSandbox(db: Database): Promise<QuerySandbox> {
  const facts = await roleFacts(db);
  if (!facts.exists) return { kind: 'unavailable', reason: `the role ${QUERY_ROLE} does not exist in this database` };
  if (facts.superuser || facts.bypass_rls)
    return { kind: 'unavailable', reason: `the role ${QUERY_ROLE} is a superuser or bypasses row security` };
  if (facts.can_set_config)
    return {
      kind: 'unavailable',
      reason: `${QUERY_ROLE} may call set_config, so SET ROLE on the server's connection cannot hold it; set SQL_QUERY_DATABASE_URL to a connection that logs in as ${QUERY_ROLE}`,
    };
  if (!facts.may_switch) return { kind: 'unavailable', reason: `the server's role may not SET ROLE ${QUERY_ROLE}` };
  return { kind: 'set_role' };
}

interface ConnectionFacts extends Record<string, unknown> {
  role: string;
  superuser: boolean;
  bypass_rls: boolean;
  reads_tables: boolean;
}

/** The dedicated connection must log in as a role that holds nothing but the views (checked on every query). */
async function assertLeastPrivilege(tx: Transaction): Promise<void> {
  const [facts] = await queryRows<ConnectionFacts>(
    tx,
    sql`select session_user::text as role, r.rolsuper as superuser, r.rolbypassrls as bypass_rls,
          has_table_privilege(session_user, 'public.accounts', 'SELECT') as reads_tables
        from pg_roles r where r.rolname = session_user`,
  );
  if (!facts || facts.superuser || facts.bypass_rls || facts.reads_tables)
    throw sandboxUnavailable(
      `SQL_QUERY_DATABASE_URL logs in as ${facts?.role ?? 'an unknown role'}, which may read more than the views; it must log in as ${QUERY_ROLE}`,
    );
}

export function sandboxUnavailable(reason: string): ApiError {
  return new ApiError(
    'dependency_unavailable',
    'SQL query is not available on this deployment: caller SQL runs only as the least-privilege role, and it is not set up here.',
    { reason: 'sql_sandbox_unavailable', cause: reason },
  );
}

/** Thrown to end the caller's transaction with a rollback, carrying what it read. */
class RolledBack<T> {
  constructor(readonly value: T) {}
}

export interface SandboxLimits {
  timeoutMs: number;
}

/**
 * Run `work` for a workspace inside the sandbox: one transaction that binds the workspace (before it turns
 * read-only), turns read-only, switches to the role where the sandbox says so, bounds the statement's time,
 * keeps the search path on the views, and is always rolled back, so that neither the binding nor any setting
 * the caller's statement changed (a session-level set_config included) outlives it.
 */
export async function inSandbox<T>(
  sandbox: QuerySandbox,
  db: Database,
  workspaceId: string,
  { timeoutMs }: SandboxLimits,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  if (sandbox.kind === 'unavailable') throw sandboxUnavailable(sandbox.reason);
  const handle = sandbox.kind === 'own_connection' ? sandbox.open() : null;
  const target = handle?.db ?? db;
  try {
    await target.transaction(async (tx) => {
      if (handle) await assertLeastPrivilege(tx);
      await tx.execute(sql`select query_guard.bind_workspace(${workspaceId}::uuid)`);
      await tx.execute(sql`set transaction read only`);
      if (sandbox.kind === 'set_role') await tx.execute(sql.raw(`set local role ${QUERY_ROLE}`));
      await tx.execute(sql.raw(`set local statement_timeout = ${Math.trunc(timeoutMs)}`));
      await tx.execute(sql.raw(`set local search_path = ${VIEW_SCHEMA}`));
      throw new RolledBack(await work(tx));
    });
  } catch (e) {
    if (e instanceof RolledBack) return e.value as T;
    throw e;
  } finally {
    if (handle) await handle.close();
  }
  throw new Error('unreachable: the sandbox transaction always rolls back');
}
