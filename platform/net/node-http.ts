import { lookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isIpLiteral } from './address-policy.js';
import type { OutboundHttp, OutboundRequest, OutboundResult } from './port.js';

/**
 * Node's outbound HTTP with the address policy applied inside DNS resolution, at connect time:
 * the address checked is the address connected to, so a DNS answer that changes between the
 * registration check and the delivery (rebinding) cannot reach a private address.
 */
export const nodeOutboundHttp: OutboundHttp = {
  resolveHost: (hostname) =>
    new Promise((resolve, reject) => {
      lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
        if (error) reject(error);
        else resolve(addresses.map((a) => a.address));
      });
    }),

  post: (req: OutboundRequest) =>
    new Promise<OutboundResult>((resolve) => {
      const started = Date.now();
      const done = (result: OutboundResult) => resolve(result);
      const url = new URL(req.url);
      const guardedLookup: LookupFunction = (hostname, options, callback) => {
        lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
          if (error) return callback(error, '', 0);
          const list = addresses as unknown as { address: string; family: number }[];
          const blocked = list.find((a) => !classifyAddress(a.address, { allowLoopback: req.allowLoopback }).allowed);
          if (blocked) {
            const err = Object.assign(new Error(`${hostname} resolves to a forbidden address`), { code: 'EBLOCKED' });
            return callback(err, '', 0);
          }
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
          const first = list[0];
          return first ? callback(null, first.address, first.family) : callback(new Error('no address'), '', 0);
        });
      };
      // Node skips `lookup` for an IP literal, so the guard above never sees it: check it here.
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      if (isIpLiteral(literal) && !classifyAddress(literal, { allowLoopback: req.allowLoopback }).allowed) {
        return done({ ok: false, error: 'blocked_address', detail: `${literal} is a forbidden address`, durationMs: Date.now() - started });
      }
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const signal = AbortSignal.timeout(req.timeoutMs);
      const request = send(
        url,
        {
          method: 'POST',
          headers: { ...req.headers, 'content-length': Buffer.byteLength(req.body).toString() },
          lookup: guardedLookup,
          signal,
        },
        (response) => {
          // The status is the answer; drain (a bounded amount of) the body so the socket is freed.
          response.resume();
          response.on('end', () => done({ ok: true, status: response.statusCode ?? 0, durationMs: Date.now() - started }));
          response.on('error', () => done({ ok: true, status: response.statusCode ?? 0, durationMs: Date.now() - started }));
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        const durationMs = Date.now() - started;
        if (signal.aborted) return done({ ok: false, error: 'timeout', detail: `no response within ${req.timeoutMs} ms`, durationMs });
        if (error.code === 'EBLOCKED') return done({ ok: false, error: 'blocked_address', detail: error.message, durationMs });
        if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return done({ ok: false, error: 'dns_failed', detail: `cannot resolve ${url.hostname}`, durationMs });
        return done({ ok: false, error: 'connection_failed', detail: error.code ?? 'connection error', durationMs });
      });
      request.end(req.body);
    }),
};
