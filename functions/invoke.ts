import { ApiError, isApiError, type ErrorEnvelope } from '../platform/errors.js';
import type { RateLimitResult, RateLimitRule } from '../platform/limiter/port.js';
import { tooDeepError, valueTooDeep } from '../platform/json-depth.js';
import { deepFreeze, isStatic } from '../platform/static-value.js';
import { assertStorableText } from '../platform/storable-text.js';
import { parseOrThrow } from '../platform/validation.js';
import type { Caller } from './identity/caller.js';
import { roleAtLeast } from './identity/scopes.js';
import { ReadMemo } from './read-memo.js';
import { recordRefusal } from './limits/refusals.js';
import { consumeQuota, refundQuota } from './limits/quota.js';
import type {
  InvocationOrigin,
  Operation,
  OperationContext,
  OperationOutcome,
  OperationRegistry,
  ReceivedUpload,
  RunContext,
} from './registry.js';
import type { Services } from './services.js';

export type { InvocationOrigin, RunContext } from './registry.js';

/**
 * The one path every caller takes into an operation (REST, MCP, agents in-process):
 * visibility → scopes → role → per-operation limit → validation → quota → handler → output check.
 */

/**
 * Where a call comes from. `run` is a stage of a run calling operations as its caller (an agent's
 * tools): it is not throttled by the interactive per-user limits (`rateLimit`), because the run's
 * turn budget and the per-workspace cap on concurrent agent runs bound it instead; monthly quotas
 * count the same on every origin. `console` is the console's own pages acting for a signed-in
 * member: the only origin that may call operations with visibility `console`.
 */
export interface InvocationScope {
  registry: OperationRegistry;
  services: Services;
  caller: Caller;
  correlationId: string;
  signal: AbortSignal;
  origin: InvocationOrigin;
  /** The run calling, for origin `run` (document and action operations read its config). */
  run?: RunContext;
  /** Reads shared by every call in this scope (the request's, the stage's); made on first use when absent. */
  memo?: ReadMemo;
}

export interface RawInput {
  params?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  /** The file of a multipart upload (REST), handed to the handler beside its validated input. */
  upload?: ReceivedUpload | undefined;
}

/** Refuse a caller who may not run the operation at all; the answer never depends on the input. */
export function authorizeOperation(
  registry: OperationRegistry,
  op: Operation,
  caller: Caller,
  origin: InvocationOrigin = 'rest',
): void {
  // Planned, not live (spec: Versioning 2): absent from the document and MCP, so absent here too, on every transport.
  if (!registry.isLive(op)) {
    throw new ApiError('not_found', `${op.id} is planned and not live yet.`, { operation: op.id });
  }
  if (op.visibility === 'console' && origin !== 'console') {
    throw new ApiError('not_on_public_api', `${op.id} is available in the console only, not on the public API.`, {
      operation: op.id,
    });
  }
  const missing = op.scopes.filter((s) => !caller.scopes.has(s));
  if (missing.length > 0) {
    throw new ApiError(
      'scope_denied',
      `${op.id} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`,
      {
        operation: op.id,
        required_scopes: [...op.scopes],
        missing_scopes: missing,
      },
    );
  }
  if (!roleAtLeast(caller.role, op.minRole)) {
    throw new ApiError(
      'insufficient_role',
      `${op.id} needs workspace role ${op.minRole} or above; yours is ${caller.role}.`,
      {
        operation: op.id,
        required_role: op.minRole,
        role: caller.role,
      },
    );
  }
  if (op.authMethods && !op.authMethods.includes(caller.authMethod)) {
    throw new ApiError(
      'forbidden',
      `${op.id} needs a member's own delegated session (${op.authMethods.map((m) => (m === 'oauth' ? 'an OAuth access token' : m === 'console' ? 'the console' : m)).join(' or ')}); ${caller.authMethod === 'api_key' ? 'an API key' : 'this credential'} cannot do it.`,
      { operation: op.id, auth_method: caller.authMethod, allowed_auth_methods: [...op.authMethods] },
    );
  }
}

