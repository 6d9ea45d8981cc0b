import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { connections, memberships } from '../../schema/index.js';
import type { Operation } from '../registry.js';
import { defineOperation } from '../registry.js';
import { catalogEntry, isPushed, pausedReason } from './catalog.js';
import { connectFields, validateWithProvider } from './credentials.js';
import { beginOAuth } from './oauth-flow.js';
import { CallFiltersSchema, CommsFilterSchema, configOf, CrmRecencySchema, type ConnectionConfig } from './filters.js';
import { healthOf, syncRunView } from './health.js';
import {
  connectionOfAccount,
  connectionOfType,
  getConnection,
  pendingOf,
  updateConnection,
  latestRun,
  latestRuns,
  listConnections,
  syncRuns,
  type ConnectionRow,
} from './repository.js';
import {
  CatalogEntrySchema,
  ConnectBody,
  ConnectionSchema,
  ConnectionStatusSchema,
  ConnectionSummarySchema,
  ConnectResultSchema,
  connectionIdParams,
  pagingParams,
  ReconnectBody,
  SyncRunSchema,
  UpdateConnectionBody,
} from './schemas.js';
import { ingestUrl } from './push-route.js';
import { generateWebhookSecret } from '../webhooks/index.js';
import { isSyncing, startSync, syncIntervalMs } from './sync.js';
import { connectionSummary, connectionView, readConnectionView } from './views.js';

/** Connections a workspace may hold that are not disconnected (personal calendars count one each). */
export const MAX_CONNECTIONS_PER_WORKSPACE = 50;

const common = { tags: ['Connections'], stability: 'beta' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['connections:read'] as const, minRole: 'viewer' as const };
/**
 * Lifecycle writes act for a member in person (spec, Authentication 9): an OAuth access token (a
 * member's delegated session, membership re-checked on every request) or the console's session.
 * API keys, which outlive the person who made them and travel in scripts, are refused with 403.
 */
const lifecycle = { ...common, minRole: 'editor' as const, authMethods: ['oauth', 'console'] as const };

export const catalogOp = defineOperation({
  ...read,
  id: 'connections.catalog',
  method: 'get',
  path: '/connections/catalog',
  summary: 'The sources a workspace can connect, how, and whether it can here and now',
  description:
    'An OAuth source without this deployment\u2019s client id and secret, or a source whose sync this version lacks, reads `connectable: false` with `unavailableReason`.',
  mcp: { tool: 'connections', action: 'catalog', resource: 'connection://catalog' },
  output: z.object({ connectors: z.array(CatalogEntrySchema) }),
  async handler(ctx) {
    return { connectors: ctx.services.connectors.all.map((c) => catalogEntry(c, ctx.services.config)) };
  },
});

export const listOp = defineOperation({
  ...read,
  id: 'connections.list',
  method: 'get',
  path: '/connections',
  summary: 'The workspace\u2019s connections, newest first, each with its health and last sync',
  mcp: { tool: 'connections', action: 'list', resource: 'connection://list' },
  query: pagingParams,
  output: z.object({
    connections: z.array(ConnectionSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const { rows, total } = await listConnections(services.db, caller.workspaceId, input);
    const last = await latestRuns(
      services.db,
      caller.workspaceId,
      rows.map((r) => r.id),
    );
    const now = services.clock.now();
    return {
      connections: rows.map((r) => {
        const run = last.get(r.id);
        return connectionView(services, r, run ? syncRunView(run) : null, now);
      }),
      total,
      limit: input.limit,
      offset: input.offset,
    };
  },
});

export const getOp = defineOperation({
  ...read,
  id: 'connections.get',
  method: 'get',
  path: '/connections/{id}',
  summary: 'A connection, its derived health and its last sync',
  description:
    'health, first match wins: disconnected; needs_reauth (a sync was refused for credentials, until a reconnect); rate_limited (the provider asked to wait and the wait is not over, or the last sync ended rate limited); syncing (a sync is queued or running); error (the last sync failed); degraded (the last sync finished with a stream failed); stale (no completed sync within three sync intervals, or never); healthy.',
  mcp: { tool: 'connections', action: 'get', resource: 'connection://{id}' },
  params: connectionIdParams,
  output: ConnectionSchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    return readConnectionView(
      services,
      await getConnection(services.db, caller.workspaceId, input.id),
      services.clock.now(),
    );
  },
});

export const statusOp = defineOperation({
  ...read,
  id: 'connections.status',
  method: 'get',
  path: '/connections/{id}/status',
  summary: 'Poll a connection: status, health and whether it is syncing',
  mcp: { tool: 'connections', action: 'status', resource: 'connection://{id}/status' },
  params: connectionIdParams,
  output: ConnectionStatusSchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const view = await readConnectionView(
      services,
      await getConnection(services.db, caller.workspaceId, input.id),
      services.clock.now(),
    );
    return {
      id: view.id,
      status: view.status,
      health: view.health,
      is_syncing: view.is_syncing,
      paused_reason: view.paused_reason,
      last_synced_at: view.last_synced_at,
      rate_limited_until: view.rate_limited_until,
    };
  },
});

