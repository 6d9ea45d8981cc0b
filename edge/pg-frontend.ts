/**
 * Reads the Postgres frontend (client → server) byte stream message by message, so the relay can
 * count round trips and rewrite named prepared statements per connection.
 *
 * Why rewrite: pglite-socket runs every TCP connection in ONE PGlite session, so a statement named
 * `quota_read` prepared by one connection is still there when the next connection prepares it
 * (`42P05 prepared statement already exists`). Real Postgres gives each connection its own session;
 * prefixing the names per connection restores that.
 */

/** Protocol codes of the untyped messages a client may send before its startup message is done. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

export interface FrontendCounts {
  /** Sync and simple Query messages: each is one round trip to the server. */
  queries: number;
  /** Parse messages (statements prepared, named or not). */
  parses: number;
}

export interface RewriteResult {
  /** The bytes to forward, statement names rewritten. */
  out: Buffer;
  /** The client sent Terminate: the relay must hang up (the Neon driver never closes its socket). */
  terminated: boolean;
  counts: FrontendCounts;
}

/**
 * One connection's parser. `feed` takes whatever bytes arrived (messages may be split or batched)
 * and returns the complete messages among them, rewritten; a partial message waits for the rest.
 */
export class FrontendRewriter {
  #pending: Buffer = Buffer.alloc(0);
  /** Complete messages held back until the unit they belong to ends (see feed). */
  #held: Buffer[] = [];
  #startupDone = false;
  readonly #prefix: string;

  constructor(connectionId: number) {
    this.#prefix = `c${connectionId}_`;
  }

  /** The name a statement gets in the shared session ('' stays the unnamed statement). */
  rename(name: string): string {
    return name === '' ? '' : `${this.#prefix}${name}`;
  }

  /**
   * Why hold messages back: pglite-socket queues each TCP read as one unit and interleaves units of
   * different connections in its one session (only an open transaction keeps it to one connection).
   * The driver writes Parse, Bind, Describe, Execute and Sync as separate WebSocket messages, so
   * another connection's messages could land between them; an error there makes the server skip to
   * the NEXT Sync, swallowing the other connection's statement, which then waits forever. Forwarding
   * a connection's extended-protocol messages only together with the Sync (or Flush) that ends them
   * keeps each unit whole. Simple Query, authentication, COPY and start-up messages end a unit too.
   */
  feed(chunk: Buffer): RewriteResult {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const parts: Buffer[] = this.#held;
    this.#held = [];
    // How many of `parts` end with a complete unit (the rest are held back for the next chunk).
    let unitEnd = 0;
    const counts: FrontendCounts = { queries: 0, parses: 0 };
    let terminated = false;
    let offset = 0;
    const buf = this.#pending;
    while (true) {
      if (!this.#startupDone) {
        if (buf.length - offset < 8) break;
        const length = buf.readInt32BE(offset);
        if (buf.length - offset < length) break;
        const code = buf.readInt32BE(offset + 4);
        // SSL/GSS requests are answered with one byte and followed by the real startup message.
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST && code !== CANCEL_REQUEST) this.#startupDone = true;
        parts.push(buf.subarray(offset, offset + length));
        unitEnd = parts.length;
        offset += length;
        continue;
      }
      if (buf.length - offset < 5) break;
      const type = String.fromCharCode(buf[offset] as number);
      const length = buf.readInt32BE(offset + 1);
      if (buf.length - offset < 1 + length) break;
      const message = buf.subarray(offset, offset + 1 + length);
      offset += 1 + length;
      switch (type) {
        case 'P':
          counts.parses += 1;
          parts.push(this.#rewriteLeadingName(message, 5));
          break;
        case 'B': {
          // Bind: portal name, then the statement name.
          const portalEnd = message.indexOf(0, 5);
          parts.push(this.#rewriteLeadingName(message, portalEnd + 1));
          break;
        }
        case 'D':
        case 'C':
          // Describe / Close: a kind byte ('S' statement, 'P' portal), then the name.
          parts.push(message[5] === 0x53 ? this.#rewriteLeadingName(message, 6) : message);
          break;
        case 'S':
        case 'Q':
          counts.queries += 1;
          parts.push(message);
          unitEnd = parts.length;
          break;
        case 'X':
          terminated = true;
          unitEnd = parts.length;
          break;
        case 'E':
          // Execute: part of the unit its Sync ends.
          parts.push(message);
          break;
        default:
          // Flush, password/SASL answers, COPY data and anything else: forwarded at once (the client may
          // wait for the server's answer before sending more).
          parts.push(message);
          unitEnd = parts.length;
      }
      if (terminated) break;
    }
    this.#pending = terminated ? Buffer.alloc(0) : buf.subarray(offset);
    if (!terminated) this.#held = parts.splice(unitEnd);
    return { out: parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts), terminated, counts };
  }

  /** Rewrite the NUL-terminated name starting at `at`, fixing the message's length field. */
  #rewriteLeadingName(message: Buffer, at: number): Buffer {
    const end = message.indexOf(0, at);
    const name = message.toString('utf8', at, end);
    if (name === '') return message;
    const renamed = Buffer.from(this.rename(name), 'utf8');
    const out = Buffer.concat([message.subarray(0, at), renamed, message.subarray(end)]);
    out.writeInt32BE(out.length - 1, 1);
    return out;
  }
}
