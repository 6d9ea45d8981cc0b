import type { z } from '@hono/zod-openapi';
import type { Role } from '../schema/tenancy.js';
import type { RateLimitResult, RateLimitRule } from '../platform/limiter/port.js';
import type { Caller } from './identity/caller.js';
import type { Scope } from './identity/scopes.js';
import type { AuthMethod } from './identity/caller.js';
import type { QuotaFamily } from './limits/quota.js';
import type { Services } from './services.js';
import type { ReadMemo } from './read-memo.js';

/**
 * The operation registry (architecture: "One operation, three callers"). Each operation is declared
 * once here-shaped, in its surface folder; the REST routes and OpenAPI document, the MCP tools and
 * resources, and the agents' in-process calls are all generated from these declarations.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Stability = 'beta' | 'stable' | 'coming_soon';

/**
 * A configuration flag (platform/config.ts) that launches `coming_soon` operations. Off, such an
 * operation does not exist for clients (404, absent from OpenAPI, MCP and agents' tools: spec,
 * Versioning 2); on, it is served and still labelled `coming_soon`. A `coming_soon` operation with
 * no switch is planned and never served.
 */
export type LaunchSwitch = 'SIMULATE_ENABLED';
export const LAUNCH_SWITCHES: readonly LaunchSwitch[] = ['SIMULATE_ENABLED'];

export type ObjectSchema = z.ZodObject<z.ZodRawShape>;
type InferOr<S, Fallback> = S extends z.ZodType ? z.output<S> : Fallback;
// biome-ignore lint/complexity/noBannedTypes: `{}` is the identity of an intersection (an absent params/query/body adds nothing to the input type)
type Empty = {};

/** The merged input a handler receives: path params, query and body in one object. */
export type OperationInput<P, Q, B> = InferOr<P, Empty> & InferOr<Q, Empty> & InferOr<B, Empty>;

/** Which door a call came in through (a run's stage calling as its caller is `run`). */
export type InvocationOrigin = 'rest' | 'mcp' | 'run' | 'console';

/** What an operation may know of the run that calls it. */
export interface RunContext {
  id: string;
  kind: string;
  input: Record<string, unknown>;
}

export interface OperationContext {
  caller: Caller;
  services: Services;
  correlationId: string;
  /** Call another operation in-process as the same caller; the registry enforces their scopes and role. */
  invoke(operationId: string, input: Record<string, unknown>): Promise<unknown>;
  /** Abort signal of the calling request (client went away) or of the running stage. */
  signal: AbortSignal;
  /** Which door the call came in through (a run's stage calling as its caller is `run`). */
  origin: InvocationOrigin;
  /** The run calling, when origin is `run`. */
  run?: RunContext;
  /** The file of an upload operation sent as multipart/form-data (REST); absent on other calls. */
  upload?: ReceivedUpload;
  /** Reads made once for this request or stage, whichever operations ask (read-memo.ts). */
  readonly memo: ReadMemo;
}

/**
 * An operation that takes a file (spec, Limits: Uploads). Over REST the file is the multipart part
 * named `field`, read as it arrives and refused with 413 file_too_large the moment it passes
 * `maxBytes` (functions/http/multipart-upload.ts); over MCP and in-process it is the body's
 * `content_base64`, held to the same limit by the handler.
 */
export interface UploadSpec {
  /** The form field that must carry the file. */
  field: string;
  /** The largest file accepted, in bytes: exactly this many is accepted, one more is 413. */
  maxBytes: number;
}

/** A file as an upload operation receives it: already in the file store, never whole in memory. */
export interface ReceivedUpload {
  field: string;
  /** The name the client gave it (shown back only: the type is read from the bytes). */
  filename: string;
  /** The id its stored_files row must take, and the file store key its bytes are under. */
  fileId: string;
  storageKey: string;
  byteSize: number;
  sha256: string;
  /** Its first bytes (at most UPLOAD_HEAD_BYTES), for typing it by its bytes. */
  head: Uint8Array;
  /** The operation recorded it (a stored_files row points at its bytes): a later failure keeps them. */
  keep(): void;
  /** Delete its bytes unless keep() was called (the call failed before the file was recorded). */
  discardUnlessKept(): Promise<void>;
}