async function applyOperationLimit(op: Operation, scope: InvocationScope): Promise<RateLimitResult | undefined> {
  if (!op.rateLimit || scope.origin === 'run') return undefined;
  const result = await scope.services.limiter.limit(operationLimitKey(op, scope), op.rateLimit);
  if (!result.success) {
    throw rateLimitedError(
      result,
      op.rateLimit,
      scope.services.clock.now(),
      `${op.id} allows ${op.rateLimit.limit} calls per ${op.rateLimit.windowSeconds} s per user.`,
    );
  }
  return result;
}

const operationLimitKey = (op: Operation, scope: InvocationScope): string => `op:${op.id}:user:${scope.caller.userId}`;

/** The X-RateLimit-* headers of a limiter's answer (spec, Limits: the reset is unix seconds). */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(result.remaining),
    'X-RateLimit-Reset': String(Math.ceil(result.reset / 1000)),
  };
}

export function rateLimitedError(result: RateLimitResult, rule: RateLimitRule, now: Date, message: string): ApiError {
  const retryAfter = Math.max(1, Math.ceil((result.reset - now.getTime()) / 1000));
  return new ApiError(
    'rate_limited',
    `Rate limit exceeded: ${message} Retry after ${retryAfter} s.`,
    { retry_after_seconds: retryAfter, limit: result.limit, window_seconds: rule.windowSeconds },
    {
      headers: {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(result.limit),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(Math.ceil(result.reset / 1000)),
      },
    },
  );
}

/**
 * Run an operation. The input is loaded only after the caller is authorized, so a caller without
 * access learns nothing from how their payload would have been judged; the per-user limit counts only
 * input that passed validation (as the monthly quota does), so a refused payload costs no budget.
 */
export async function runOperation(
  op: Operation,
  scope: InvocationScope,
  loadInput: () => Promise<RawInput>,
  mode: 'respond' | 'stream' = 'respond',
): Promise<OperationOutcome> {
  try {
    return await runAuthorizedOperation(op, scope, loadInput, mode);
  } catch (error) {
    // A 429 (per-user limit, monthly quota, working-runs cap) is kept for the console's usage page;
    // failing to keep it must not change the caller's answer.
    if (isApiError(error) && error.status === 429)
      await recordRefusal(scope.services.db, {
        workspaceId: scope.caller.workspaceId,
        userId: scope.caller.userId,
        operation: op.id,
        error,
        at: scope.services.clock.now(),
      }).catch((e: unknown) =>
        scope.services.log.warn('could not record a 429', { operation: op.id, error: String(e) }),
      );
    throw error;
  }
}

async function runAuthorizedOperation(
  op: Operation,
  scope: InvocationScope,
  loadInput: () => Promise<RawInput>,
  mode: 'respond' | 'stream',
): Promise<OperationOutcome> {
  authorizeOperation(scope.registry, op, scope.caller, scope.origin);
  let input: Record<string, unknown>;
  let upload: ReceivedUpload | undefined;
  try {
    const raw = await loadInput();
    upload = raw.upload;
    input = validatedInput(op, raw);
  } catch (error) {
    // An uploaded file is in the store as soon as it was read: a refused request leaves nothing behind.
    await upload?.discardUnlessKept();
    if (isApiError(error) && op.rateLimit && scope.origin !== 'run') await showOperationBudget(op, scope, error);
    throw error;
  }
  const rateLimit = await applyOperationLimit(op, scope);
  let result: unknown;
  try {
    if (mode === 'stream' && op.stream) {
      // An event stream of a run: the operation only resolves (and tenant-checks) which run.
      const stream = await op.stream(contextFor(scope), input);
      return { output: null, stream, status: 200, ...(rateLimit ? { rateLimit } : {}) };
    }
    const countedAt = scope.services.clock.now();
    if (op.quota) await consumeQuota(scope.services.db, scope.caller.workspaceId, op.quota, countedAt);
    try {
      result = await op.handler(contextFor(scope, upload), input);
    } catch (error) {
      if (op.quota)
        await refundQuota(scope.services.db, scope.caller.workspaceId, op.quota, countedAt).catch(() => undefined);
      throw error;
    }
  } catch (error) {
    await upload?.discardUnlessKept();
    // The handler's own checks (search's filter vocabulary, job_id alone) refuse a request as invalid
    // only after it was counted: a 400 gives the per-user budget its unit back, as invalid input does.
    if (rateLimit && isApiError(error) && error.status === 400) await returnOperationBudget(op, scope, error);
    throw error;
  }
  const staticOutput = isStatic(result) ? checkedStaticOutputs.get(result) : undefined;
  if (staticOutput !== undefined)
    return { output: staticOutput, status: op.successStatus ?? 200, ...(rateLimit ? { rateLimit } : {}) };
  const checked = op.output.safeParse(result);
  if (!checked.success) {
    scope.services.log.error('operation output does not match its schema', {
      operation: op.id,
      correlation_id: scope.correlationId,
      issues: checked.error.issues.slice(0, 5),
    });
    throw new ApiError(
      'internal',
      'The operation produced an invalid response. Retry with backoff and quote the correlation id.',
    );
  }
  if (isStatic(result)) {
    // A handler answering with the same frozen value every call (a catalog) is checked once; the
    // checked copy is frozen too, so the REST layer can keep its JSON.
    checkedStaticOutputs.set(result, deepFreeze(checked.data));
  }
  return { output: checked.data, status: op.successStatus ?? 200, ...(rateLimit ? { rateLimit } : {}) };
}

