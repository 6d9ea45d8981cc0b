import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOutboundHttp } from '../../platform/net/node-http.js';
import type { OutboundHttp } from '../../platform/net/port.js';
import { checkWebhookUrlSyntax } from '../../platform/net/webhook-url.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/** What the fake DNS answers; any other name does not resolve. */
const DNS: Record<string, string[]> = {
  'public.example.com': ['93.184.216.34'],
  'public-v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
  'v6only.example.com': ['fd12::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'loop.example.com': ['127.0.0.1'],
  'meta.example.com': ['169.254.169.254'],
  'cgnat.example.com': ['100.64.12.34'],
  'empty.example.com': [],
};
const resolved: string[] = [];

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ env: { ALLOW_LOOPBACK_WEBHOOKS: '0' } });
  const outbound: OutboundHttp = {
    ...nodeOutboundHttp,
    resolveHost: async (host) => {
      resolved.push(host);
      const answer = DNS[host];
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return answer;
    },
  };
  h.services.outbound = outbound;
  ws = await h.seedWorkspace();
});
afterAll(async () => h?.close());

/** [url, the refusal reason] */
const REFUSED: Array<[string, string]> = [
  // loopback, in every spelling
  ['https://127.0.0.1/', 'loopback'],
  ['http://127.0.0.1:8080/hook', 'loopback'],
  ['https://127.1/', 'loopback'],
  ['https://2130706433/', 'loopback'],
  ['https://0x7f000001/', 'loopback'],
  ['https://017700000001/', 'loopback'],
  ['https://0177.0.0.1/', 'loopback'],
  ['https://127.0.0.1./', 'loopback'],
  ['https://127.255.255.254/', 'loopback'],
  ['https://[::1]/', 'loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', 'loopback'],
  ['https://localhost/', 'loopback'],
  ['https://LOCALHOST./', 'loopback'],
  ['https://foo.localhost/', 'loopback'],
  // unspecified
  ['https://0.0.0.0/', 'unspecified'],
  ['https://0/', 'unspecified'],
  ['https://[::]/', 'unspecified'],
  // RFC 1918, with the 172.16/12 edges
  ['https://10.0.0.1/', 'private'],
  ['https://10.255.255.255/', 'private'],
  ['https://172.16.0.1/', 'private'],
  ['https://172.31.255.255/', 'private'],
  ['https://192.168.0.1/', 'private'],
  ['https://192.168.255.255/', 'private'],
  // link-local and cloud metadata
  ['https://169.254.169.254/latest/meta-data/', 'linkLocal'],
  ['https://169.254.0.1/', 'linkLocal'],
  ['https://metadata.google.internal/computeMetadata/v1/', 'metadata'],
  ['https://metadata/', 'metadata'],
  ['https://168.63.129.16/', 'metadata'],
  ['https://100.100.100.200/', 'metadata'],
  ['https://[fd00:ec2::254]/', 'uniqueLocal'],
  // CGNAT
  ['https://100.64.0.1/', 'carrierGradeNat'],
  ['https://100.127.255.254/', 'carrierGradeNat'],
  // unique-local and link-local IPv6
  ['https://[fd00::1]/', 'uniqueLocal'],
  ['https://[fc00::1]/', 'uniqueLocal'],
  ['https://[fe80::1]/', 'linkLocal'],
  // multicast and broadcast
  ['https://224.0.0.1/', 'multicast'],
  ['https://239.255.255.250/', 'multicast'],
  ['https://[ff02::1]/', 'multicast'],
  ['https://255.255.255.255/', 'broadcast'],
  // IPv4 inside IPv6
  ['https://[::ffff:127.0.0.1]/', 'ipv4Mapped'],
  ['https://[::ffff:10.0.0.1]/', 'ipv4Mapped'],
  ['https://[::ffff:169.254.169.254]/', 'ipv4Mapped'],
  ['https://[::127.0.0.1]/', 'ipv4Compatible'],
  ['https://[64:ff9b::7f00:1]/', 'rfc6052'],
  ['https://[2002:7f00:1::]/', '6to4'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'teredo'],
  // reserved and documentation ranges
  ['https://192.0.2.1/', 'reserved'],
  ['https://198.18.0.1/', 'reserved'],
  ['https://198.51.100.7/', 'reserved'],
  ['https://203.0.113.9/', 'reserved'],
  ['https://240.0.0.1/', 'reserved'],
  ['https://[2001:db8::1]/', 'reserved'],
  // credentials and schemes
  ['https://user:pass@public.example.com/', 'credentials'],
  ['https://user@public.example.com/', 'credentials'],
  ['ftp://public.example.com/', 'scheme'],
  ['file:///etc/passwd', 'scheme'],
  ['javascript:alert(1)', 'scheme'],
  ['gopher://public.example.com:70/_GET', 'scheme'],
  ['data:text/plain,hi', 'scheme'],
  ['/relative/path', 'malformed'],
  // plain http to a public address, in every environment (this harness is APP_ENV=test)
  ['http://public.example.com/plain-http', 'scheme'],
  ['http://93.184.216.34/hook', 'scheme'],
  // hostnames that resolve to forbidden addresses
  ['https://internal.example.com/hook', 'private'],
  ['https://mixed.example.com/hook', 'private'],
  ['https://v6only.example.com/hook', 'uniqueLocal'],
  ['https://mapped.example.com/hook', 'ipv4Mapped'],
  ['https://loop.example.com/hook', 'loopback'],
  ['https://meta.example.com/hook', 'linkLocal'],
  ['https://cgnat.example.com/hook', 'carrierGradeNat'],
  ['https://nxdomain.example.com/hook', 'unresolvable'],
  ['https://empty.example.com/hook', 'unresolvable'],
];

