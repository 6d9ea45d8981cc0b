import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client } from '@neondatabase/serverless';
import WebSocket from 'ws';
import { readBody, sendJson } from './http-util.js';

/**
 * Neon's SQL-over-HTTP endpoint (`POST /sql`, what `neon()` calls over fetch), served by the relay in
 * front of a Postgres wire server, so the worker's `http` transport (platform/db/neon.ts) runs in the
 * local stack as it does against Neon. The shape is the driver's (@neondatabase/serverless `neon()`):
 *
 *   request   headers Neon-Connection-String, Neon-Raw-Text-Output: true, Neon-Array-Mode: true, and
 *             for a batch Neon-Batch-Isolation-Level / -Read-Only / -Deferrable;
 *             body {query, params} or {queries: [{query, params}, ...]} (params already text or null)
 *   response  200 {command, rowCount, fields: [{name, dataTypeID, ...}], rows: [[text | null, ...]], rowAsArray}
 *             or {results: [that, ...]} for a batch (one transaction: all or nothing);
 *             400 {message, code, severity, detail, ...} when Postgres refuses (the driver's NeonDbError)
 *
 * One statement per query, as Neon's endpoint allows (several in one string are refused). Values are
 * returned as Postgres text: the driver parses them with its own type parsers, as it does Neon's.
 */
export interface SqlStatement {
  query: string;
  params?: unknown[];
}

interface PgField {
  name: string;
  tableID: number;
  columnID: number;
  dataTypeID: number;
  dataTypeSize: number;
  dataTypeModifier: number;
  format: string;
}

interface PgResult {
  command: string;
  rowCount: number | null;
  fields: PgField[];
  rows: unknown[][];
}

/** The error fields the driver copies from a 400 answer onto its NeonDbError. */
const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

const ISOLATION_LEVELS: Record<string, string> = {
  ReadUncommitted: 'read uncommitted',
  ReadCommitted: 'read committed',
  RepeatableRead: 'repeatable read',
  Serializable: 'serializable',
};

/** Every value as Postgres sent it (text), whatever its type. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

export class BadSqlRequest extends Error {}

/**
 * Postgres connections for the endpoint, reused between requests (like Neon's own pool behind it).
 * They reach the target through the relay's `/internal` WebSocket path: neither counted nor delayed,
 * since the endpoint's one round trip is already counted and delayed at the HTTP request.
 */
export class SqlOverHttpExecutor {
  readonly #idle: Client[] = [];
  readonly #all = new Set<Client>();

  constructor(private readonly internalWsProxy: string) {}

  async #connect(connectionString: string): Promise<Client> {
    const idle = this.#idle.pop();
    if (idle) return idle;
    const client = new Client({ connectionString });
    const config = client.neonConfig;
    config.webSocketConstructor = WebSocket as unknown as typeof globalThis.WebSocket;
    config.wsProxy = (host: string, port: number | string) => `${this.internalWsProxy}?address=${host}:${port}`;
    config.useSecureWebSocket = false;
    config.pipelineConnect = false;
    config.pipelineTLS = false;
    client.on('error', () => this.#discard(client));
    await client.connect();
    this.#all.add(client);
    return client;
  }