export const runsOp = defineOperation({
  ...read,
  id: 'connections.runs',
  method: 'get',
  path: '/connections/{id}/runs',
  summary: 'A connection\u2019s syncs, newest first',
  description:
    '`error_reason` classifies a failure (auth, rate_limit, transient, config, unknown); the provider\u2019s own error text is never returned.',
  mcp: { tool: 'connections', action: 'runs', resource: 'connection://{id}/runs' },
  params: connectionIdParams,
  query: pagingParams,
  output: z.object({
    runs: z.array(SyncRunSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const { services, caller } = ctx;
    await getConnection(services.db, caller.workspaceId, input.id);
    const { rows, total } = await syncRuns(services.db, caller.workspaceId, input.id, input);
    return { runs: rows.map(syncRunView), total, limit: input.limit, offset: input.offset };
  },
});

export const summaryOp = defineOperation({
  ...read,
  id: 'connections.summary',
  method: 'get',
  path: '/connections/{id}/summary',
  summary: 'What the connection has brought into the warehouse, counted live',
  description: 'Before a first completed sync every stat is null (never 0).',
  mcp: { tool: 'connections', action: 'summary', resource: 'connection://{id}/summary' },
  params: connectionIdParams,
  output: ConnectionSummarySchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    return connectionSummary(
      services.db,
      services.connectors,
      await getConnection(services.db, caller.workspaceId, input.id),
      services.clock.now(),
    );
  },
});

/** Serializes connects of one source in one workspace, so a single-instance source never gets two rows. */
const lockSource = (workspaceId: string, connectorType: string) =>
  sql`select pg_advisory_xact_lock(hashtext(${`connection:${workspaceId}:${connectorType}`}))`;

export const connectOp = defineOperation({
  ...lifecycle,
  scopes: ['connections:write'],
  id: 'connections.connect',
  example: {
    connector_type: 'gong',
    api_key: 'gong-access-key',
    api_id: 'gong-access-key-id',
    display_name: 'Gong (sales team)',
    call_filters: { enabled: true, external_only: true, exclude_domains: ['recruiting.example.com'] },
  },
  method: 'post',
  path: '/connections',
  summary: 'Connect a source: credentials checked with the provider, sealed, and a first sync started',
  description:
    'Per the catalog entry: `api_key` (and the extra field where one is declared), or `account_handle`. The credentials are checked with the provider before anything is stored (a refusal is `400 invalid_argument` naming the field; an unreachable provider `503 dependency_unavailable`), sealed at rest and never returned. ' +
    '`mode: connected` with the first sync\u2019s run id; `already_connected` (and the existing connection) for a second connect of a single-instance source. A call recorder without `call_filters` is connected but stays paused (`paused_reason: call_filters_required`) until a decision is saved. ' +
    'A source that cannot be connected here is `409 connector_not_connectable` with the reason; past ' +
    MAX_CONNECTIONS_PER_WORKSPACE +
    ' live connections a workspace gets `409 conflict`. OAuth access tokens and the console only: an API key is refused with 403.',
  mcp: { tool: 'connections', action: 'connect' },
  body: ConnectBody,
  output: ConnectResultSchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const spec = services.connectors.find(input.connector_type);
    if (!spec) {
      throw new ApiError(
        'invalid_argument',
        `There is no connector ${input.connector_type}; GET /connections/catalog lists them.`,
        {
          field: 'connector_type',
          allowed: services.connectors.all.map((c) => c.type),
        },
      );
    }
    const unavailable = spec.unavailable(services.config);
    if (unavailable) throw new ApiError('connector_not_connectable', unavailable, { connector_type: spec.type });
    if (input.call_filters && spec.category !== 'calls')
      throw new ApiError(
        'invalid_argument',
        `call_filters apply to call recorders; ${spec.name} is a ${spec.category} source.`,
        { field: 'call_filters' },
      );
    const { secrets, fields: given } = connectFields(spec, input, 'connect');
    let fields = given;
    const now = services.clock.now();
    if (spec.single_instance) {
      const existing = await connectionOfType(services.db, caller.workspaceId, spec.type);
      if (existing && existing.status === 'connected') {
        return {
          mode: 'already_connected' as const,
          connection: await readConnectionView(services, existing, now),
          authorize_url: null,
          sync_run_id: null,
          ingest: null,
        };
      }
    }
    const [{ live } = { live: 0 }] = await services.db
      .select({ live: sql<number>`count(*)::int` })
      .from(connections)
      .where(and(eq(connections.workspaceId, caller.workspaceId), sql`${connections.status} <> 'disconnected'`));
    if (Number(live) >= MAX_CONNECTIONS_PER_WORKSPACE) {
      throw new ApiError(
        'conflict',
        `A workspace can have at most ${MAX_CONNECTIONS_PER_WORKSPACE} connections that are not disconnected; disconnect one first.`,
        { limit: MAX_CONNECTIONS_PER_WORKSPACE },
      );
    }
    if (spec.authMethod === 'oauth') {
      // A retried connect (a pending row of this source; for a personal source, the caller's own) restarts its consent.
      const retried = spec.single_instance
        ? await connectionOfType(services.db, caller.workspaceId, spec.type)
        : await pendingOf(services.db, caller.workspaceId, spec.type, caller.userId);
      const { row, authorizeUrl } = await beginOAuth(
        services,
        caller,
        spec,
        retried ?? null,
        input.display_name ?? null,
      );
      return {
        mode: 'oauth_redirect' as const,
        connection: await readConnectionView(services, row, now),
        authorize_url: authorizeUrl,
        sync_run_id: null,
        ingest: null,
      };
    }
    const signingSecret = spec.authMethod === 'webhook' ? generateWebhookSecret() : null;
    if (signingSecret) secrets.signing_secret = signingSecret;
    else fields = await validateWithProvider(services, spec, fields, secrets);
    const sealed = await services.secretBox.seal(JSON.stringify(secrets));
    const config: ConnectionConfig = input.call_filters ? { call_filters: input.call_filters } : {};
    const paused = spec.category === 'calls' && !config.call_filters;
    // A pushed source has nothing to sync on a schedule.
    const pull = spec.authMethod !== 'webhook';
    const nextSyncAt = paused || !pull ? null : new Date(now.getTime() + syncIntervalMs(services.config));
    const outcome = await services.engine.transaction(async (scope) => {
      await scope.tx.execute(lockSource(caller.workspaceId, spec.type));
      // One connection per instance: the source's, or for a handle source the account's (connecting it again restores that one).
      const existing = spec.single_instance
        ? await connectionOfType(scope.tx, caller.workspaceId, spec.type)
        : fields.account_did
          ? await connectionOfAccount(scope.tx, caller.workspaceId, spec.type, fields.account_did)
          : undefined;
      if (existing && existing.status !== 'disconnected') return { already: existing as ConnectionRow };
      const values = {
        status: 'connected' as const,
        credentialsSealed: sealed,
        fields,
        authFailedAt: null,
        rateLimitedUntil: null,
        disconnectedAt: null,
        nextSyncAt,
        updatedAt: now,
      };
      let row: ConnectionRow | undefined;
      if (existing) {
        // A single-instance source connected again after a disconnect: restored in place, no second row.
        row = await updateConnection(scope.tx, existing, {
          ...values,
          config: { ...configOf(existing.config), ...config },
          ...(input.display_name ? { displayName: input.display_name } : {}),
        });
      } else {
        const conflict = input.display_name
          ? await scope.tx
              .select({ id: connections.id })
              .from(connections)
              .where(
                and(
                  eq(connections.workspaceId, caller.workspaceId),
                  eq(connections.connectorType, spec.type),
                  eq(connections.displayName, input.display_name),
                ),
              )
          : [];
        if (conflict.length > 0)
          throw new ApiError(
            'conflict',
            `A ${spec.name} connection named \u201c${input.display_name}\u201d exists; choose another display_name.`,
            { field: 'display_name' },
          );
        [row] = await scope.tx
          .insert(connections)
          .values({
            id: newId(),
            workspaceId: caller.workspaceId,
            connectorType: spec.type,
            displayName: input.display_name ?? null,
            ownerUserId: spec.ownership === 'personal' ? caller.userId : null,
            createdBy: caller.userId,
            caller: { user_id: caller.userId, email: caller.email, auth_method: caller.authMethod },
            config,
            createdAt: now,
            ...values,
          })
          .returning();
      }
      if (!row) throw new Error('connection write returned nothing');
      const runId = paused || !pull ? null : await startSync(scope, row, 'connect', caller.userId);
      return { row, runId, already: undefined };
    });
    if ('already' in outcome && outcome.already) {
      return {
        mode: 'already_connected' as const,
        connection: await readConnectionView(services, outcome.already, now),
        authorize_url: null,
        sync_run_id: null,
        ingest: null,
      };
    }
    if (!('row' in outcome) || !outcome.row) throw new Error('connect produced no connection');
    return {
      mode: 'connected' as const,
      connection: await readConnectionView(services, outcome.row, now),
      authorize_url: null,
      sync_run_id: outcome.runId,
      ingest: signingSecret ? { url: ingestUrl(services, outcome.row.id), secret: signingSecret } : null,
    };
  },
});

