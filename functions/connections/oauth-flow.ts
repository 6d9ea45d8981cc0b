import { Hono } from 'hono';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { sha256Base64Url, sha256Hex, timingSafeEqual, toBase64Url } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { connections } from '../../schema/index.js';
import type { Caller } from '../identity/caller.js';
import { API_PREFIX, type AppEnv } from '../http/env.js';
import { renderError } from '../http/errors.js';
import { refuseUnstorableText } from '../http/storable-text-guard.js';
import type { Services } from '../services.js';
import type { Connector } from './connector.js';
import { ProviderError } from './provider-errors.js';
import { exchangeCode } from './oauth-client.js';
import { updateConnection, type ConnectionRow } from './repository.js';
import { startSync, syncIntervalMs } from './sync.js';

/**
 * Connecting an OAuth source (spec: connect, oauth flow → `mode: oauth_redirect`). The connect
 * call stores a `pending` connection holding, sealed, the hash of a one-time state and the PKCE
 * verifier, and answers the provider's authorize URL. The person consents there; the provider
 * sends the browser to the callback below with `code` and `state`. The state names the connection
 * and proves the redirect belongs to this flow (it is single-use and lapses after ten minutes);
 * the code is exchanged for tokens, which are sealed in place of the pending state, and the first
 * sync starts. The browser lands on the console with the outcome in the query; API callers poll
 * `GET /connections/{id}/status` until health leaves `syncing`.
 */
export const CALLBACK_PATH = `${API_PREFIX}/connections/oauth/callback`;
const STATE_TTL_MS = 10 * 60_000;

const Pending = z.object({
  state_hash: z.string(),
  verifier: z.string(),
  expires_at: z.number(),
  trigger: z.enum(['connect', 'reconnect']),
});

const randomToken = () => toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
export const callbackUrl = (services: Services) => `${services.config.publicUrl}${CALLBACK_PATH}`;

/**
 * Start (or restart) the consent for a connection: a new row in `pending`, or an existing one (a
 * reconnect, a retried connect) keeping its status until the callback completes it.
 */
export async function beginOAuth(
  services: Services,
  caller: Caller,
  spec: Connector,
  existing: ConnectionRow | null,
  displayName: string | null,
): Promise<{ row: ConnectionRow; authorizeUrl: string }> {
  const source = spec.oauth;
  if (!source) throw new Error(`no OAuth settings for ${spec.type}`);
  const state = randomToken();
  const verifier = randomToken();
  const now = services.clock.now();
  const pending = {
    state_hash: await sha256Hex(state),
    verifier,
    expires_at: now.getTime() + STATE_TTL_MS,
    trigger: existing && existing.status !== 'pending' ? ('reconnect' as const) : ('connect' as const),
  };
  const sealed = await services.secretBox.seal(JSON.stringify({ pending: JSON.stringify(pending) }));
  let row: ConnectionRow | undefined;
  if (existing) {
    row = await updateConnection(services.db, existing, { credentialsSealed: sealed, updatedAt: now });
  } else {
    [row] = await services.db
      .insert(connections)
      .values({
        id: newId(),
        workspaceId: caller.workspaceId,
        connectorType: spec.type,
        displayName,
        status: 'pending',
        ownerUserId: spec.ownership === 'personal' ? caller.userId : null,
        createdBy: caller.userId,
        caller: { user_id: caller.userId, email: caller.email, auth_method: caller.authMethod },
        credentialsSealed: sealed,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
  }
  if (!row) throw new Error('connection write returned nothing');
  const authorizeUrl = source.authorizeUrl(services.config, {
    state: `${row.id}.${state}`,
    challenge: await sha256Base64Url(verifier),
    redirectUri: callbackUrl(services),
  });
  return { row, authorizeUrl };
}

type Outcome = { id: string; result: 'connected' | 'denied' | 'error'; reason?: string };

async function completeOAuth(services: Services, query: Record<string, string | undefined>): Promise<Outcome> {
  const [id, state] = (query.state ?? '').split('.', 2);
  if (!id || !state || !isUuid(id))
    throw new ApiError('invalid_argument', 'This authorization link is not valid; start the connection again.', {
      field: 'state',
    });
  const [row] = await services.db.select().from(connections).where(eq(connections.id, id));
  const sealed = row?.credentialsSealed ? await services.secretBox.open(row.credentialsSealed).catch(() => null) : null;
  const parsed = sealed
    ? Pending.safeParse(
        JSON.parse(z.object({ pending: z.string() }).safeParse(JSON.parse(sealed)).data?.pending ?? 'null'),
      )
    : null;
  const now = services.clock.now();
  // One answer for every way a state can be wrong: unknown, used, expired, or not this flow's.
  if (
    !row ||
    !parsed?.success ||
    !timingSafeEqual(parsed.data.state_hash, await sha256Hex(state)) ||
    parsed.data.expires_at < now.getTime()
  ) {
    throw new ApiError(
      'invalid_argument',
      'This authorization link is not valid or has expired; start the connection again.',
      { field: 'state' },
    );
  }
  const pending = parsed.data;
  const source = services.connectors.find(row.connectorType)?.oauth;
  if (!source) throw new ApiError('invalid_argument', 'This connection does not connect by OAuth.', { field: 'state' });
  // The state is spent whatever happens next.
  const spent = { credentialsSealed: null, updatedAt: now };
  if (query.error || !query.code) {
    await updateConnection(services.db, row, spent);
    return { id: row.id, result: 'denied', reason: query.error ?? 'no_code' };
  }
  let tokens;
  try {
    tokens = await exchangeCode(
      source,
      services.config,
      { code: query.code, verifier: pending.verifier, redirectUri: callbackUrl(services) },
      now,
    );
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await updateConnection(services.db, row, spent);
    return { id: row.id, result: 'error', reason: error.reason };
  }
  const credentials = await services.secretBox.seal(JSON.stringify({ oauth: JSON.stringify(tokens) }));
  await services.engine.transaction(async (scope) => {
    const [updated] = await scope.tx
      .update(connections)
      .set({
        status: 'connected',
        credentialsSealed: credentials,
        authFailedAt: null,
        rateLimitedUntil: null,
        disconnectedAt: null,
        nextSyncAt: new Date(now.getTime() + syncIntervalMs(services.config)),
        updatedAt: now,
      })
      .where(and(eq(connections.id, row.id), sql`${connections.credentialsSealed} = ${row.credentialsSealed}`))
      .returning();
    // Another callback with the same state won the race: this one changes nothing.
    if (updated) await startSync(scope, updated, pending.trigger, row.createdBy);
  });
  return { id: row.id, result: 'connected' };
}

/** The provider's redirect lands here (no API credential: the state is the proof). */
export function connectionOAuthRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(
    CALLBACK_PATH,
    refuseUnstorableText((c, problem) =>
      renderError(
        c,
        new ApiError('invalid_argument', `Invalid request: ${problem.field}: ${problem.problem}`, {
          fields: [problem],
        }),
      ),
    ),
  );
  app.get(CALLBACK_PATH, async (c) => {
    const services = c.get('services');
    try {
      const outcome = await completeOAuth(services, c.req.query());
      const params = new URLSearchParams({
        connection_id: outcome.id,
        connection_result: outcome.result,
        ...(outcome.reason ? { reason: outcome.reason } : {}),
      });
      return c.redirect(`/console?${params}`, 302);
    } catch (error) {
      if (error instanceof ApiError) return renderError(c, error);
      throw error;
    }
  });
  return app;
}
