import { eq } from 'drizzle-orm';
import { apiKeys } from '../../schema/index.js';
import type { Role } from '../../schema/tenancy.js';
import type { Database } from '../../platform/db/port.js';
import { sha256Hex } from '../../platform/crypto.js';
import { newId, randomBase62 } from '../../platform/ids.js';
import { ApiError } from '../../platform/errors.js';
import { BUNDLE_TABLE, isScope as isKnownScope, roleAtLeast, type Bundle } from './scopes.js';
import type { Caller, VerifiedCredential } from './caller.js';
import { callerFromCredential, selectWithOwner } from './credential-caller.js';
import { credentialCache, lastUsedRecorder } from './credential-cache.js';

/** Every key starts with this; a bearer value with it is validated as a key, not as a JWT. */
export const API_KEY_PREFIX = 'cip_';
const KEY_BODY_LENGTH = 40;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);
/** How much of a key is kept in clear, for recognising it in lists. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export const looksLikeApiKey = (value: string): boolean => value.startsWith(API_KEY_PREFIX);

export interface CreatedApiKey {
  key: string;
  keyId: string;
  prefix: string;
}

export async function createApiKey(
  db: Database,
  input: { workspaceId: string; userId: string; name: string; bundle: Bundle; role: Role; expiresAt: Date | null },
): Promise<CreatedApiKey> {
  const bundle = BUNDLE_TABLE[input.bundle];
  if (!roleAtLeast(input.role, bundle.minRoleToCreate)) {
    throw new ApiError(
      'insufficient_role',
      `The ${bundle.label} bundle can only be given to members with role ${bundle.minRoleToCreate} or above.`,
      {
        bundle: input.bundle,
        required_role: bundle.minRoleToCreate,
        role: input.role,
      },
    );
  }
  const key = `${API_KEY_PREFIX}${randomBase62(KEY_BODY_LENGTH)}`;
  const keyId = newId();
  const prefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
  await db.insert(apiKeys).values({
    id: keyId,
    workspaceId: input.workspaceId,
    userId: input.userId,
    name: input.name,
    prefix,
    keyHash: await sha256Hex(key),
    bundle: input.bundle,
    scopes: [...bundle.scopes],
    expiresAt: input.expiresAt,
  });
  return { key, keyId, prefix };
}

export async function revokeApiKey(
  db: Database,
  keyId: string,
  now: Date,
): Promise<{ revoked: boolean; alreadyRevoked: boolean } | null> {
  const [row] = await db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, keyId));
  if (!row) return null;
  if (row.revokedAt) return { revoked: true, alreadyRevoked: true };
  await db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, keyId));
  credentialCache.forgetCredential(keyId);
  return { revoked: true, alreadyRevoked: false };
}

/** Resolve an API key to its caller, or throw the 401 a client should see. */
export async function authenticateApiKey(db: Database, key: string, now: Date): Promise<Caller> {
  return (await verifyApiKey(db, key, now)).caller;
}

/** The database read behind an API key (what the credential cache keeps); the use is noted for last_used_at. */
export async function verifyApiKey(db: Database, key: string, now: Date): Promise<VerifiedCredential> {
  if (!KEY_PATTERN.test(key)) throw new ApiError('invalid_token', 'The API key is malformed.');
  const [row] = await selectWithOwner(db, apiKeys, {
    id: apiKeys.id,
    workspaceId: apiKeys.workspaceId,
    userId: apiKeys.userId,
    bundle: apiKeys.bundle,
    scopes: apiKeys.scopes,
    expiresAt: apiKeys.expiresAt,
    revokedAt: apiKeys.revokedAt,
    lastUsedAt: apiKeys.lastUsedAt,
  }).where(eq(apiKeys.keyHash, await sha256Hex(key)));
  const caller = callerFromCredential(
    row && {
      ...row,
      credentialId: row.id,
      scopes: row.scopes.filter(isKnownScope),
      revoked: row.revokedAt !== null,
      bundle: row.bundle as Bundle,
    },
    'api_key',
    now,
  );
  // last_used_at is a hint, not an audit log: written behind, at most once a minute per key.
  if (row) lastUsedRecorder.note(row.id, now, row.lastUsedAt);
  return { caller, expiresAt: row?.expiresAt ?? null, grantId: null };
}