export const disconnectOp = defineOperation({
  ...lifecycle,
  scopes: ['connections:delete'],
  id: 'connections.disconnect',
  method: 'delete',
  path: '/connections/{id}',
  summary: 'Disconnect: syncs stop and the credentials are dropped; the row and the synced data stay',
  description: 'Idempotent. A later reconnect restores the same connection. A sync under way stops at its next page.',
  mcp: { tool: 'connections', action: 'disconnect' },
  params: connectionIdParams,
  output: ConnectionSchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const row = await getConnection(services.db, caller.workspaceId, input.id);
    const now = services.clock.now();
    const updated =
      row.status === 'disconnected'
        ? row
        : await updateConnection(services.db, row, {
            status: 'disconnected',
            disconnectedAt: now,
            credentialsSealed: null,
            nextSyncAt: null,
            updatedAt: now,
          });
    return readConnectionView(services, updated ?? row, now);
  },
});

export const updateOp = defineOperation({
  ...lifecycle,
  scopes: ['connections:write'],
  id: 'connections.update',
  example: { display_name: 'Gong (EMEA sales)' },
  method: 'patch',
  path: '/connections/{id}',
  summary: 'Set the owner of a personal connection, or rename a connection',
  description:
    '`owner_user_id` must be a member of the workspace, and only `personal` connections have an owner (a workspace connection is `400 invalid_argument`).',
  mcp: { tool: 'connections', action: 'update' },
  params: connectionIdParams,
  body: UpdateConnectionBody,
  output: ConnectionSchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const row = await getConnection(services.db, caller.workspaceId, input.id);
    const spec = services.connectors.of(row);
    if (input.owner_user_id === undefined && input.display_name === undefined)
      throw new ApiError('invalid_argument', 'Send owner_user_id or display_name.', { field: 'owner_user_id' });
    if (input.owner_user_id !== undefined) {
      if (spec.ownership !== 'personal')
        throw new ApiError('invalid_argument', `${spec.name} connections belong to the workspace and have no owner.`, {
          field: 'owner_user_id',
        });
      const [member] = await services.db
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.workspaceId, caller.workspaceId), eq(memberships.userId, input.owner_user_id)));
      if (!member)
        throw new ApiError('invalid_argument', 'owner_user_id is not a member of this workspace.', {
          field: 'owner_user_id',
        });
    }
    const now = services.clock.now();
    const updated = await updateConnection(services.db, row, {
      ...(input.owner_user_id ? { ownerUserId: input.owner_user_id } : {}),
      ...(input.display_name ? { displayName: input.display_name } : {}),
      updatedAt: now,
    });
    return readConnectionView(services, updated ?? row, now);
  },
});

