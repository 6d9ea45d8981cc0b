import type { Context } from 'hono';
import { ApiError } from '../../platform/errors.js';
import { stageEndpointUrl } from '../../queues/transport/port.js';
import { verifyDelivery } from '../../queues/transport/signing.js';
import type { Services } from '../services.js';
import type { AppEnv } from './env.js';
import { renderError } from './errors.js';

/** Runs one delivered stage message; the run engine provides it. Throwing makes the queue retry. */
export type StageDispatcher = (kind: string, body: unknown, services: Services) => Promise<'done' | 'unknown_kind'>;

/**
 * `POST /queues/<kind>`: the signature is verified on the raw body before anything parses it, against
 * the URL the sender signed for (<PUBLIC_URL>/queues/<kind>), with the current then the next key.
 */
export function stageEndpoint(dispatch: StageDispatcher | undefined) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const services = c.get('services');
    const kind = c.req.param('kind') ?? '';
    const rawBody = await c.req.text();
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
    const outcome = dispatch ? await dispatch(kind, body, services) : 'unknown_kind';
    if (outcome === 'unknown_kind') return renderError(c, new ApiError('not_found', `No pipeline named "${kind}".`, { kind }));
    return c.json({ data: { accepted: true } }, 200);
  };
}
