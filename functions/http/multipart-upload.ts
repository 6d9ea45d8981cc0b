import type { Context } from 'hono';
import { incrementalSha256 } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { fileKey, type FileStore } from '../../platform/files/port.js';
import { newId } from '../../platform/ids.js';
import { assertStorableText, unstorableTextProblem } from '../../platform/storable-text.js';
import { UPLOAD_HEAD_BYTES, type ReceivedUpload, type UploadSpec } from '../registry.js';
import type { AppEnv } from './env.js';
import { readJsonBody } from './json-body.js';
import { MultipartFormError, MultipartStreamReader } from './multipart-stream.js';

/** Room for the multipart framing and a few text fields around the file. */
const FRAMING_ALLOWANCE = 64 * 1024;
const MAX_TEXT_FIELD_BYTES = 16 * 1024;
const MAX_PARTS = 16;

/** The spec's error for a file over an endpoint's limit (Errors: 413). */
export const fileTooLarge = (spec: UploadSpec): ApiError =>
  new ApiError(
    'file_too_large',
    `The file in "${spec.field}" is larger than this endpoint's limit of ${spec.maxBytes} bytes.`,
    { code: 'LIMIT_FILE_SIZE', field: spec.field, max_bytes: spec.maxBytes },
  );

/**
 * The input of an upload operation over REST. A multipart/form-data body is read as it arrives
 * (multipart-stream.ts) and the file part goes straight to the file store, chunk by chunk: its bytes
 * are counted, hashed and (the first UPLOAD_HEAD_BYTES, for typing) kept as they pass, and the moment
 * the count passes the limit the write is abandoned, the partial file deleted and the answer is 413
 * file_too_large (LIMIT_FILE_SIZE, the field named); nothing of the file is ever whole in memory. A
 * request whose declared length is already far past the limit is refused before a byte is read. The
 * file must come in `spec.field` (another field name is 400); other parts are text fields of the body.
 * A JSON body is the MCP shape (`content_base64`), checked by the handler.
 */
export async function readUploadInput(
  c: Context<AppEnv>,
  spec: UploadSpec,
): Promise<{ body: Record<string, unknown> | unknown; upload?: ReceivedUpload }> {
  const contentType = c.req.header('content-type') ?? '';
  const boundary = /^multipart\/form-data\b/i.test(contentType) ? boundaryOf(contentType) : null;
  if (!boundary) {
    if (/json/i.test(contentType)) return { body: await readJsonBody(c) };
    throw new ApiError('invalid_argument', `Send the file as multipart/form-data in the field "${spec.field}".`, {
      content_type: contentType || null,
      expected: 'multipart/form-data',
      field: spec.field,
    });
  }
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > spec.maxBytes + FRAMING_ALLOWANCE) throw fileTooLarge(spec);
  const stream = c.req.raw.body;
  if (!stream) throw missingFile(spec);

  const files = c.get('services').files;
  const workspaceId = c.get('caller').workspaceId;
  const reader = new MultipartStreamReader(stream, boundary);
  const body: Record<string, string> = {};
  let upload: ReceivedUpload | undefined;
  try {
    for (let parts = 0; ; parts++) {
      const part = await reader.nextPart();
      if (!part) break;
      if (parts >= MAX_PARTS) throw new ApiError('invalid_argument', `At most ${MAX_PARTS} form parts.`, {});
      if (part.filename !== null) {
        if (part.name !== spec.field) {
          throw new ApiError(
            'invalid_argument',
            `The file must be sent in the field "${spec.field}", not "${part.name}".`,
            { field: part.name, expected_field: spec.field },
          );
        }
        if (upload) throw new ApiError('invalid_argument', `Send one file in "${spec.field}".`, { field: part.name });
        assertStorableFilename(spec, part.filename);
        upload = await streamToStore(files, workspaceId, spec, part.filename, reader.body());
      } else {
        if (part.name === spec.field) throw missingFile(spec);
        const value = await textField(part.name, reader.body());
        // Judged as it arrives, as a JSON body's fields are (functions/invoke.ts), before the file is stored.
        assertStorableText({ [part.name]: value });
        body[part.name] = value;
      }
    }
  } catch (error) {
    await reader.cancel();
    await upload?.discardUnlessKept();
    if (error instanceof MultipartFormError)
      throw new ApiError('invalid_argument', `Malformed multipart body: ${error.message}.`, {
        body: 'malformed_multipart',
      });
    throw error;
  }
  if (!upload) throw missingFile(spec);
  return { body, upload };
}

/**
 * The file part into the file store as it arrives: counted (one byte past the limit stops it with
 * 413, and the store leaves nothing under the key), hashed, its head kept for typing.
 */
async function streamToStore(
  files: FileStore,
  workspaceId: string,
  spec: UploadSpec,
  filename: string,
  chunks: AsyncIterable<Uint8Array>,
): Promise<ReceivedUpload> {
  const fileId = newId();
  const key = fileKey(workspaceId, fileId);
  const hash = incrementalSha256();
  const head = new Uint8Array(UPLOAD_HEAD_BYTES);
  let size = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      size += chunk.length;
      if (size > spec.maxBytes) throw fileTooLarge(spec);
      const room = UPLOAD_HEAD_BYTES - (size - chunk.length);
      if (room > 0) head.set(chunk.subarray(0, room), size - chunk.length);
      hash.update(chunk);
      yield chunk;
    }
  }
  try {
    await files.putStream(key, counted());
  } catch (error) {
    await files.delete(key).catch(() => undefined);
    throw error;
  }
  return receivedUpload(files, {
    field: spec.field,
    filename: filename.slice(0, 255) || 'upload',
    fileId,
    storageKey: key,
    byteSize: size,
    sha256: hash.hex(),
    head: head.slice(0, Math.min(size, UPLOAD_HEAD_BYTES)),
  });
}

/** A stored upload as handlers receive it, deleted from the store unless an operation recorded it. */
export function receivedUpload(
  files: FileStore,
  file: Omit<ReceivedUpload, 'keep' | 'discardUnlessKept'>,
): ReceivedUpload {
  let kept = false;
  return {
    ...file,
    keep: () => {
      kept = true;
    },
    discardUnlessKept: async () => {
      if (!kept) await files.delete(file.storageKey).catch(() => undefined);
    },
  };
}

async function textField(name: string, chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > MAX_TEXT_FIELD_BYTES)
      throw new ApiError('invalid_argument', `The form field "${name}" is too long.`, { field: name });
    parts.push(chunk.slice());
  }
  const joined = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(joined);
}

/** A file's name is stored and shown: text the database cannot store in it is the caller's 400, naming the file's field. */
function assertStorableFilename(spec: UploadSpec, filename: string): void {
  const found = unstorableTextProblem(filename);
  if (!found) return;
  const problem = `file name ${found.problem}`;
  throw new ApiError('invalid_argument', `Invalid request: ${spec.field}: ${problem}`, {
    field: spec.field,
    fields: [{ field: spec.field, problem, code: found.code }],
  });
}

/** The boundary parameter of a multipart Content-Type (quoted or not), or null. */
function boundaryOf(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2] ?? null;
  return boundary && boundary.length <= 70 ? boundary : null;
}

const missingFile = (spec: UploadSpec): ApiError =>
  new ApiError('invalid_argument', `No file in the field "${spec.field}".`, {
    field: spec.field,
    problem: 'missing',
  });
