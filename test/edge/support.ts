import { inject } from 'vitest';
import WebSocket from 'ws';
import type { StackCounters } from '../../edge/control.js';
import { DEMO_ADMIN_EMAIL } from '../../functions/embedded/demo-bootstrap.js';
import { createApiKey } from '../../functions/identity/api-keys.js';
import { ensureUser } from '../../functions/identity/members.js';
import { localProxyOptions, openNeon, type NeonHandle } from '../../platform/db/neon.js';

/** What the global setup started (test/edge/global-setup.ts). */
export const edge = inject('edge');
export const API = `${edge.url}/api/platform/v1`;

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** A request to the worker as a client sends it (no redirects followed). */
export async function api(
  method: string,
  path: string,
  options: { key?: string; bearer?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path.startsWith('http') ? path : `${API}${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: response.status, headers: response.headers, text, body };
}

async function control<T>(method: string, path: string): Promise<T> {
  const response = await fetch(`${edge.controlUrl}${path}`, { method });
  if (!response.ok) throw new Error(`control ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export const resetCounters = () => control<StackCounters>('POST', '/reset');
export const counters = () => control<StackCounters>('GET', '/counters');

/** Wait until no delivery is pending and the worker holds no database connection. */
export async function settle(timeoutMs = 30_000): Promise<StackCounters> {
  const answer = await control<{ settled: boolean; counters: StackCounters }>(
    'POST',
    `/settle?timeout_ms=${timeoutMs}`,
  );
  if (!answer.settled)
    throw new Error(`the stack did not settle in ${timeoutMs} ms: ${JSON.stringify(answer.counters)}`);
  return answer.counters;
}

/**
 * Run `request` from zeroed counters: what the relay had seen when the response arrived (the
 * critical path, plus anything already begun after it) and once everything it set off is done.
 */
export async function measure<T>(
  request: () => Promise<T>,
): Promise<{ result: T; atResponse: StackCounters; total: StackCounters }> {
  await settle();
  await resetCounters();
  const result = await request();
  const atResponse = await counters();
  const total = await settle();
  return { result, atResponse, total };
}

let handle: NeonHandle | undefined;

/**
 * Independent SQL on the stack's database, through the relay's uncounted path (so checks do not
 * move the counts under test) with the Neon driver in Node.
 */
export async function sql<Row = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<Row[]> {
  handle ??= openNeon({
    connectionString: edge.databaseUrl,
    webSocketConstructor: WebSocket,
    ...localProxyOptions(edge.uncountedWsProxy),
  });
  const result = await handle.pool.query(text, params);
  return result.rows as Row[];
}

/** The Drizzle database on that same uncounted path, for set-up that needs the app's own writers. */
export function database(): NeonHandle['db'] {
  handle ??= openNeon({
    connectionString: edge.databaseUrl,
    webSocketConstructor: WebSocket,
    ...localProxyOptions(edge.uncountedWsProxy),
  });
  return handle.db;
}

export async function closeSql(): Promise<void> {
  await handle?.close();
  handle = undefined;
}

/** A new full-admin API key of the demo admin in the stack's workspace, made on the uncounted path. */
export async function newAdminKey(name: string): Promise<string> {
  const db = database();
  const userId = await ensureUser(db, DEMO_ADMIN_EMAIL);
  const { key } = await createApiKey(db, {
    workspaceId: edge.workspaceId,
    userId,
    name,
    bundle: 'full_admin',
    role: 'admin',
    expiresAt: null,
  });
  return key;
}