/** How much of an upload's start is kept in memory to read its type from. */
export const UPLOAD_HEAD_BYTES = 1024 * 1024;

export interface McpBinding {
  /** Tool name, e.g. "search", "connections". */
  tool: string;
  /** Value of the tool's `action` argument. */
  action: string;
  /** Resource URI or template, e.g. "search_overview://current", "research://{id}". */
  resource?: string;
  /** Other URIs that resolve to the same resource (e.g. `eval_run://{id}` beside `eval-run://{id}`). */
  resourceAliases?: string[];
}

export interface OperationSpec<
  P extends ObjectSchema | undefined,
  Q extends ObjectSchema | undefined,
  B extends ObjectSchema | undefined,
  O extends z.ZodType,
> {
  id: string;
  method: HttpMethod;
  /** Relative to /api/platform/v1, OpenAPI style: "/research/{id}". */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Every listed scope is required. An empty list means any authenticated caller. */
  scopes: readonly Scope[];
  minRole: Role;
  stability: Stability;
  /** For a `coming_soon` operation: the flag that serves it (see LaunchSwitch). */
  launchSwitch?: LaunchSwitch;
  /** Console-only operations exist but answer 403 not_on_public_api to API callers. */
  visibility: 'public' | 'console';
  mcp?: McpBinding;
  params?: P;
  query?: Q;
  body?: B;
  /** Whether a body must be sent at all (defaults to true when `body` is declared). */
  bodyRequired?: boolean;
  /**
   * A body a client could send, in its JSON form: the request example of the OpenAPI document and
   * the reference. Typed by `body`, and parsed by it in test/openapi-examples.test.ts, so it cannot rot.
   */
  example?: B extends ObjectSchema ? z.input<B> : never;
  output: O;
  successStatus?: 200 | 201 | 202;
  /** Per-user limit on this operation, beneath the global per-IP limit. */
  rateLimit?: RateLimitRule;
  /**
   * Only these credential kinds may call it (spec, Authentication 9: connection lifecycle writes
   * authorize on a member's delegated OAuth session, not on API keys). Absent: any credential.
   */
  authMethods?: readonly AuthMethod[];
  /** Monthly verb family counted once the input is valid. */
  quota?: QuotaFamily;
  handler(ctx: OperationContext, input: OperationInput<P, Q, B>): Promise<z.input<O>>;
  /**
   * For run reads: called instead of the handler when the client sends `Accept: text/event-stream`;
   * resolves which run to stream (tenant-checked) and from which event on.
   */
  stream?(ctx: OperationContext, input: OperationInput<P, Q, B>): Promise<RunStreamTarget>;
  /** The operation answers with its event stream whatever the Accept header (a run's `stream_url`). */
  streamOnly?: boolean;
  /**
   * `false` keeps the operation out of agents' tools (run control, starting chats: an agent reaches
   * those through its built-in tools or not at all). Default: every public operation is a tool.
   */
  agentTool?: false;
  /** A POST that only reads (search.query): an agent may call it without asking for approval. */
  readOnly?: true;
  /**
   * A file download (spec, Conventions 4): the handler returns the body as text chunks (an async
   * iterable, produced page by page), sent unwrapped and streamed with this type and an attachment
   * content-disposition. Not offered over MCP or to agents.
   */
  download?: Download;
  /**
   * Honour an `Idempotency-Key` header (REST): the same key and body within 24 h replays the first
   * response; a different body, or a duplicate while the first is in flight, is 409 (functions/http/idempotency.ts).
   */
  idempotent?: true;
  /** A file upload: REST reads it as multipart/form-data (see UploadSpec). */
  upload?: UploadSpec;
}

export interface Download {
  contentType: string;
  filename: string;
}

/** The body of a download: text chunks, produced as they are read (never the whole file in memory). */
export type DownloadBody = AsyncIterable<string>;

