import { protocol, types, type PGlite, type Results } from '@electric-sql/pglite';

/**
 * The backend's answer to one Bind/Execute/Sync of a described statement, read straight from the
 * wire bytes. PGlite's general path turns every message into an object (its parser) and then the
 * objects into rows (`parseResults`): a third of a key lookup's cost here. A statement already
 * described needs only its data rows and command tag, so this reads those and builds the result
 * `parseResults` builds, with the same type parsers. Anything unusual (an error, a notice) goes to
 * PGlite's own parser, so it reads exactly as it would have.
 */

export interface ResultField {
  name: string;
  dataTypeID: number;
}

export type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

type Parsers = Record<number, ((value: string, typeId: number) => unknown) | undefined>;

/** Messages a bound execution answers with that carry nothing this reads. */
const SKIPPED = new Set([
  0x32, // '2' BindComplete
  0x6e, // 'n' NoData
  0x73, // 's' PortalSuspended
  0x49, // 'I' EmptyQueryResponse
  0x53, // 'S' ParameterStatus (a SET inside the statement)
  0x5a, // 'Z' ReadyForQuery
]);
const DATA_ROW = 0x44; // 'D'
/** Commands whose tag's count is rows changed (PGlite's parseResults adds those to affectedRows). */
const CHANGING = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);
const COMMAND_COMPLETE = 0x43; // 'C'

const utf8 = new TextDecoder();

/** Short ASCII is most of what rows hold (ids, codes, numbers); building it directly beats TextDecoder's call. */
function text(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 32) return utf8.decode(bytes.subarray(start, end));
  let out = '';
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte > 0x7f) return utf8.decode(bytes.subarray(start, end));
    out += String.fromCharCode(byte);
  }
  return out;
}

/** The messages, through PGlite's parser: the path for anything this does not read itself. */
export function parseMessages(bytes: Uint8Array): BackendMessage[] {
  const messages: BackendMessage[] = [];
  new protocol.Parser().parse(bytes, (message) => messages.push(message));
  return messages;
}

/**
 * The result of a statement whose row shape is `fields` (null: it returns no rows), or null when
 * the bytes hold something only PGlite's parser should read (the caller then uses it).
 */
export function decodeResults(
  bytes: Uint8Array,
  fields: readonly ResultField[] | null,
  parsers: Parsers,
  rowMode: 'array' | 'object' | undefined,
): Results | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rows: unknown[] = [];
  let result: Results | null = null;
  let at = 0;
  while (at < bytes.length) {
    const type = bytes[at] as number;
    const end = at + 1 + view.getInt32(at + 1);
    const body = at + 5;
    if (type === DATA_ROW) {
      if (!fields) return null;
      const count = view.getInt16(body);
      let cursor = body + 2;
      const values: unknown[] = new Array(count);
      for (let column = 0; column < count; column++) {
        const length = view.getInt32(cursor);
        cursor += 4;
        if (length < 0) {
          values[column] = null;
          continue;
        }
        const typeId = fields[column]?.dataTypeID ?? 0;
        const raw = text(bytes, cursor, cursor + length);
        cursor += length;
        const parse = parsers[typeId] ?? (types.parsers as Parsers)[typeId];
        values[column] = parse ? parse(raw, typeId) : raw;
      }
      if (rowMode === 'array') rows.push(values);
      else {
        const row: Record<string, unknown> = {};
        for (let column = 0; column < count; column++) row[fields[column]?.name ?? String(column)] = values[column];
        rows.push(row);
      }
    } else if (type === COMMAND_COMPLETE) {
      if (result) return null; // one statement answers once
      const tag = text(bytes, body, end - 1); // a C string: its terminator is the message's last byte
      const words = tag.split(' ');
      const command = words[0] ?? '';
      const count = parseInt(words[words.length - 1] ?? '', 10);
      const affected = CHANGING.has(command) && !Number.isNaN(count) ? count : 0;
      result = {
        rows: rows.slice(),
        fields: fields ? fields.map((f) => ({ ...f })) : [],
        command,
        affectedRows: affected,
        ...(Number.isNaN(count) ? {} : { rowCount: count }),
      } as Results;
      rows.length = 0;
    } else if (!SKIPPED.has(type)) {
      return null; // an error, a notice, a notification: PGlite's parser reads those
    }
    at = end;
  }
  return result ?? { rows: [], fields: [], affectedRows: 0 };
}
