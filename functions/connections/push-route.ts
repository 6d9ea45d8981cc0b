import { Hono } from 'hono';
import { eq } from 'drizzle-orm';
import { timingSafeEqual } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { assertJsonTextDepth } from '../../platform/json-depth.js';
import { assertStorableText } from '../../platform/storable-text.js';
import { connections } from '../../schema/index.js';
import { API_PREFIX, type AppEnv } from '../http/env.js';
import { readBodyBytes } from '../http/json-body.js';
import type { Services } from '../services.js';
import { signWebhook } from '../webhooks/index.js';
import { pausedReason } from './catalog.js';
import { SealedCredentials } from './sync-sources.js';

/**
 * Pushes to a webhook source: a workspace's own systems post to the connection's ingest URL, signed
 * with the connection's secret the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256>`; the secret is shown once, at connect or reconnect).
 * The signature is the credential: no API key is needed, and anything unverifiable is refused
 * before the body is read as data. A paused source (no call filter decision yet) refuses pushes
 * with 409. What a push may hold, and how it reaches the warehouse, is its connector's
 * (`receivePush`; connectors/call-webhook/ for calls and emails).
 */
export const INGEST_PATH = `${API_PREFIX}/connections/:id/ingest`;
export const ingestUrl = (services: Services, id: string) =>
  `${services.config.publicUrl}${API_PREFIX}/connections/${id}/ingest`;

/** Pushes older or newer than this (replays, skewed clocks) are refused. */
const TOLERANCE_SECONDS = 5 * 60;
async function verify(
  services: Services,
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: string,
): Promise<void> {
  if (!headers.id || !headers.timestamp || !headers.signature) {
    throw new ApiError(
      'unauthenticated',
      'A push must be signed: webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks).',
      { required_headers: ['webhook-id', 'webhook-timestamp', 'webhook-signature'] },
    );
  }
  const timestamp = Number(headers.timestamp);
  const now = Math.floor(services.clock.now().getTime() / 1000);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > TOLERANCE_SECONDS) {
    throw new ApiError('invalid_token', `webhook-timestamp is more than ${TOLERANCE_SECONDS} s away from now.`, {
      reason: 'timestamp',
    });
  }
  const expected = await signWebhook(secret, headers.id, timestamp, body);
  const offered = headers.signature.split(' ').filter((s) => s.startsWith('v1,'));
  if (!offered.some((s) => timingSafeEqual(s, expected)))
    throw new ApiError('invalid_token', 'webhook-signature does not match this connection\u2019s secret.', {
      reason: 'signature',
    });
}

/** `POST /connections/{id}/ingest`: outside the API's credential check (the signature is the credential). */
export function connectionIngestRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post(INGEST_PATH, async (c) => {
    const services = c.get('services');
    const id = c.req.param('id');
    // One answer for an unknown id, another workspace's, a disconnected one, or a source that is not pushed.
    const notFound = new ApiError('not_found', 'No webhook connection at this URL.', { id });
    const [connection] = isUuid(id) ? await services.db.select().from(connections).where(eq(connections.id, id)) : [];
    const connector = connection ? services.connectors.find(connection.connectorType) : undefined;
    if (!connection || !connector?.receivePush || connection.status !== 'connected' || !connection.credentialsSealed)
      throw notFound;
    const secret = SealedCredentials.parse(
      JSON.parse(await services.secretBox.open(connection.credentialsSealed)),
    ).signing_secret;
    if (!secret) throw notFound;
    const body = new TextDecoder().decode(await readBodyBytes(c));
    await verify(
      services,
      secret,
      {
        id: c.req.header('webhook-id'),
        timestamp: c.req.header('webhook-timestamp'),
        signature: c.req.header('webhook-signature'),
      },
      body,
    );
    if (pausedReason(connector, connection))
      throw new ApiError(
        'conflict',
        'This source is paused until a workspace admin saves a call filter decision (PUT /connections/{id}/call-filters); push again after.',
        { paused_reason: pausedReason(connector, connection) },
      );
    assertJsonTextDepth(body);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new ApiError('invalid_argument', 'The push body is not JSON.', { body: 'malformed_json' });
    }
    // After the signature (an unsigned push learns nothing), before anything is written: text the
    // database cannot store is a 400 naming the field, not a failed insert.
    assertStorableText(json);
    return c.json({ data: await connector.receivePush(services, connection, json) }, 200);
  });
  return app;
}
