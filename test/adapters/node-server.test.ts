import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_TIMEOUT_MS, type NodeServer, serveNode } from '../../platform/net/node-server.js';

/**
 * The embedded default's HTTP server (platform/net/node-server.ts) keeps the connections it accepts:
 * a kept-alive connection idle for longer than Node's default 5 s is still there for the client's
 * next request, and a graceful close lets a request in flight finish.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let served: NodeServer | null = null;
afterEach(async () => {
  await served?.close(0);
  served = null;
});

function get(port: number, agent: Agent, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveNode', () => {
  it('sets keep-alive, headers and request timeouts longer than a client keeps an idle connection', async () => {
    served = await serveNode({ fetch: () => new Response('ok'), hostname: '127.0.0.1', port: 0 });
    expect(served.server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(served.server.keepAliveTimeout).toBeGreaterThanOrEqual(60_000);
    expect(served.server.headersTimeout).toBeGreaterThan(served.server.keepAliveTimeout);
    expect(served.server.requestTimeout).toBeGreaterThanOrEqual(served.server.headersTimeout);
  });

  it('answers on the same connection after it sat idle for 6 s', async () => {
    served = await serveNode({ fetch: () => new Response('ok'), hostname: '127.0.0.1', port: 0 });
    let connections = 0;
    served.server.on('connection', () => {
      connections++;
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(served.port, agent)).toEqual({ status: 200, body: 'ok' });
      await sleep(6_000);
      expect(await get(served.port, agent)).toEqual({ status: 200, body: 'ok' });
      // With Node's default 5 s the server had closed the first connection and the client opened a second.
      expect(connections).toBe(1);
    } finally {
      agent.destroy();
    }
  }, 20_000);

  it('closes gracefully: a request in flight is answered, then no new connection is accepted', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let arrived: () => void = () => {};
    const inFlight = new Promise<void>((r) => {
      arrived = r;
    });
    served = await serveNode({
      fetch: async (req) => {
        if (new URL(req.url).pathname === '/slow') {
          arrived();
          await held;
        }
        return new Response('done');
      },
      hostname: '127.0.0.1',
      port: 0,
    });
    const { port } = served;
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await get(port, agent)).toEqual({ status: 200, body: 'done' }); // an idle kept-alive connection
      const slow = get(port, agent, '/slow');
      await inFlight;
      const closed = served.close(5_000);
      served = null;
      await sleep(50);
      release();
      expect(await slow).toEqual({ status: 200, body: 'done' });
      await closed;
      await expect(get(port, new Agent())).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      agent.destroy();
    }
  });
});