/**
 * The one input check every operation passes, on every transport: input nested past MAX_JSON_DEPTH
 * and text the database cannot store are refused before the schemas run (no operation has to
 * remember it, and nothing reaches a statement), then path, query and body are parsed by the
 * operation's own schemas. A body that is sent must be an object:
 * JSON `null` is not "no body", so it never reads as an empty update.
 */
function validatedInput(op: Operation, raw: RawInput): Record<string, unknown> {
  // Input that arrives decoded (an agent's tool call, MCP arguments) is held to the same nesting
  // limit as a REST body's text, before any walk over it.
  for (const [part, field] of [
    [raw.query, 'query'],
    [raw.body, 'body'],
  ] as const)
    if (valueTooDeep(part)) throw tooDeepError(field);
  if (op.params) assertStorableText(raw.params ?? {});
  if (op.query) assertStorableText(raw.query ?? {});
  if (op.body) {
    if (raw.body === null || typeof raw.body !== 'object' || Array.isArray(raw.body)) {
      const got = raw.body === null ? 'null' : Array.isArray(raw.body) ? 'an array' : typeof raw.body;
      throw new ApiError('invalid_argument', `Invalid request: body: must be a JSON object, not ${got}`, {
        fields: [{ field: 'body', problem: `must be a JSON object, not ${got}`, code: 'invalid_type' }],
      });
    }
    assertStorableText(raw.body);
  }
  return {
    ...(op.params ? parseOrThrow(op.params, raw.params ?? {}) : {}),
    ...(op.query ? parseOrThrow(op.query, raw.query ?? {}) : {}),
    ...(op.body ? parseOrThrow(op.body, raw.body) : {}),
  };
}

/**
 * A refused call is not counted against the operation's per-user limit, but its rate-limit headers
 * still show that budget (the one that applies to this operation), not the global limiter's.
 */
async function showOperationBudget(op: Operation, scope: InvocationScope, error: ApiError): Promise<void> {
  if (!op.rateLimit) return;
  const budget = await scope.services.limiter.peek(operationLimitKey(op, scope), op.rateLimit).catch(() => undefined);
  if (budget) withBudgetHeaders(error, budget);
}

/** Give back the unit a call refused as invalid after it was counted, and show the budget it leaves. */
async function returnOperationBudget(op: Operation, scope: InvocationScope, error: ApiError): Promise<void> {
  if (!op.rateLimit) return;
  const budget = await scope.services.limiter.refund(operationLimitKey(op, scope), op.rateLimit).catch(() => undefined);
  if (budget) withBudgetHeaders(error, budget);
}

function withBudgetHeaders(error: ApiError, budget: RateLimitResult): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(budget))) error.headers[name] ??= value;
}

/** Static outputs (deeply frozen, returned by identity) and their checked copies. */
const checkedStaticOutputs = new WeakMap<object, unknown>();

/**
 * Split a flat argument object (MCP tool arguments, an agent's tool call) into path, query and body
 * by the operation's declared fields, refusing any field the operation does not declare.
 */
