import { lookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isIpLiteral } from './address-policy.js';
import {
  BoundedBody,
  DEFAULT_MAX_RESPONSE_BYTES,
  type OutboundHttp,
  type OutboundRequest,
  type OutboundResult,
} from './port.js';

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

  send: (req: OutboundRequest) =>
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
          if ((options as { all?: boolean }).all)
            return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
          const first = list[0];
          return first ? callback(null, first.address, first.family) : callback(new Error('no address'), '', 0);
        });
      };
      // Node skips `lookup` for an IP literal, so the guard above never sees it: check it here.
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      if (isIpLiteral(literal) && !classifyAddress(literal, { allowLoopback: req.allowLoopback }).allowed) {
        return done({
          ok: false,
          error: 'blocked_address',
          detail: `${literal} is a forbidden address`,
          durationMs: Date.now() - started,
        });
      }
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const signal = AbortSignal.timeout(req.timeoutMs);
      const request = send(
        url,
        {
          method: req.method,
          headers: {
            ...req.headers,
            ...(req.body !== undefined ? { 'content-length': Buffer.byteLength(req.body).toString() } : {}),
          },
          lookup: guardedLookup,
          signal,
        },
        (response) => {
          const body = new BoundedBody(req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers))
            if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
          const finish = () =>
            done({
              ok: true,
              status: response.statusCode ?? 0,
              headers,
              body: body.text(),
              truncated: body.truncated,
              durationMs: Date.now() - started,
            });
          response.on('data', (chunk: Buffer) => {
            // Past the budget: stop reading and free the socket; what was kept is the answer.
            if (!body.add(chunk)) {
              response.destroy();
              finish();
            }
          });
          response.on('end', finish);
          response.on('error', finish);
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        const durationMs = Date.now() - started;
        if (signal.aborted)
          return done({ ok: false, error: 'timeout', detail: `no response within ${req.timeoutMs} ms`, durationMs });
        if (error.code === 'EBLOCKED')
          return done({ ok: false, error: 'blocked_address', detail: error.message, durationMs });
        if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
          return done({ ok: false, error: 'dns_failed', detail: `cannot resolve ${url.hostname}`, durationMs });
        return done({ ok: false, error: 'connection_failed', detail: error.code ?? 'connection error', durationMs });
      });
      request.end(req.body);
    }),
};