const ACCEPTED = [
  'https://public.example.com/hook',
  'https://public-v6.example.com/hook',
  'https://93.184.216.34/',
  'https://[2606:2800:220:1:248:1893:25c8:1946]/',
  'https://172.15.255.255/',
  'https://172.32.0.1/',
  'https://100.63.255.255/',
];

const expectRefused = (res: { status: number; body: any; text: string }, url: string, reason: string) => {
  expect(res.status, `${url}: ${res.text}`).toBe(400);
  expect(res.body.error.code, url).toBe('invalid_argument');
  expect(res.body.error.details.fields, url).toEqual([expect.objectContaining({ field: 'url' })]);
  expect(res.body.error.details.reason, url).toBe(reason);
};

describe('SSRF: webhook urls are refused at registration', () => {
  it(`refuses ${REFUSED.length} forbidden urls with 400 invalid_argument naming url`, async () => {
    expect(new Set(REFUSED.map(([url]) => url)).size).toBe(REFUSED.length);
    expect(REFUSED.length).toBeGreaterThanOrEqual(30);
    for (const [url, reason] of REFUSED) {
      const res = await h.request('POST', '/webhooks', {
        key: ws.admin.key,
        body: { url, events: ['session.completed'] },
      });
      expectRefused(res, url, reason);
    }
    expect((await h.request('GET', '/webhooks', { key: ws.admin.key })).body.data.total).toBe(0);
    // Names resolved only where needed: IP literals, loopback and metadata names never reach DNS.
    expect(resolved).not.toContain('localhost');
    expect(resolved).not.toContain('metadata.google.internal');
    expect(resolved).toContain('mixed.example.com');
  });

  it('accepts public destinations (201)', async () => {
    for (const url of ACCEPTED) {
      const res = await h.request('POST', '/webhooks', {
        key: ws.admin.key,
        body: { url, events: ['artifact.created'] },
      });
      expect(res.status, `${url}: ${res.text}`).toBe(201);
      expect(res.body.data.url).toBe(new URL(url).toString());
    }
  });

  it('refuses a forbidden url on PATCH the same way and leaves the webhook unchanged', async () => {
    const created = await h.request('POST', '/webhooks', {
      key: ws.admin.key,
      body: { url: 'https://public.example.com/patch-me', events: ['session.completed'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    for (const [url, reason] of [
      ['https://10.0.0.1/', 'private'],
      ['https://[::ffff:127.0.0.1]/', 'ipv4Mapped'],
      ['https://169.254.169.254/', 'linkLocal'],
      ['https://localhost/', 'loopback'],
      ['https://internal.example.com/', 'private'],
      ['https://mixed.example.com/', 'private'],
      ['https://nxdomain.example.com/', 'unresolvable'],
      ['file:///etc/passwd', 'scheme'],
      ['https://user:pw@public.example.com/', 'credentials'],
    ] as const) {
      const res = await h.request('PATCH', `/webhooks/${id}`, { key: ws.admin.key, body: { url, active: false } });
      expectRefused(res, url, reason);
    }
    const after = await h.request('GET', `/webhooks/${id}`, { key: ws.admin.key });
    expect(after.body.data).toMatchObject({ url: 'https://public.example.com/patch-me', active: true });
    const ok = await h.request('PATCH', `/webhooks/${id}`, {
      key: ws.admin.key,
      body: { url: 'https://public-v6.example.com/moved' },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.url).toBe('https://public-v6.example.com/moved');
  });
});

describe('the url policy, unit level', () => {
  it('requires https, except to loopback when loopback is explicitly allowed', () => {
    const production = { allowLoopback: false };
    expect(() => checkWebhookUrlSyntax('http://93.184.216.34/', production)).toThrow(
      expect.objectContaining({ code: 'invalid_argument', details: expect.objectContaining({ reason: 'scheme' }) }),
    );
    expect(checkWebhookUrlSyntax('https://93.184.216.34/', production).toString()).toBe('https://93.184.216.34/');
    expect(() => checkWebhookUrlSyntax('https://127.0.0.1/', production)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );

    const localDev = { allowLoopback: true };
    expect(checkWebhookUrlSyntax('http://127.0.0.1:8080/', localDev).toString()).toBe('http://127.0.0.1:8080/');
    expect(checkWebhookUrlSyntax('http://localhost:8080/', localDev).toString()).toBe('http://localhost:8080/');
    expect(() => checkWebhookUrlSyntax('http://93.184.216.34/', localDev)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    // Allowing loopback allows nothing else private.
    expect(() => checkWebhookUrlSyntax('https://10.0.0.1/', localDev)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => checkWebhookUrlSyntax('https://[::ffff:127.0.0.1]/', localDev)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => checkWebhookUrlSyntax(`https://example.com/${'a'.repeat(2100)}`, localDev)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('blocks a forbidden IP literal at send time too (the outbound port itself)', async () => {
    for (const url of ['http://127.0.0.1:9/', 'http://10.0.0.1/', 'http://[::1]:9/', 'http://169.254.169.254/']) {
      const result = await nodeOutboundHttp.send({
        method: 'POST',
        url,
        headers: {},
        body: '{}',
        timeoutMs: 1_000,
        allowLoopback: false,
      });
      expect(result, url).toMatchObject({ ok: false, error: 'blocked_address' });
    }
  });
});
