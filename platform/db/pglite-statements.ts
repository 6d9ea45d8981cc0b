import { parse, protocol, type PGlite, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';

/**
 * Named prepared statements on PGlite, as they are on Neon's pool: a query the code prepares with a
 * name (drizzle's `.prepare(name)`) is parsed and described once, and each call after that only
 * binds and executes it, in one exchange with the database instead of PGlite's five. Postgres then
 * treats it as any named statement: custom plans for the first executions, a generic plan once it
 * is no worse, re-planned when the tables change. Unnamed queries keep PGlite's own path.
 *
 * Why here: PGlite's `query` parses, describes and plans every statement anew (a two-table read
 * costs ~250 µs, ~50 µs of it executing), and its driver in drizzle drops the statement's name.
 */
type BackendMessages = Awaited<ReturnType<PGlite['execProtocolStream']>>;
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
}

/** Execute (unnamed portal, all rows) then Sync: the same bytes for every call. */
const EXECUTE_SYNC = concat([protocol.serialize.execute({}), protocol.serialize.sync()]);

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

/**
 * A Bind message for text parameters (protocol: 'B', length, portal, statement, a text format code
 * per parameter, the values, no result format codes so all text). PGlite's general serializer takes
 * ~12 µs for three short strings here, as much as Postgres takes to run a key lookup; this ~1 µs.
 * A binary parameter (a typed array) goes to PGlite's serializer, which sets its format code.
 */
export function bindText(statement: string, values: readonly (string | null)[]): Uint8Array {
  const name = utf8.encode(statement);
  const encoded = values.map((v) => (v === null ? null : utf8.encode(v)));
  const length = 4 + 1 + name.length + 1 + 2 + 2 * encoded.length + 2 + encoded.reduce((n, v) => n + 4 + (v?.length ?? 0), 0) + 2;
  const out = new Uint8Array(1 + length);
  const view = new DataView(out.buffer);
  let at = 0;
  out[at++] = 0x42; // 'B'
  view.setInt32(at, length);
  at += 4;
  out[at++] = 0; // unnamed portal
  out.set(name, at);
  at += name.length;
  out[at++] = 0;
  // One format code per parameter, each text (0): as PGlite writes it.
  view.setInt16(at, encoded.length);
  at += 2 + 2 * encoded.length;
  view.setInt16(at, encoded.length);
  at += 2;
  for (const v of encoded) {
    view.setInt32(at, v === null ? -1 : v.length);
    at += 4;
    if (v) {
      out.set(v, at);
      at += v.length;
    }
  }
  view.setInt16(at, 0);
  return out;
}

/** PGlite's own decoration of a statement's error, so a caller reads the same error either way. */
function withQuery(error: unknown, query: string, params: readonly unknown[], options: QueryOptions | undefined): unknown {
  if (error instanceof protocol.messages.DatabaseError) Object.assign(error, { query, params, queryOptions: options });
  return error;
}

export class NamedStatements {
  /** Statement texts the code prepared with a name, and their PGlite statements once parsed. */
  readonly #named = new Map<string, Prepared | null>();
  #count = 0;

  constructor(private readonly client: PGlite) {}

  /** Called when the code prepares `text` under a name: its next executions go through a named statement. */
  register(text: string): void {
    if (!this.#named.has(text)) this.#named.set(text, null);
  }

  has(text: string): boolean {
    return this.#named.has(text);
  }

  /** Outside a transaction: waits for any transaction, like PGlite's own `query`. */
  query(text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results> {
    return this.client._runExclusiveTransaction(() =>
      this.client._runExclusiveQuery(async () => {
        const result = await this.#run(text, params, options);
        await this.client.syncToFs();
        return result;
      }),
    );
  }

  /** Inside a transaction, which already holds the database. */
  queryIn(tx: Transaction, text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results> {
    if (tx.closed) return Promise.reject(new Error('Transaction is closed'));
    return this.client._runExclusiveQuery(() => this.#run(text, params, options));
  }

  async #run(text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results> {
    const prepared = this.#named.get(text) ?? (await this.#prepare(text, params, options));
    const values: unknown[] = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.client.serializers[prepared.paramTypes[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const { serialize } = protocol;
    const bind = values.every((v): v is string | null => v === null || typeof v === 'string')
      ? bindText(prepared.name, values)
      : serialize.bind({ statement: prepared.name, values: values as BindValues });
    let messages: BackendMessages;
    try {
      messages = await this.client.execProtocolStream(concat([bind, EXECUTE_SYNC]), { syncToFs: false });
    } catch (error) {
      if (error instanceof protocol.messages.DatabaseError && error.code === RESULT_TYPE_CHANGED) {
        // Parsed again against the table as it is now.
        await this.#close(prepared);
        this.#named.set(text, null);
        return this.#run(text, params, options);
      }
      throw withQuery(error, text, params, options);
    }
    const [result] = parse.parseResults(prepared.rowDescription ? [prepared.rowDescription, ...messages] : messages, this.client.parsers, options);
    return result ?? { rows: [], fields: [], affectedRows: 0 };
  }

  async #prepare(text: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Prepared> {
    const name = `named_${++this.#count}`;
    const { serialize } = protocol;
    let messages: BackendMessages;
    try {
      messages = await this.client.execProtocolStream(concat([serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()]), { syncToFs: false });
    } catch (error) {
      throw withQuery(error, text, params, options);
    }
    const described = messages.find((m): m is ParameterDescription => m.name === 'parameterDescription');
    const rows = messages.find((m): m is RowDescription => m.name === 'rowDescription');
    const prepared: Prepared = { name, paramTypes: described?.dataTypeIDs ?? [], rowDescription: rows ?? null };
    this.#named.set(text, prepared);
    return prepared;
  }

  async #close(prepared: Prepared): Promise<void> {
    const { serialize } = protocol;
    await this.client.execProtocolStream(concat([serialize.close({ type: 'S', name: prepared.name }), serialize.sync()]), { syncToFs: false });
  }
}
