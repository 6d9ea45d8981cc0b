import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a fake server saw it, its body read whole. */
export interface FakeRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  /** Stops listening and drops open connections (a handler that never answers included). */
  close(): Promise<void>;
}

/**
 * A stand-in for a remote HTTP service on 127.0.0.1 (tests never call the internet): reads each
 * request's whole body, then hands it to `handle`, which writes the response (or never does).
 */
export async function startFakeServer(handle: (req: FakeRequest, res: ServerResponse) => void): Promise<FakeServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      handle(
        {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        },
        res,
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
