import { ApiError, type ErrorEnvelope } from '../../platform/errors.js';

/**
 * The JSON-RPC errors the MCP endpoint answers with. Protocol errors carry the service's error
 * envelope (`{error: {code, message, details}}`) as their `data`, so a client branches on the same
 * codes as over REST.
 */
export const RPC_ERROR = {
  /** The MCP specification's "resource not found" (resources/read of a URI that names nothing). */
  resourceNotFound: -32002,
  invalidParams: -32602,
  internal: -32603,
} as const;

/**
 * A JSON-RPC error as the SDK's request loop sends it (it reads `code`, `message` and `data`). Not
 * the SDK's McpError: that one writes "MCP error <code>: " into its message, and the SDK client
 * prefixes the same again when it reads the answer, so clients would print it twice.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: ErrorEnvelope,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** A service error as a JSON-RPC error: 404 is "resource not found" when a resource was read, other 4xx invalid params, 5xx internal. */
export function rpcErrorOf(error: ApiError, reading: 'resource' | 'tool'): RpcError {
  const code =
    error.status >= 500
      ? RPC_ERROR.internal
      : error.status === 404 && reading === 'resource'
        ? RPC_ERROR.resourceNotFound
        : RPC_ERROR.invalidParams;
  return new RpcError(code, error.message, error.toEnvelope());
}

/** A resource URI that names no resource of the catalog. */
export const unknownResource = (uri: string): RpcError =>
  rpcErrorOf(new ApiError('not_found', `Unknown resource ${uri}.`, { uri }), 'resource');
