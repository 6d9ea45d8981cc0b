import { z } from '@hono/zod-openapi';
import { and, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import { apiKeys, oauthClients, oauthGrants, users, workspaces } from '../../schema/index.js';
import { ApiError } from '../../platform/errors.js';
import { createApiKey, revokeApiKey } from '../identity/api-keys.js';
import { BUNDLE_TABLE, BUNDLES, roleAtLeast } from '../identity/scopes.js';
import { revokeGrantIn } from '../oauth/index.js';
import { defineOperation, type Operation } from '../registry.js';

/**
 * The console's own operations (spec, Authentication 4): API keys and authorized applications.
 * They are registry operations like any other, with visibility `console`: the console's pages call
 * them for the signed-in member (origin `console`), and an API caller gets `403 not_on_public_api`,
 * so a leaked key can never mint more keys.
 */
const common = {
  tags: ['Console'],
  stability: 'stable' as const,
  visibility: 'console' as const,
  scopes: [] as const,
  minRole: 'viewer' as const,
  agentTool: false as const,
};

/** Expiration choices offered (days); null: never expires. */
export const KEY_EXPIRATION_DAYS = [7, 30, 90, 365] as const;

const ApiKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  bundle: z.enum(BUNDLES),
  bundle_label: z.string(),
  owner_email: z.string(),
  own: z.boolean(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  last_used_at: z.iso.datetime().nullable(),
  expired: z.boolean(),
});

const idParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

export const listApiKeys = defineOperation({
  ...common,
  id: 'console.api_keys.list',
  method: 'get',
  path: '/console/api-keys',
  summary: 'List API keys (console)',
  description: "The workspace's unrevoked keys: a member sees their own, an admin sees every member's.",
  output: z.object({ keys: z.array(ApiKeySchema), bundles_allowed: z.array(z.enum(BUNDLES)) }),
  async handler({ services, caller }) {
    const isAdmin = roleAtLeast(caller.role, 'admin');
    const rows = await services.db
      .select({ key: apiKeys, ownerEmail: users.email })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(
        and(
          eq(apiKeys.workspaceId, caller.workspaceId),
          isNull(apiKeys.revokedAt),
          isAdmin ? undefined : eq(apiKeys.userId, caller.userId),
        ),
      )
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
    const now = services.clock.now();
    return {
      keys: rows.map(({ key, ownerEmail }) => ({
        id: key.id,
        name: key.name,
        prefix: key.prefix,
        bundle: key.bundle as (typeof BUNDLES)[number],
        bundle_label: BUNDLE_TABLE[key.bundle as (typeof BUNDLES)[number]]?.label ?? key.bundle,
        owner_email: ownerEmail,
        own: key.userId === caller.userId,
        created_at: key.createdAt.toISOString(),
        expires_at: key.expiresAt?.toISOString() ?? null,
        last_used_at: key.lastUsedAt?.toISOString() ?? null,
        expired: key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime(),
      })),
      bundles_allowed: BUNDLES.filter((b) => roleAtLeast(caller.role, BUNDLE_TABLE[b].minRoleToCreate)),
    };
  },
});

export const createApiKeyOperation = defineOperation({
  ...common,
  id: 'console.api_keys.create',
  example: { name: 'CI pipeline', bundle: 'read_only', expires_in_days: 90 },
  method: 'post',
  path: '/console/api-keys',
  summary: 'Create an API key (console)',
  description:
    'The plaintext key is in this response only; the service keeps its SHA-256 hash. A bundle above the member role is refused (403 insufficient_role).',
  body: z.object({
    name: z.string().trim().min(1).max(120),
    bundle: z.enum(BUNDLES),
    expires_in_days: z.union([z.literal(7), z.literal(30), z.literal(90), z.literal(365), z.null()]),
  }),
  output: z.object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string(),
    bundle: z.enum(BUNDLES),
    expires_at: z.iso.datetime().nullable(),
    key: z.string(),
  }),
  successStatus: 201,
  async handler({ services, caller }, input) {
    const now = services.clock.now();
    const expiresAt =
      input.expires_in_days === null ? null : new Date(now.getTime() + input.expires_in_days * 86_400_000);
    const created = await createApiKey(services.db, {
      workspaceId: caller.workspaceId,
      userId: caller.userId,
      name: input.name,
      bundle: input.bundle,
      role: caller.role,
      expiresAt,
    });
    return {
      id: created.keyId,
      name: input.name,
      prefix: created.prefix,
      bundle: input.bundle,
      expires_at: expiresAt?.toISOString() ?? null,
      key: created.key,
    };
  },
});