export interface RunStreamTarget {
  runId: string;
  /** Replay events with seq greater than this (from `?after=` or `Last-Event-ID`). */
  after: number;
}

/** A declared operation with its types erased, as the transports see it. */
export interface Operation {
  id: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  scopes: readonly Scope[];
  minRole: Role;
  stability: Stability;
  launchSwitch?: LaunchSwitch;
  visibility: 'public' | 'console';
  mcp?: McpBinding;
  params?: ObjectSchema;
  query?: ObjectSchema;
  body?: ObjectSchema;
  bodyRequired?: boolean;
  example?: Record<string, unknown>;
  output: z.ZodType;
  successStatus?: 200 | 201 | 202;
  rateLimit?: RateLimitRule;
  authMethods?: readonly AuthMethod[];
  quota?: QuotaFamily;
  handler(ctx: OperationContext, input: Record<string, unknown>): Promise<unknown>;
  stream?(ctx: OperationContext, input: Record<string, unknown>): Promise<RunStreamTarget>;
  streamOnly?: boolean;
  agentTool?: false;
  readOnly?: true;
  download?: Download;
  idempotent?: true;
  upload?: UploadSpec;
}

export function defineOperation<
  P extends ObjectSchema | undefined = undefined,
  Q extends ObjectSchema | undefined = undefined,
  B extends ObjectSchema | undefined = undefined,
  O extends z.ZodType = z.ZodType,
>(spec: OperationSpec<P, Q, B, O>): Operation {
  return spec as unknown as Operation;
}

/** What running an operation produced, for the transport to render. */
export interface OperationOutcome {
  output: unknown;
  /** Set instead of output when the run's events should be streamed. */
  stream?: RunStreamTarget;
  status: 200 | 201 | 202;
  /** The tightest limiter that counted this call, for the X-RateLimit-* headers. */
  rateLimit?: RateLimitResult;
}

/**
 * The services carry the registry (declared here rather than in services.ts, which would otherwise
 * import this file while this file imports it: see Services).
 */
declare module './services.js' {
  interface Services {
    /** Every operation the service offers: REST, MCP and runs' in-process tool calls all read it. */
    registry: OperationRegistry;
  }
}

export class OperationRegistry {
  readonly #byId = new Map<string, Operation>();
  readonly #launched: ReadonlySet<LaunchSwitch>;

  /** `launched`: the launch switches that are on (from the configuration), serving their operations. */
  constructor(operations: readonly Operation[], launched: Iterable<LaunchSwitch> = []) {
    this.#launched = new Set(launched);
    for (const op of operations) this.#add(op);
  }

  #add(op: Operation): void {
    if (this.#byId.has(op.id)) throw new Error(`operation ${op.id} declared twice`);
    const keys = new Map<string, string>();
    for (const [where, schema] of [
      ['path', op.params],
      ['query', op.query],
      ['body', op.body],
    ] as const) {
      for (const key of Object.keys(schema?.shape ?? {})) {
        const clash = keys.get(key);
        if (clash) throw new Error(`operation ${op.id}: input field "${key}" appears in both ${clash} and ${where}`);
        keys.set(key, where);
      }
    }
    if (op.mcp) {
      const twin = [...this.#byId.values()].find(
        (o) => o.mcp?.tool === op.mcp?.tool && o.mcp?.action === op.mcp?.action,
      );
      if (twin) throw new Error(`MCP ${op.mcp.tool}.${op.mcp.action} bound by both ${twin.id} and ${op.id}`);
    }
    this.#byId.set(op.id, op);
  }

  get(id: string): Operation | undefined {
    return this.#byId.get(id);
  }

  all(): Operation[] {
    return [...this.#byId.values()];
  }

  /** Whether the operation is served: not `coming_soon`, or `coming_soon` with its launch switch on. */
  isLive(op: Operation): boolean {
    return op.stability !== 'coming_soon' || (op.launchSwitch !== undefined && this.#launched.has(op.launchSwitch));
  }

  /** Operations a public client can see: public and live. */
  published(): Operation[] {
    return this.all().filter((op) => op.visibility === 'public' && this.isLive(op));
  }
}
