import { parse, protocol, type PGlite, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { setImmediate } from 'node:timers';
import { decodeResults, parseMessages, type BackendMessage, type ResultField } from './pglite-results.js';

/**
 * Named prepared statements on PGlite, as they are on Neon's pool: a query the code prepares with a
 * name (drizzle's `.prepare(name)`) is parsed and described once, and each call after that only
 * binds and executes it, in one exchange with the database instead of PGlite's five. Postgres then
 * treats it as any named statement: custom plans for the first executions, a generic plan once it
 * is no worse, re-planned when the tables change. Unnamed queries keep PGlite's own path.
 *
 * Why here: PGlite's `query` parses, describes and plans every statement anew (a two-table read
 * costs ~250 µs, ~50 µs of it executing), and its driver in drizzle drops the statement's name.
 *
 * Outside a transaction, when nobody holds or awaits the database, an execution skips PGlite's two
 * locks and runs at the end of the event loop's turn together with the others asked for in that
 * turn (concurrent requests' reads), back to back: measured under load, a key lookup run between
 * requests' other work cost ~100 µs of CPU, against ~25 µs when its code and memory were still in
 * the caches from the previous one (bench/http.ts: setup/status ~4,500 -> ~9,000 req/s).
 */
/** What PGlite's serializers return: text, or bytes for a binary parameter. */
type BindValues = NonNullable<Parameters<typeof protocol.serialize.bind>[0]>['values'];
type RowDescription = InstanceType<typeof protocol.messages.RowDescriptionMessage>;
type ParameterDescription = InstanceType<typeof protocol.messages.ParameterDescriptionMessage>;

interface Prepared {
  /** The name in PGlite's session (the code's names are not guaranteed unique across texts). */
  name: string;
  paramTypes: number[];
  /** The statement's result shape, or null when it returns no rows (an insert without returning). */
  rowDescription: RowDescription | null;
  /** The same shape, as a result names its fields. */
  fields: ResultField[] | null;
}

/** Execute (unnamed portal, all rows) then Sync: the same bytes for every call. */
const EXECUTE_SYNC = concat([protocol.serialize.execute({}), protocol.serialize.sync()]);

/** ReadyForQuery ('Z', length 5, status): the last six bytes of every exchange ending in Sync. */
const READY_FOR_QUERY = 0x5a;

/** Postgres: a cached plan whose result type changed (a table altered under a `select *`). */
const RESULT_TYPE_CHANGED = '0A000';

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const utf8 = new TextEncoder();
const ASCII = /^[\x00-\x7f]*$/;

/** A string's UTF-8 bytes; ASCII (ids, codes, dates: nearly every parameter) stays a string, copied byte by byte. */
const utf8Of = (value: string): string | Uint8Array => (ASCII.test(value) ? value : utf8.encode(value));

function put(out: Uint8Array, at: number, bytes: string | Uint8Array): number {
  if (typeof bytes !== 'string') {
    out.set(bytes, at);
    return at + bytes.length;
  }
  for (let i = 0; i < bytes.length; i++) out[at + i] = bytes.charCodeAt(i);
  return at + bytes.length;
}

/**
 * A Bind message for text parameters (protocol: 'B', length, portal, statement, a text format code
 * per parameter, the values, no result format codes so all text), followed by `then` (the Execute
 * and Sync) in the same buffer. PGlite's general serializer takes ~12 µs for three short strings
 * here, as much as Postgres takes to run a key lookup; this ~1 µs, without a call into the runtime's
 * encoder for ASCII. A binary parameter (a typed array) goes to PGlite's serializer, which sets its format code.
 */
export function bindText(
  statement: string,
  values: readonly (string | null)[],
  then: Uint8Array = new Uint8Array(0),
): Uint8Array {
  const name = utf8Of(statement);
  const encoded = values.map((v) => (v === null ? null : utf8Of(v)));
  const length =
    4 + 1 + name.length + 1 + 2 + 2 * encoded.length + 2 + encoded.reduce((n, v) => n + 4 + (v?.length ?? 0), 0) + 2;
  const out = new Uint8Array(1 + length + then.length);
  const view = new DataView(out.buffer);
  let at = 0;
  out[at++] = 0x42; // 'B'
  view.setInt32(at, length);
  at += 4;
  out[at++] = 0; // unnamed portal
  at = put(out, at, name);
  out[at++] = 0;
  // One format code per parameter, each text (0): as PGlite writes it.
  view.setInt16(at, encoded.length);
  at += 2 + 2 * encoded.length;
  view.setInt16(at, encoded.length);
  at += 2;
  for (const v of encoded) {
    view.setInt32(at, v === null ? -1 : v.length);
    at += 4;
    if (v !== null) at = put(out, at, v);
  }
  view.setInt16(at, 0);
  out.set(then, at + 2);
  return out;
}

/** PGlite's own decoration of a statement's error, so a caller reads the same error either way. */
function withQuery(
  error: unknown,
  query: string,
  params: readonly unknown[],
  options: QueryOptions | undefined,
): unknown {
  if (error instanceof protocol.messages.DatabaseError) Object.assign(error, { query, params, queryOptions: options });
  return error;
}

/** What a synchronous execution asks of its caller: parse the statement again (its table changed). */
const PARSE_AGAIN = Symbol('parse again');

/** An execution PGlite did not answer synchronously: its failure, to hand to the caller. */
class Unanswered {
  constructor(readonly failure: Promise<never>) {}
}

export class NamedStatements {
  /** Statement texts the code prepared with a name, and their PGlite statements once parsed. */
  readonly #named = new Map<string, Prepared | null>();
  #count = 0;
  /** Calls holding or waiting for either of PGlite's locks (its transaction lock and its query lock). */
  #waiting = 0;
  /** Executions waiting for the end of this turn of the event loop (see query). */
  #turn: {
    text: string;
    params: readonly unknown[];
    options: QueryOptions | undefined;
    resolve: (result: Results | Promise<Results>) => void;
    reject: (error: unknown) => void;
  }[] = [];
  /** The output of the execution in progress, copied out of PGlite's memory as it is written. */
  #chunks: Uint8Array[] | null = null;
  readonly #rawOptions = { syncToFs: false, onRawData: (chunk: Uint8Array) => this.#chunks?.push(chunk.slice()) };

  constructor(private readonly client: PGlite) {
    // Every PGlite operation takes its locks through these two methods on the client (query, exec,
    // transaction, describe, listen), so counting their calls tells when nobody holds or awaits the database.
    for (const lock of ['_runExclusiveTransaction', '_runExclusiveQuery'] as const) {
      const take = client[lock].bind(client);
      client[lock] = <T>(fn: () => Promise<T>): Promise<T> => {
        this.#waiting++;
        return take(fn).finally(() => this.#waiting--);
      };
    }
  }

  /** Called when the code prepares `text` under a name: its next executions go through a named statement. */
  register(text: string): void {
    if (!this.#named.has(text)) this.#named.set(text, null);
  }

  has(text: string): boolean {
    return this.#named.has(text);
  }

  /** Outside a transaction: waits for any transaction, like PGlite's own `query`. */
  query(text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results> {
    if (this.#named.get(text) && this.#waiting === 0 && !this.client.closed) {
      // Nobody holds or awaits the database and a bound execution runs synchronously in PGlite, so
      // it need not queue on two idle locks (which cost more than executing a key lookup). It runs
      // at the end of this turn of the event loop, with every other one asked for in the same turn,
      // back to back: the database's code and memory stay in the CPU's caches from one to the next,
      // where between requests' other work a lookup costs several times as much.
      return new Promise<Results>((resolve, reject) => {
        if (this.#turn.push({ text, params, options, resolve, reject }) === 1) setImmediate(this.#runTurn);
      });
    }
    return this.#locked(text, params, options);
  }

  /** The executions asked for in this turn, run back to back; any that cannot run now take the locks. */
  readonly #runTurn = (): void => {
    const turn = this.#turn;
    this.#turn = [];
    for (const { text, params, options, resolve, reject } of turn) {
      const prepared = this.#named.get(text);
      if (!prepared || this.#waiting !== 0 || this.client.closed) {
        resolve(this.#locked(text, params, options));
        continue;
      }
      try {
        const result = this.#execute(prepared, text, params, options);
        if (result instanceof Unanswered) resolve(result.failure);
        // Parsing again takes the locks: the locked path executes it once more, closes it, parses it.
        else if (result === PARSE_AGAIN) resolve(this.#locked(text, params, options));
        // A read leaves nothing for the file system to persist; anything else is synced as PGlite syncs it.
        else resolve(result.command === 'SELECT' ? result : this.client.syncToFs().then(() => result));
      } catch (error) {
        reject(error);
      }
    }
  };

  /** The way PGlite runs a query: after any transaction, holding the database. */
  #locked(text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results> {
    return this.client._runExclusiveTransaction(() =>
      this.client._runExclusiveQuery(async () => {
        const result = await this.#run(text, params, options);
        await this.client.syncToFs();
        return result;
      }),
    );
  }

  /** Inside a transaction, which already holds the database. */
  queryIn(
    tx: Transaction,
    text: string,
    params: readonly unknown[],
    options: QueryOptions | undefined,
  ): Promise<Results> {
    if (tx.closed) return Promise.reject(new Error('Transaction is closed'));
    return this.client._runExclusiveQuery(() => this.#run(text, params, options));
  }

  /** Holding the database: parse the statement if it is new (or changed), then execute it. */
  async #run(text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results> {
    const prepared = this.#named.get(text) ?? (await this.#prepare(text, params, options));
    const result = this.#execute(prepared, text, params, options);
    if (result instanceof Unanswered) return result.failure;
    if (result !== PARSE_AGAIN) return result;
    await this.#close(prepared);
    this.#named.set(text, null);
    return this.#run(text, params, options);
  }

  /**
   * Bind and execute a parsed statement, synchronously (the caller holds the database, or nobody
   * else can reach it). PARSE_AGAIN when its table changed under it (`cached plan must not change result type`).
   */
  #execute(
    prepared: Prepared,
    text: string,
    params: readonly unknown[],
    options: QueryOptions | undefined,
  ): Results | typeof PARSE_AGAIN | Unanswered {
    const values: unknown[] = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.client.serializers[prepared.paramTypes[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const { serialize } = protocol;
    const message = values.every((v): v is string | null => v === null || typeof v === 'string')
      ? bindText(prepared.name, values, EXECUTE_SYNC)
      : concat([serialize.bind({ statement: prepared.name, values: values as BindValues }), EXECUTE_SYNC]);
    // Raw bytes, not PGlite's message objects: rows are read straight off the wire (pglite-results.ts).
    // No NOTIFY reaches PGlite's listeners this way; nothing here listens. The call's body runs before
    // its promise settles (PGlite executes synchronously); the check below fails loudly if that changes.
    const chunks: Uint8Array[] = [];
    this.#chunks = chunks;
    const execution = this.client.execProtocolRawStream(message, this.#rawOptions);
    this.#chunks = null;
    const bytes = chunks.length === 1 ? (chunks[0] as Uint8Array) : concat(chunks);
    if (bytes.length < 6 || bytes[bytes.length - 6] !== READY_FOR_QUERY) {
      // PGlite failed (its promise says why), or no longer answers synchronously.
      return new Unanswered(
        execution.then(() =>
          Promise.reject(
            new Error(
              'PGlite did not answer a bound execution synchronously; NamedStatements needs revisiting for this PGlite version',
            ),
          ),
        ),
      );
    }
    const decoded = decodeResults(bytes, prepared.fields, this.client.parsers, options?.rowMode);
    if (decoded) return decoded;
    const messages = parseMessages(bytes);
    const error = messages.find(
      (m): m is InstanceType<typeof protocol.messages.DatabaseError> => m instanceof protocol.messages.DatabaseError,
    );
    if (error) {
      if (error.code === RESULT_TYPE_CHANGED) return PARSE_AGAIN;
      throw withQuery(error, text, params, options);
    }
    const [result] = parse.parseResults(
      prepared.rowDescription ? [prepared.rowDescription, ...messages] : messages,
      this.client.parsers,
      options,
    );
    return result ?? { rows: [], fields: [], affectedRows: 0 };
  }

  async #prepare(text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Prepared> {
    const name = `named_${++this.#count}`;
    const { serialize } = protocol;
    let messages: BackendMessage[];
    try {
      messages = await this.client.execProtocolStream(
        concat([serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()]),
        { syncToFs: false },
      );
    } catch (error) {
      throw withQuery(error, text, params, options);
    }
    const described = messages.find((m): m is ParameterDescription => m.name === 'parameterDescription');
    const rows = messages.find((m): m is RowDescription => m.name === 'rowDescription');
    const fields = rows ? rows.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) : null;
    const prepared: Prepared = { name, paramTypes: described?.dataTypeIDs ?? [], rowDescription: rows ?? null, fields };
    this.#named.set(text, prepared);
    return prepared;
  }

  async #close(prepared: Prepared): Promise<void> {
    const { serialize } = protocol;
    await this.client.execProtocolStream(
      concat([serialize.close({ type: 'S', name: prepared.name }), serialize.sync()]),
      { syncToFs: false },
    );
  }
}