  #discard(client: Client): void {
    this.#all.delete(client);
    const at = this.#idle.indexOf(client);
    if (at >= 0) this.#idle.splice(at, 1);
    void client.end().catch(() => {});
  }

  async #run(client: Client, statement: SqlStatement): Promise<PgResult> {
    const params = statement.params ?? [];
    const result = (await client.query({
      text: statement.query,
      // Extended protocol even without parameters: one statement per query, as on Neon.
      values: params,
      rowMode: 'array',
      types: RAW_TEXT,
      ...(params.length === 0 ? { queryMode: 'extended' } : {}),
    } as unknown as Parameters<Client['query']>[0])) as unknown as PgResult | PgResult[];
    if (Array.isArray(result)) throw new BadSqlRequest('cannot insert multiple commands into a prepared statement');
    return result;
  }

  /** One statement, or a batch in one transaction. */
  async execute(
    connectionString: string,
    body: { query?: string; params?: unknown[]; queries?: SqlStatement[] },
    batch: { isolation?: string; readOnly?: boolean; deferrable?: boolean },
  ): Promise<unknown> {
    const client = await this.#connect(connectionString);
    let healthy = true;
    try {
      if (body.queries) {
        const mode = [
          batch.isolation ? `isolation level ${ISOLATION_LEVELS[batch.isolation] ?? 'read committed'}` : '',
          batch.readOnly ? 'read only' : '',
          batch.deferrable ? 'deferrable' : '',
        ]
          .filter(Boolean)
          .join(' ');
        await client.query(`begin ${mode}`);
        try {
          const results: unknown[] = [];
          for (const statement of body.queries) results.push(shape(await this.#run(client, statement)));
          await client.query('commit');
          return { results };
        } catch (error) {
          await client.query('rollback').catch(() => {
            healthy = false;
          });
          throw error;
        }
      }
      if (typeof body.query !== 'string') throw new BadSqlRequest('expected {query, params} or {queries}');
      return shape(await this.#run(client, { query: body.query, params: body.params ?? [] }));
    } catch (error) {
      // A Postgres refusal leaves the connection usable; anything else (the socket) does not.
      if (!isPostgresError(error) && !(error instanceof BadSqlRequest)) healthy = false;
      throw error;
    } finally {
      if (healthy) this.#idle.push(client);
      else this.#discard(client);
    }
  }

  async close(): Promise<void> {
    const clients = [...this.#all];
    this.#all.clear();
    this.#idle.length = 0;
    await Promise.allSettled(clients.map((c) => c.end()));
  }
}

const shape = (result: PgResult) => ({
  command: result.command,
  rowCount: result.rowCount,
  fields: result.fields.map((f) => ({
    name: f.name,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeID: f.dataTypeID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: f.format,
  })),
  rows: result.rows,
  rowAsArray: true,
});

function isPostgresError(error: unknown): error is Error & Record<string, unknown> {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && 'severity' in error;
}

/** How many statements a request body carries (a batch is one round trip of several). */
export function statementCount(body: { queries?: unknown[] }): number {
  return Array.isArray(body.queries) ? body.queries.length : 1;
}

/**
 * Answer one `POST …/sql`. `around` runs the execution between the request's and the response's
 * injected delays (the relay's one-way delay), so the request costs exactly one simulated round trip.
 */
export async function serveSqlOverHttp(
  req: IncomingMessage,
  res: ServerResponse,
  executor: SqlOverHttpExecutor,
  hooks: { onStatements: (count: number) => void; delay: () => Promise<void> },
): Promise<void> {
  if (req.method !== 'POST') return sendJson(res, 405, { message: 'POST only' });
  const connectionString = req.headers['neon-connection-string'];
  if (typeof connectionString !== 'string') return sendJson(res, 400, { message: 'Neon-Connection-String missing' });
  let body: { query?: string; params?: unknown[]; queries?: SqlStatement[] };
  try {
    body = JSON.parse((await readBody(req)).toString('utf8'));
  } catch {
    return sendJson(res, 400, { message: 'the body is not JSON' });
  }
  hooks.onStatements(statementCount(body));
  await hooks.delay();
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  let status = 200;
  let answer: unknown;
  try {
    answer = await executor.execute(connectionString, body, {
      ...(header('neon-batch-isolation-level') ? { isolation: header('neon-batch-isolation-level') } : {}),
      readOnly: header('neon-batch-read-only') === 'true',
      deferrable: header('neon-batch-deferrable') === 'true',
    });
  } catch (error) {
    status = isPostgresError(error) || error instanceof BadSqlRequest ? 400 : 500;
    const fields: Record<string, unknown> = { message: error instanceof Error ? error.message : String(error) };
    if (isPostgresError(error))
      for (const name of ERROR_FIELDS) if (error[name] !== undefined) fields[name] = error[name];
    answer = fields;
  }
  await hooks.delay();
  if (status === 500) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String((answer as { message: string }).message));
    return;
  }
  sendJson(res, status, answer);
}
