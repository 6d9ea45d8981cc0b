import type { FilePurpose } from '../../schema/knowledge.js';
import type { UploadSpec } from '../registry.js';

const MB = 1024 * 1024;

/**
 * The spec's upload limits (Limits: Uploads), one per destination, in bytes (a megabyte is 2^20
 * bytes): a file of exactly the limit is accepted, one byte more is 413 file_too_large.
 */
export const UPLOAD_LIMITS: Record<FilePurpose, UploadSpec> = {
  library: { field: 'file', maxBytes: 25 * MB },
  knowledge: { field: 'file', maxBytes: 50 * MB },
  context_attachment: { field: 'file', maxBytes: 5 * MB },
};
