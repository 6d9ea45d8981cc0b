import type { Context } from 'hono';
import { ApiError, isApiError } from '../../platform/errors.js';
import { ACKNOWLEDGED_HEADER, stageEndpointUrl, type DeliveryReceipt } from '../../queues/transport/port.js';
import { verifyDelivery } from '../../queues/transport/signing.js';
import { readTextWithin } from './body-limit.js';
import type { AppEnv } from './env.js';
import { bodyTooLarge } from './json-body.js';
import { renderError } from './errors.js';

/**
 * `POST /queues/<kind>`: the signature is verified on the raw body (at most 1 MiB) before anything parses it, against
 * the URL the sender signed for (<PUBLIC_URL>/queues/<kind>), with the current then the next key.
 */
export function stageEndpoint() {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const services = c.get('services');
    const kind = c.req.param('kind') ?? '';
    // Within the same 1 MiB as every body, read no further: the signature is checked on what was read.
    const rawBody = await readTextWithin(c.req.raw);
    if (rawBody === undefined) return renderError(c, bodyTooLarge());
    const url = stageEndpointUrl(services.config.publicUrl, kind);
    if (!(await verifyDelivery(services.queueSigningKeys, c.req.header('upstash-signature'), url, rawBody))) {
      return renderError(c, new ApiError('invalid_token', 'The delivery signature is missing or does not verify.'));
    }
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      // A signed but unparsable message can never succeed; acknowledge so it is not retried forever.
      services.log.error('stage delivery with malformed JSON acknowledged and dropped', { kind });
      return c.json({ data: { accepted: false, reason: 'malformed_json' } }, 200);
    }
    const messageId = c.req.header('upstash-message-id');
    const receipt: DeliveryReceipt | undefined = messageId ? { messageId, acknowledged: false } : undefined;
    let outcome;
    try {
      outcome = await services.engine.handleDelivery(kind, body, receipt);
    } catch (error) {
      if (isApiError(error) && error.code === 'invalid_argument') {
        services.log.error('stage delivery with an invalid message acknowledged and dropped', { kind, error });
        return c.json({ data: { accepted: false, reason: 'invalid_message' } }, 200);
      }
      throw error; // 5xx: the queue retries the delivery.
    }
    if (outcome === 'unknown_kind')
      return renderError(c, new ApiError('not_found', `No pipeline named "${kind}".`, { kind }));
    // Another delivery holds this stage right now: a non-2xx makes the queue try again later.
    if (outcome === 'busy')
      return renderError(c, new ApiError('conflict', 'The stage is being run by another delivery.', { kind }));
    // Acknowledged inside the stage's commit: the local transport need not remove the delivery itself.
    if (receipt?.acknowledged) c.header(ACKNOWLEDGED_HEADER, '1');
    return c.json({ data: { accepted: true, outcome } }, 200);
  };
}
