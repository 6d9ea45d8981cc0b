import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { sleep } from './http-util.js';

/**
 * The project's own wrangler.toml under `wrangler dev --local --test-scheduled`: the real bundle in
 * workerd, with the stack's addresses and secrets injected as `--var`s (they override [vars]).
 */
export interface WranglerDev {
  readonly url: string;
  /** Everything wrangler and the worker printed, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export async function startWranglerDev(options: {
  root: string;
  port: number;
  vars: Record<string, string>;
  persistTo: string;
  /** Print wrangler's output as it comes (npm run start:edge) instead of only keeping it. */
  echo?: boolean;
  readyTimeoutMs?: number;
}): Promise<WranglerDev> {
  const args = [
    'dev',
    '--local',
    '--test-scheduled',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--persist-to',
    options.persistTo,
    '--show-interactive-dev-session=false',
    ...Object.entries(options.vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
  ];
  const child: ChildProcess = spawn(join(options.root, 'node_modules/.bin/wrangler'), args, {
    cwd: options.root,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stopping it stops workerd too.
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-200_000);
    if (options.echo) process.stderr.write(text);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  // Whatever way this process ends (a signal while starting included), workerd must not outlive it.
  const killOnExit = () => {
    if (!exited && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }
  };
  process.on('exit', killOnExit);
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      process.off('exit', killOnExit);
      resolve();
    }),
  );

  const stop = async () => {
    if (exited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const stopped = await Promise.race([exit.then(() => true), sleep(5000).then(() => false)]);
    if (!stopped) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      await exit;
    }
  };

  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  // Ready when the worker itself answers (a route that reads no data).
  while (true) {
    if (exited) throw new Error(`wrangler dev exited before it was ready:\n${output}`);
    try {
      const response = await fetch(`${url}/api/platform/v1/openapi.json`, { method: 'HEAD' });
      await response.arrayBuffer();
      if (response.status < 500) break;
    } catch {}
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev was not ready in time:\n${output}`);
    }
    await sleep(250);
  }
  return { url, output: () => output, stop };
}