export const reconnectOp = defineOperation({
  ...lifecycle,
  scopes: ['connections:write'],
  id: 'connections.reconnect',
  example: { api_key: 'rotated-gong-access-key', api_id: 'gong-access-key-id' },
  method: 'post',
  path: '/connections/{id}/reconnect',
  summary: 'Repair a broken or disconnected connection in place, with its credentials supplied again',
  description:
    'Every field the catalog marks `resupplyOnReconnect` is required again (checked with the provider like at connect). The same connection is restored: no second row, cursors kept, a sync started. A healthy connection is refused with `400 invalid_argument`.',
  mcp: { tool: 'connections', action: 'reconnect' },
  params: connectionIdParams,
  body: ReconnectBody,
  output: ConnectResultSchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const row = await getConnection(services.db, caller.workspaceId, input.id);
    const spec = services.connectors.of(row);
    const now = services.clock.now();
    const last = await latestRun(services.db, caller.workspaceId, row.id);
    const health = healthOf(row, spec, last ? syncRunView(last) : null, now, syncIntervalMs(services.config) / 60_000);
    if (health === 'healthy')
      throw new ApiError('invalid_argument', 'This connection is healthy; there is nothing to reconnect.', {
        field: 'id',
        health,
      });
    const unavailable = spec.unavailable(services.config);
    if (unavailable) throw new ApiError('connector_not_connectable', unavailable, { connector_type: spec.type });
    if (spec.authMethod === 'oauth') {
      connectFields(spec, input, 'reconnect');
      const { row: pending, authorizeUrl } = await beginOAuth(services, caller, spec, row, null);
      return {
        mode: 'oauth_redirect' as const,
        connection: await readConnectionView(services, pending, now),
        authorize_url: authorizeUrl,
        sync_run_id: null,
        ingest: null,
      };
    }
    const { secrets, fields } = connectFields(spec, input, 'reconnect');
    let mergedFields: Record<string, string> = { ...row.fields, ...fields };
    // A handle given again names the account anew; otherwise the stored account id is checked.
    if (fields.account_handle) delete mergedFields.account_did;
    const signingSecret = spec.authMethod === 'webhook' ? generateWebhookSecret() : null;
    if (signingSecret) secrets.signing_secret = signingSecret;
    else mergedFields = await validateWithProvider(services, spec, mergedFields, secrets);
    const sealed = await services.secretBox.seal(JSON.stringify(secrets));
    const paused = pausedReason(spec, row) !== null || isPushed(spec);
    const outcome = await services.engine.transaction(async (scope) => {
      const updated = await updateConnection(scope.tx, row, {
        status: 'connected',
        credentialsSealed: sealed,
        fields: mergedFields,
        authFailedAt: null,
        rateLimitedUntil: null,
        disconnectedAt: null,
        nextSyncAt: paused ? null : new Date(now.getTime() + syncIntervalMs(services.config)),
        updatedAt: now,
      });
      if (!updated) throw new ApiError('not_found', `No connection ${row.id} in this workspace.`, { id: row.id });
      const runId =
        paused || (await isSyncing(scope.tx, caller.workspaceId, row.id))
          ? null
          : await startSync(scope, updated, 'reconnect', caller.userId);
      return { updated, runId };
    });
    return {
      mode: 'connected' as const,
      connection: await readConnectionView(services, outcome.updated, now),
      authorize_url: null,
      sync_run_id: outcome.runId,
      ingest: signingSecret ? { url: ingestUrl(services, row.id), secret: signingSecret } : null,
    };
  },
});

