import { fromBase64, hmacSha256, toBase64 } from '../../platform/crypto.js';

/**
 * Standard Webhooks signatures (standardwebhooks.com): the secret is "whsec_" + base64 of random
 * bytes; each delivery carries `webhook-id`, `webhook-timestamp` (unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")>`.
 */
export const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${toBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}

export async function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const key = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  const mac = await hmacSha256(key, `${id}.${timestampSeconds}.${body}`);
  return `v1,${toBase64(mac)}`;
}

export async function webhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<Record<string, string>> {
  return {
    'content-type': 'application/json',
    'user-agent': 'customer-intelligence-platform-webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': await signWebhook(secret, id, timestampSeconds, body),
  };
}