export function splitFlatInput(op: Operation, flat: Record<string, unknown>): RawInput {
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const paramKeys = new Set(Object.keys(op.params?.shape ?? {}));
  const queryKeys = new Set(Object.keys(op.query?.shape ?? {}));
  const bodyKeys = new Set(Object.keys(op.body?.shape ?? {}));
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(flat)) {
    if (paramKeys.has(key)) params[key] = value;
    else if (queryKeys.has(key)) query[key] = value;
    else if (bodyKeys.has(key)) body[key] = value;
    else unknown.push(key);
  }
  if (unknown.length > 0) {
    const allowed = [...paramKeys, ...queryKeys, ...bodyKeys];
    throw new ApiError(
      'invalid_argument',
      `Invalid request: unknown field "${unknown[0]}"; allowed: ${allowed.join(', ') || '(none)'}`,
      {
        fields: unknown.map((field) => ({
          field,
          problem: `unknown field "${field}"`,
          code: 'unknown_field',
          allowed,
        })),
      },
    );
  }
  return { params, query, body: op.body ? body : undefined };
}

/** The in-process call path (agents): same checks as REST and MCP, as the same caller. */
export async function invokeOperation(
  scope: InvocationScope,
  operationId: string,
  flat: Record<string, unknown>,
): Promise<unknown> {
  const op = scope.registry.get(operationId);
  if (!op) throw new ApiError('invalid_argument', `Unknown operation "${operationId}".`, { operation: operationId });
  const outcome = await runOperation(op, scope, async () => splitFlatInput(op, flat));
  return outcome.output;
}

/** A call's result as a value: what an agent's tool call gets back, failure included. */
export type InvocationResult = { ok: true; output: unknown } | { ok: false; error: ErrorEnvelope['error'] };

/**
 * Like invokeOperation, but a failure the caller could see (any ApiError: bad input, scope, not
 * found, quota) comes back as the same envelope REST would render, so a run's tool error goes back
 * to its model instead of crashing the stage. Cancellation and unexpected errors still throw.
 */
export async function invokeAsValue(
  scope: InvocationScope,
  operationId: string,
  flat: Record<string, unknown>,
): Promise<InvocationResult> {
  return asInvocationResult(invokeOperation(scope, operationId, flat));
}

/** A call's outcome as a value: its output, or the envelope of the ApiError it failed with (anything else still throws). */
export async function asInvocationResult(call: Promise<unknown>): Promise<InvocationResult> {
  try {
    return { ok: true, output: await call };
  } catch (error) {
    if (!isApiError(error)) throw error;
    return { ok: false, error: error.toEnvelope().error };
  }
}

/**
 * What a handler sees of its call. A class, not a literal: the signal stays read on use (see
 * invocationScope) and `invoke` lives on the prototype instead of a closure made for every call.
 */
class CallContext implements OperationContext {
  readonly caller: Caller;
  readonly services: Services;
  readonly correlationId: string;
  readonly origin: InvocationOrigin;
  readonly run?: RunContext;
  readonly upload?: ReceivedUpload;

  constructor(
    private readonly scope: InvocationScope,
    upload?: ReceivedUpload,
  ) {
    this.caller = scope.caller;
    this.services = scope.services;
    this.correlationId = scope.correlationId;
    this.origin = scope.origin;
    if (scope.run) this.run = scope.run;
    if (upload) this.upload = upload;
  }

  get signal(): AbortSignal {
    return this.scope.signal;
  }

  /** The scope's: an operation and those it invokes in-process share it. */
  get memo(): ReadMemo {
    return memoOf(this.scope);
  }

  invoke(operationId: string, input: Record<string, unknown>): Promise<unknown> {
    return invokeOperation(this.scope, operationId, input);
  }
}

/** The scope's read memo, made on first use: every call in the scope, and what it invokes, shares it. */
export function memoOf(scope: InvocationScope): ReadMemo {
  scope.memo ??= new ReadMemo();
  return scope.memo;
}

const contextFor = (scope: InvocationScope, upload?: ReceivedUpload): OperationContext =>
  new CallContext(scope, upload);