/** Save one config key; a paused source whose decision this was starts syncing at once. */
async function saveConfig(
  ctx: Parameters<typeof connectOp.handler>[0],
  id: string,
  patch: ConnectionConfig,
  options: { category: 'calls' | 'crm' | 'comms'; field: string; resetCursors?: (before: ConnectionConfig) => boolean },
) {
  const { services, caller } = ctx;
  const row = await getConnection(services.db, caller.workspaceId, id);
  const spec = services.connectors.of(row);
  // The comms filter also governs the emails a pushed source brings.
  const applies =
    spec.category === options.category || (options.category === 'comms' && spec.dataStreams.includes('emails'));
  if (!applies)
    throw new ApiError(
      'invalid_argument',
      `${options.field} applies to ${options.category} sources; ${spec.name} is a ${spec.category} source.`,
      { field: options.field },
    );
  const now = services.clock.now();
  const before = configOf(row.config);
  const after = { ...before, ...patch };
  const wasPaused = pausedReason(spec, row) !== null;
  const reset = options.resetCursors?.(before) ?? false;
  const updated = await services.engine.transaction(async (scope) => {
    const next = await updateConnection(scope.tx, row, {
      config: after,
      ...(reset ? { cursors: {} } : {}),
      // A decision that unpauses, or a wider window, is synced at the next tick rather than in 15 minutes.
      ...(row.status === 'connected' && !isPushed(spec) && (wasPaused || reset) ? { nextSyncAt: now } : {}),
      updatedAt: now,
    });
    if (!next) throw new ApiError('not_found', `No connection ${row.id} in this workspace.`, { id: row.id });
    if (
      row.status === 'connected' &&
      wasPaused &&
      !isPushed(spec) &&
      !(await isSyncing(scope.tx, caller.workspaceId, row.id))
    ) {
      await startSync(scope, next, 'filters', caller.userId);
      return (
        (await updateConnection(scope.tx, row, {
          nextSyncAt: new Date(now.getTime() + syncIntervalMs(services.config)),
        })) ?? next
      );
    }
    return next;
  });
  return readConnectionView(services, updated, now);
}

