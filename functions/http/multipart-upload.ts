import {
  getMultipartBoundary,
  MaxFileSizeExceededError,
  MultipartParseError,
  parseMultipartStream,
} from '@remix-run/multipart-parser';
import type { Context } from 'hono';
import { ApiError } from '../../platform/errors.js';
import type { ReceivedUpload, UploadSpec } from '../registry.js';
import { readJsonBody } from './json-body.js';

/** Room for the multipart framing and a few text fields around the file. */
const FRAMING_ALLOWANCE = 64 * 1024;
const MAX_TEXT_FIELD_BYTES = 16 * 1024;

/** The spec's error for a file over an endpoint's limit (Errors: 413). */
export const fileTooLarge = (spec: UploadSpec): ApiError =>
  new ApiError(
    'file_too_large',
    `The file in "${spec.field}" is larger than this endpoint's limit of ${spec.maxBytes} bytes.`,
    { code: 'LIMIT_FILE_SIZE', field: spec.field, max_bytes: spec.maxBytes },
  );

/**
 * The input of an upload operation over REST. A multipart/form-data body is parsed as it arrives:
 * the parser counts each part's bytes and stops the moment the file passes the limit (413
 * file_too_large, LIMIT_FILE_SIZE, the field named), so nothing past the limit is ever read into
 * memory; a request whose declared length is already far past it is refused before a byte is read.
 * The file must come in `spec.field` (another field name is 400); other parts are text fields of the
 * body. A JSON body is the MCP shape (`content_base64`), checked by the handler.
 */
export async function readUploadInput(
  c: Context,
  spec: UploadSpec,
): Promise<{ body: Record<string, unknown> | unknown; upload?: ReceivedUpload }> {
  const contentType = c.req.header('content-type') ?? '';
  const boundary = /^multipart\/form-data\b/i.test(contentType) ? getMultipartBoundary(contentType) : null;
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

  const body: Record<string, string> = {};
  let upload: ReceivedUpload | undefined;
  try {
    for await (const part of parseMultipartStream(stream, {
      boundary,
      maxFileSize: spec.maxBytes,
      maxParts: 16,
      maxTotalSize: spec.maxBytes + FRAMING_ALLOWANCE,
    })) {
      const name = part.name ?? '';
      if (part.isFile) {
        if (name !== spec.field) {
          throw new ApiError('invalid_argument', `The file must be sent in the field "${spec.field}", not "${name}".`, {
            field: name,
            expected_field: spec.field,
          });
        }
        if (upload) throw new ApiError('invalid_argument', `Send one file in "${spec.field}".`, { field: name });
        upload = { field: name, filename: (part.filename ?? '').slice(0, 255) || 'upload', bytes: part.bytes };
      } else {
        if (name === spec.field) throw missingFile(spec);
        if (part.size > MAX_TEXT_FIELD_BYTES)
          throw new ApiError('invalid_argument', `The form field "${name}" is too long.`, { field: name });
        body[name] = part.text;
      }
    }
  } catch (error) {
    if (error instanceof MaxFileSizeExceededError) throw fileTooLarge(spec);
    if (error instanceof MultipartParseError)
      throw new ApiError('invalid_argument', `Malformed multipart body: ${error.message}.`, {
        body: 'malformed_multipart',
      });
    throw error;
  }
  if (!upload) throw missingFile(spec);
  return { body, upload };
}

const missingFile = (spec: UploadSpec): ApiError =>
  new ApiError('invalid_argument', `No file in the field "${spec.field}".`, {
    field: spec.field,
    problem: 'missing',
  });
