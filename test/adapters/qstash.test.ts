import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stageEndpointUrl } from '../../queues/transport/port.js';
import { QStashTransport } from '../../queues/transport/qstash.js';
import { signDelivery, verifyDelivery } from '../../queues/transport/signing.js';
import { startFakeServer, type FakeRequest, type FakeServer } from '../support/fake-http-server.js';

/**
 * The QStash transport against a local stand-in for the QStash REST API (127.0.0.1 only), and the
 * receiver's signature check against tokens from our signer and from an independent jose signer
 * that follows QStash's documented scheme.
 */

type Recorded = FakeRequest;

const requests: Recorded[] = [];
let respond: (r: Recorded) => { status: number; body: unknown } = () => ({
  status: 201,
  body: { messageId: 'msg_from_server_1' },
});
let server: FakeServer;
let baseUrl: string;

beforeAll(async () => {
  server = await startFakeServer((recorded, res) => {
    requests.push(recorded);
    const { status, body } = respond(recorded);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  baseUrl = server.url;
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  requests.length = 0;
  respond = () => ({ status: 201, body: { messageId: 'msg_from_server_1' } });
});

const PUBLIC_URL = 'https://cip.example.com';
const TOKEN = 'qstash_test_token_abc';

describe('QStashTransport.publish', () => {
  it('sends the exact publish request and returns the server-assigned message id', async () => {
    respond = () => ({ status: 201, body: { messageId: 'msg_2Yw7 server chose this' } });
    const transport = new QStashTransport({ token: TOKEN, publicUrl: PUBLIC_URL, baseUrl });
    const body = { runId: '0190a5b8-0000-7000-8000-000000000001', stage: 'plan', attempt: 1 };
    const result = await transport.publish({ kind: 'enrich', body, delaySeconds: 30, deduplicationId: 'run-1:plan' });

    expect(result).toEqual({ messageId: 'msg_2Yw7 server chose this' });
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe(`/v2/publish/${PUBLIC_URL}/queues/enrich`);
    expect(req?.url).toBe(`/v2/publish/${stageEndpointUrl(PUBLIC_URL, 'enrich')}`);
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['upstash-delay']).toBe('30s');
    expect(req?.headers['upstash-deduplication-id']).toBe('run-1:plan');
    expect(req?.headers['upstash-retries']).toBe('3');
    expect(req?.headers['upstash-method']).toBe('POST');
    expect(JSON.parse(req?.body ?? '')).toEqual(body);
  });

  it('omits delay and deduplication headers when not asked, rounds fractional delays up, and honours retries', async () => {
    const transport = new QStashTransport({ token: TOKEN, publicUrl: PUBLIC_URL, baseUrl: `${baseUrl}/`, retries: 7 });
    await transport.publish({ kind: 'score', body: { a: 1 } });
    await transport.publish({ kind: 'score', body: { a: 2 }, delaySeconds: 2.2 });
    expect(requests.map((r) => r.url)).toEqual([
      `/v2/publish/${PUBLIC_URL}/queues/score`,
      `/v2/publish/${PUBLIC_URL}/queues/score`,
    ]);
    expect(requests[0]?.headers['upstash-delay']).toBeUndefined();
    expect(requests[0]?.headers['upstash-deduplication-id']).toBeUndefined();
    expect(requests[0]?.headers['upstash-retries']).toBe('7');
    expect(requests[1]?.headers['upstash-delay']).toBe('3s');
  });

  it('percent-encodes the kind in the destination path', async () => {
    const transport = new QStashTransport({ token: TOKEN, publicUrl: PUBLIC_URL, baseUrl });
    await transport.publish({ kind: 'odd kind/x', body: {} });
    expect(requests[0]?.url).toBe(`/v2/publish/${PUBLIC_URL}/queues/odd%20kind%2Fx`);
  });

  it('rejects when QStash refuses the message (no silent drop)', async () => {
    respond = () => ({ status: 401, body: { error: 'invalid token' } });
    const transport = new QStashTransport({ token: 'wrong', publicUrl: PUBLIC_URL, baseUrl });
    await expect(transport.publish({ kind: 'enrich', body: {} })).rejects.toThrow();
    expect(requests).toHaveLength(1); // HTTP errors are not retried by the client
  });

  it('ignores QSTASH_DEV / QSTASH_REGION in the process environment (configuration comes only from its options)', async () => {
    // Were the client to honour QSTASH_DEV it would switch to the dev server at QSTASH_DEV_PORT with
    // the dev token (probing GET /v2/keys first); pointing that port at this server keeps a
    // regression local and visible.
    respond = (r) =>
      r.url === '/v2/keys'
        ? {
            status: 200,
            body: { current: 'sig_7kYjw48mhY7kAjqNGcy6cr29RJ6r', next: 'sig_5ZB6DVzB1wjE8S6rZ7eenA8Pdnhs' },
          }
        : { status: 201, body: { messageId: 'msg_env' } };
    const saved = { ...process.env };
    process.env.QSTASH_DEV = '1';
    process.env.QSTASH_DEV_PORT = new URL(baseUrl).port;
    process.env.QSTASH_REGION = 'EU_CENTRAL_1';
    process.env.EU_CENTRAL_1_QSTASH_URL = baseUrl;
    process.env.EU_CENTRAL_1_QSTASH_TOKEN = 'region_token';
    try {
      const transport = new QStashTransport({ token: TOKEN, publicUrl: PUBLIC_URL, baseUrl });
      expect(await transport.publish({ kind: 'enrich', body: {} })).toEqual({ messageId: 'msg_env' });
      expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST /v2/publish/${PUBLIC_URL}/queues/enrich`]);
      expect(requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);

      const url = `${PUBLIC_URL}/queues/enrich`;
      const signature = await signDelivery(KEYS.current, url, '{}');
      expect(await verifyDelivery(KEYS, signature, url, '{}')).toBe(true);
    } finally {
      for (const key of [
        'QSTASH_DEV',
        'QSTASH_DEV_PORT',
        'QSTASH_REGION',
        'EU_CENTRAL_1_QSTASH_URL',
        'EU_CENTRAL_1_QSTASH_TOKEN',
      ]) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });
});

const KEYS = { current: 'sig_current_0123456789abcdefghij', next: 'sig_next_0123456789abcdefghijkl' };
const URL_ = `${PUBLIC_URL}/queues/enrich`;
const BODY = JSON.stringify({ runId: 'r1', stage: 'plan', note: 'ünïcødé ✓' });

/**
 * QStash's documented signing scheme, written here from the documentation rather than through our
 * signer: HS256 JWT, iss "Upstash", sub = destination URL, body = base64url(SHA-256(raw body)).
 */
async function qstashStyleToken(
  key: string,
  options: { url?: string; body?: string; iss?: string; exp?: number; nbf?: number; bodyClaim?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const bodyClaim =
    options.bodyClaim ??
    createHash('sha256')
      .update(options.body ?? BODY, 'utf8')
      .digest('base64url');
  return new SignJWT({ body: bodyClaim })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(options.iss ?? 'Upstash')
    .setSubject(options.url ?? URL_)
    .setIssuedAt(now)
    .setNotBefore(options.nbf ?? now)
    .setExpirationTime(options.exp ?? now + 300)
    .setJti(`jwt_${Math.random().toString(36).slice(2)}`)
    .sign(new TextEncoder().encode(key));
}

describe('signDelivery / verifyDelivery', () => {
  it('verifies a delivery signed with the current key', async () => {
    const signature = await signDelivery(KEYS.current, URL_, BODY);
    expect(await verifyDelivery(KEYS, signature, URL_, BODY)).toBe(true);
  });

  it('verifies a delivery signed with the next key (rotation)', async () => {
    const signature = await signDelivery(KEYS.next, URL_, BODY);
    expect(await verifyDelivery(KEYS, signature, URL_, BODY)).toBe(true);
  });

  it('refuses a wrong key, a tampered body, a different URL, a missing signature and garbage', async () => {
    const signature = await signDelivery(KEYS.current, URL_, BODY);
    expect(
      await verifyDelivery(KEYS, await signDelivery('sig_someone_else_entirely_000000', URL_, BODY), URL_, BODY),
    ).toBe(false);
    expect(await verifyDelivery(KEYS, signature, URL_, BODY.replace('plan', 'PLAN'))).toBe(false);
    expect(await verifyDelivery(KEYS, signature, URL_, `${BODY} `)).toBe(false);
    expect(await verifyDelivery(KEYS, signature, `${PUBLIC_URL}/queues/score`, BODY)).toBe(false);
    expect(await verifyDelivery(KEYS, signature, 'https://evil.example.com/queues/enrich', BODY)).toBe(false);
    expect(await verifyDelivery(KEYS, undefined, URL_, BODY)).toBe(false);
    expect(await verifyDelivery(KEYS, '', URL_, BODY)).toBe(false);
    expect(await verifyDelivery(KEYS, 'not.a.jwt', URL_, BODY)).toBe(false);
    // Keys swapped on the receiving side still accept either; a receiver with neither refuses.
    expect(await verifyDelivery({ current: KEYS.next, next: KEYS.current }, signature, URL_, BODY)).toBe(true);
    expect(await verifyDelivery({ current: 'a'.repeat(32), next: 'b'.repeat(32) }, signature, URL_, BODY)).toBe(false);
  });

  it('refuses an expired token and one not yet valid (beyond the 5 s tolerance)', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(
      await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current, { exp: now - 60, nbf: now - 400 }), URL_, BODY),
    ).toBe(false);
    expect(
      await verifyDelivery(KEYS, await qstashStyleToken(KEYS.next, { exp: now - 60, nbf: now - 400 }), URL_, BODY),
    ).toBe(false);
    expect(await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current, { nbf: now + 120 }), URL_, BODY)).toBe(
      false,
    );
    // Within tolerance it still passes.
    expect(
      await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current, { exp: now - 2, nbf: now - 300 }), URL_, BODY),
    ).toBe(true);
  });

  it('accepts a token built independently to QStash’s scheme (not only our own signer)', async () => {
    expect(await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current), URL_, BODY)).toBe(true);
    expect(await verifyDelivery(KEYS, await qstashStyleToken(KEYS.next), URL_, BODY)).toBe(true);
    // QStash pads its base64url body hash with '='; the receiver accepts both forms.
    const padded = `${createHash('sha256').update(BODY, 'utf8').digest('base64url')}=`;
    expect(await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current, { bodyClaim: padded }), URL_, BODY)).toBe(
      true,
    );
    // ...and refuses it once any part of the scheme is off.
    expect(await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current, { iss: 'NotUpstash' }), URL_, BODY)).toBe(
      false,
    );
    expect(await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current, { url: `${URL_}/x` }), URL_, BODY)).toBe(
      false,
    );
    expect(await verifyDelivery(KEYS, await qstashStyleToken(KEYS.current, { body: '{}' }), URL_, BODY)).toBe(false);
  });

  it('signs exactly the claims QStash signs', async () => {
    const { decodeJwt, decodeProtectedHeader } = await import('jose');
    const signature = await signDelivery(KEYS.current, URL_, BODY);
    expect(decodeProtectedHeader(signature)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(signature);
    expect(claims).toMatchObject({
      iss: 'Upstash',
      sub: URL_,
      body: createHash('sha256').update(BODY, 'utf8').digest('base64url'),
    });
    expect(typeof claims.exp).toBe('number');
    expect(typeof claims.nbf).toBe('number');
    expect((claims.exp ?? 0) - (claims.nbf ?? 0)).toBeGreaterThan(0);
  });
});