export const callFiltersOp = defineOperation({
  ...lifecycle,
  minRole: 'admin',
  scopes: ['connections:write'],
  id: 'connections.set_call_filters',
  example: {
    enabled: true,
    external_only: true,
    reps: ['dana@yourcompany.example'],
    exclude_participants: ['noreply@vendor.example'],
    exclude_domains: ['recruiting.example.com'],
  },
  method: 'put',
  path: '/connections/{id}/call-filters',
  summary: 'Decide which calls a call recorder brings in (workspace admins)',
  description:
    'Exclusions first: any participant in `exclude_participants`, or at a domain in `exclude_domains` or its subdomains (`acme.com` excludes `eu.acme.com`, not `notacme.com`), drops the call. Then the include rules: `external_only` keeps calls with someone from outside; `reps` keeps calls one of those reps took part in. `{enabled: false}` keeps every call. A call whose roster cannot be resolved is always dropped. Saving the first decision starts the paused source\u2019s first sync. Applies to calls synced from now on. REST only.',
  params: connectionIdParams,
  body: CallFiltersSchema,
  output: ConnectionSchema,
  async handler(ctx, input) {
    const { id, ...filters } = input;
    return saveConfig(
      ctx,
      id,
      { call_filters: CallFiltersSchema.parse(filters) },
      { category: 'calls', field: 'call_filters' },
    );
  },
});

export const crmRecencyOp = defineOperation({
  ...lifecycle,
  scopes: ['connections:write'],
  id: 'connections.set_crm_recency',
  example: { window: 24 },
  method: 'put',
  path: '/connections/{id}/crm-recency',
  summary: 'How much CRM history to sync: months of activity (default 12) or all',
  description:
    'Records last modified before the window are not synced. Widening the window re-reads the CRM from the new start at the next tick; existing rows are kept either way. REST only.',
  params: connectionIdParams,
  body: CrmRecencySchema,
  output: ConnectionSchema,
  async handler(ctx, input) {
    const { id, ...recency } = input;
    const wider = (before: ConnectionConfig) => {
      const old = before.crm_recency?.window ?? 12;
      return old !== 'all' && (recency.window === 'all' || recency.window > old);
    };
    return saveConfig(
      ctx,
      id,
      { crm_recency: recency },
      { category: 'crm', field: 'crm_recency', resetCursors: wider },
    );
  },
});

export const commsFilterOp = defineOperation({
  ...lifecycle,
  scopes: ['connections:write'],
  id: 'connections.set_comms_filter',
  example: { external_only: true, exclude_domains: ['newsletters.example.com'] },
  method: 'put',
  path: '/connections/{id}/comms-filter',
  summary: 'Decide which emails and meetings a comms source brings in',
  description:
    'Same exclusion rules as call filters (participants, suffix-aware domains, exclusions first) and `external_only` (the default when none is saved: only meetings and emails with someone from outside are kept). Comms sources and the emails of a webhook source (`400 invalid_argument` otherwise). Applies to what is synced from now on. REST only.',
  params: connectionIdParams,
  body: CommsFilterSchema,
  output: ConnectionSchema,
  async handler(ctx, input) {
    const { id, ...filter } = input;
    return saveConfig(
      ctx,
      id,
      { comms_filter: CommsFilterSchema.parse(filter) },
      { category: 'comms', field: 'comms_filter' },
    );
  },
});

export const connectionOperations: readonly Operation[] = [
  catalogOp,
  listOp,
  getOp,
  statusOp,
  runsOp,
  summaryOp,
  connectOp,
  disconnectOp,
  updateOp,
  reconnectOp,
  callFiltersOp,
  crmRecencyOp,
  commsFilterOp,
];
