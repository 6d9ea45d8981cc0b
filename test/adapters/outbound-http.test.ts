import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOutboundHttp } from '../../platform/net/node-http.js';
import { startFakeServer, type FakeRequest, type FakeServer } from '../support/fake-http-server.js';

/** The outbound HTTP port on Node: any method, response headers and body (bounded), and the address guard. */

let server: FakeServer;
const seen: FakeRequest[] = [];

beforeAll(async () => {
  server = await startFakeServer((req, res) => {
    seen.push(req);
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(50_000));
    } else if (req.url === '/slow') {
      // never answers
    } else {
      res.writeHead(201, { 'content-type': 'application/json', 'X-Request-Id': 'abc' });
      res.end(JSON.stringify({ method: req.method, body: req.body }));
    }
  });
});
afterAll(async () => server.close());

const base = { headers: { 'x-test': '1' }, timeoutMs: 2_000, allowLoopback: true };

describe('nodeOutboundHttp.send', () => {
  it('returns status, lower-cased headers and the body, for GET and POST', async () => {
    const got = await nodeOutboundHttp.send({ ...base, method: 'GET', url: `${server.url}/thing` });
    expect(got).toMatchObject({
      ok: true,
      status: 201,
      truncated: false,
      headers: { 'content-type': 'application/json', 'x-request-id': 'abc' },
    });
    expect(got.ok && JSON.parse(got.body)).toEqual({ method: 'GET', body: '' });
    const posted = await nodeOutboundHttp.send({
      ...base,
      method: 'POST',
      url: `${server.url}/thing`,
      body: '{"a":1}',
    });
    expect(posted.ok && JSON.parse(posted.body)).toEqual({ method: 'POST', body: '{"a":1}' });
    expect(seen.at(-1)?.headers['x-test']).toBe('1');
  });

  it('keeps at most maxResponseBytes of the body and says it cut the rest', async () => {
    const got = await nodeOutboundHttp.send({
      ...base,
      method: 'GET',
      url: `${server.url}/big`,
      maxResponseBytes: 1_000,
    });
    expect(got).toMatchObject({ ok: true, status: 200, truncated: true });
    expect(got.ok && got.body.length).toBe(1_000);
  });

  it('times out, and refuses private and (unless allowed) loopback addresses before connecting', async () => {
    expect(
      await nodeOutboundHttp.send({ ...base, method: 'GET', url: `${server.url}/slow`, timeoutMs: 200 }),
    ).toMatchObject({ ok: false, error: 'timeout' });
    expect(await nodeOutboundHttp.send({ ...base, method: 'GET', url: 'http://10.0.0.1/x' })).toMatchObject({
      ok: false,
      error: 'blocked_address',
    });
    expect(
      await nodeOutboundHttp.send({ ...base, method: 'GET', url: `${server.url}/thing`, allowLoopback: false }),
    ).toMatchObject({ ok: false, error: 'blocked_address' });
    const port = new URL(server.url).port;
    expect(
      await nodeOutboundHttp.send({
        ...base,
        method: 'GET',
        url: `http://localhost:${port}/thing`,
        allowLoopback: false,
      }),
    ).toMatchObject({ ok: false, error: 'blocked_address' });
  });
});
