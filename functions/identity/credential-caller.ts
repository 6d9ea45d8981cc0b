import { and, eq, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { ApiError } from '../../platform/errors.js';
import type { Database } from '../../platform/db/port.js';
import { type apiKeys, memberships, type oauthTokens, users, workspaces } from '../../schema/index.js';
import type { Role } from '../../schema/tenancy.js';
import type { AuthMethod, Caller } from './caller.js';
import type { Bundle, Scope } from './scopes.js';

/**
 * One credential row → one Caller, for every kind of credential (API key, OAuth access token,
 * identity-provider JWT): the owner's columns every lookup joins in, and the checks every
 * credential passes in the same order (known, not revoked, not expired, owner still a member).
 * The lookups differ only in how they find their row; what the row means is decided here.
 */

/** The owner's columns a credential lookup selects beside its own: workspace name, email, membership role. */
export const ownerColumns = { workspaceName: workspaces.name, email: users.email, role: memberships.role };

/**
 * The owner's membership in the credential's workspace. Joined left by the key and token lookups,
 * so an owner who left reads as a null role (403 forbidden), not as an unknown credential (401).
 */
export const ownerMembership = (workspaceId: AnyPgColumn, userId: AnyPgColumn): SQL =>
  and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)) as SQL;

/** A credential row as the lookups read it, before any check. */
export interface CredentialRow {
  credentialId: string;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  email: string;
  /** Null when the owner is no longer a member of the workspace. */
  role: Role | null;
  scopes: readonly Scope[];
  expiresAt: Date | null;
  revoked: boolean;
  bundle: Bundle | null;
}

type CredentialMethod = Exclude<AuthMethod, 'console'>;

/** What a client is told for each refusal, in the words of its own credential. */
const REFUSALS: Record<
  CredentialMethod,
  { unknown: () => ApiError; revoked: string; expired: string; notMember: string }
> = {
  api_key: {
    unknown: () => new ApiError('invalid_token', 'The API key is not valid.'),
    revoked: 'The API key has been revoked.',
    expired: 'The API key has expired.',
    // The credential itself is sound; its owner lacks tenant access: 403, as for OAuth and IdP tokens.
    notMember: 'The key owner is no longer a member of this workspace.',
  },
  oauth: {
    unknown: () => new ApiError('invalid_token', 'The access token is not known.'),
    revoked: 'The access token has been revoked.',
    expired: 'The access token has expired.',
    notMember: 'The token owner is no longer a member of this workspace.',
  },
  identity_provider: {
    // The JWT was verified already; no row means its holder is not a member of the workspace it names.
    unknown: () => new ApiError('forbidden', 'The token holder is not a member of the workspace it names.'),
    revoked: 'The token has been revoked.',
    expired: 'The token has expired.',
    notMember: 'The token holder is not a member of the workspace it names.',
  },
};

/** The caller a credential row stands for, or the 401/403 a client should see. */
export function callerFromCredential(row: CredentialRow | undefined, authMethod: CredentialMethod, now: Date): Caller {
  const refusals = REFUSALS[authMethod];
  if (!row) throw refusals.unknown();
  if (row.revoked) throw new ApiError('invalid_token', refusals.revoked);
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) throw new ApiError('expired_token', refusals.expired);
  if (!row.role) throw new ApiError('forbidden', refusals.notMember);
  return {
    workspaceId: row.workspaceId,
    workspaceName: row.workspaceName,
    userId: row.userId,
    email: row.email,
    role: row.role,
    scopes: new Set(row.scopes),
    authMethod,
    credentialId: row.credentialId,
    bundle: row.bundle,
  };
}

/** A credential table: a row per credential, owned by one member of one workspace. */
type OwnedCredentialTable = typeof apiKeys | typeof oauthTokens;

/**
 * A credential table's rows with their owner's columns beside the fields asked for: the workspace
 * and the user joined in, the membership joined left (see ownerMembership).
 */
export function selectWithOwner<TTable extends OwnedCredentialTable, TFields extends Record<string, AnyPgColumn>>(
  db: Database,
  table: TTable,
  fields: TFields,
) {
  return db
    .select({ ...fields, ...ownerColumns })
    .from(table as OwnedCredentialTable)
    .innerJoin(workspaces, eq(workspaces.id, table.workspaceId))
    .innerJoin(users, eq(users.id, table.userId))
    .leftJoin(memberships, ownerMembership(table.workspaceId, table.userId));
}