export const revokeApiKeyOperation = defineOperation({
  ...common,
  id: 'console.api_keys.revoke',
  method: 'delete',
  path: '/console/api-keys/{id}',
  summary: 'Revoke an API key (console)',
  description:
    "Revokes at once; requests with the key get 401. A member revokes their own keys; an admin, any of the workspace's.",
  params: idParams,
  output: z.object({ id: z.uuid(), revoked: z.literal(true) }),
  async handler({ services, caller }, input) {
    const id = input.id;
    const [row] = await services.db
      .select({ userId: apiKeys.userId })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.workspaceId, caller.workspaceId)));
    if (!row || (row.userId !== caller.userId && !roleAtLeast(caller.role, 'admin')))
      throw new ApiError('not_found', `No API key ${id}.`, { id });
    await revokeApiKey(services.db, id, services.clock.now());
    return { id, revoked: true as const };
  },
});

const AuthorizedAppSchema = z.object({
  id: z.uuid(),
  client_id: z.string(),
  client_name: z.string(),
  redirect_hosts: z.array(z.string()),
  workspace_name: z.string(),
  scopes: z.array(z.string()),
  resource: z.string(),
  authorized_at: z.iso.datetime(),
});

export const listAuthorizedApps = defineOperation({
  ...common,
  id: 'console.authorized_apps.list',
  method: 'get',
  path: '/console/authorized-apps',
  summary: 'List the applications you authorized (console)',
  description: "The member's own OAuth grants in this workspace that are in use and not revoked.",
  output: z.object({ apps: z.array(AuthorizedAppSchema) }),
  async handler({ services, caller }) {
    const rows = await services.db
      .select({
        grant: oauthGrants,
        clientName: oauthClients.name,
        redirectUris: oauthClients.redirectUris,
        workspaceName: workspaces.name,
      })
      .from(oauthGrants)
      .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
      .innerJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
      .where(
        and(
          eq(oauthGrants.workspaceId, caller.workspaceId),
          eq(oauthGrants.userId, caller.userId),
          isNull(oauthGrants.revokedAt),
          isNotNull(oauthGrants.activatedAt),
        ),
      )
      .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id));
    return {
      apps: rows.map(({ grant, clientName, redirectUris, workspaceName }) => ({
        id: grant.id,
        client_id: grant.clientId,
        client_name: clientName,
        redirect_hosts: [...new Set(redirectUris.map((u) => new URL(u).host))],
        workspace_name: workspaceName,
        scopes: grant.scopes,
        resource: grant.resource,
        authorized_at: grant.createdAt.toISOString(),
      })),
    };
  },
});

export const revokeAuthorizedApp = defineOperation({
  ...common,
  id: 'console.authorized_apps.revoke',
  method: 'delete',
  path: '/console/authorized-apps/{id}',
  summary: 'Revoke an application you authorized (console)',
  description: 'Revokes the grant: its access tokens stop working at once and its refresh tokens are refused.',
  params: idParams,
  output: z.object({ id: z.uuid(), revoked: z.literal(true) }),
  async handler({ services, caller }, input) {
    const id = input.id;
    const [row] = await services.db
      .select({ id: oauthGrants.id })
      .from(oauthGrants)
      .where(
        and(
          eq(oauthGrants.id, id),
          eq(oauthGrants.workspaceId, caller.workspaceId),
          eq(oauthGrants.userId, caller.userId),
          isNull(oauthGrants.revokedAt),
        ),
      );
    if (!row) throw new ApiError('not_found', `No authorized application ${id}.`, { id });
    await services.db.transaction((tx) => revokeGrantIn(tx, id, 'member', services.clock.now()));
    return { id, revoked: true as const };
  },
});

export const consoleOperations: Operation[] = [
  listApiKeys,
  createApiKeyOperation,
  revokeApiKeyOperation,
  listAuthorizedApps,
  revokeAuthorizedApp,
];
