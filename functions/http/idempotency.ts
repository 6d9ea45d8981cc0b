import { and, eq, lt, or, isNull } from 'drizzle-orm';
import type { Database } from '../../platform/db/port.js';
import { sha256Hex } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { idempotencyKeys } from '../../schema/agents.js';
import type { Caller } from '../identity/caller.js';
import type { Operation, OperationOutcome } from '../registry.js';
import { canonicalJson } from '../../platform/canonical-json.js';

/**
 * `Idempotency-Key` on the creates that switch it on (`idempotent: true` in the registry), REST only:
 *
 * - the same key and the same request (path, query and body) within 24 h replays the first
 *   response — same status, same body, same ids — with `Idempotent-Replayed: true`;
 * - the same key with a different request is `409 conflict` (`details.reason: key_reused`): never
 *   retry it, pick a new key;
 * - the same key while the first request is still running is `409 duplicate` with `Retry-After: 1`
 *   (`details.reason: in_flight`): retry after it, and you get the replay;
 * - a request that fails (any error) releases its key, so the retry runs again.
 *
 * Keys are scoped to the workspace, the member and the operation. An in-flight claim abandoned by a
 * crash expires after IN_FLIGHT_LOCK_MS and a retry takes it over.
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const RETENTION_MS = 24 * 3_600_000;
const IN_FLIGHT_LOCK_MS = 60_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  op: Operation;
  caller: Caller;
  key: string;
  request: { params: unknown; query: unknown; body: unknown };
  now: Date;
}

export type IdempotentOutcome =
  | { replayed: false; outcome: OperationOutcome }
  | { replayed: true; status: number; body: unknown };

export function checkIdempotencyKey(key: string): void {
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError(
      'invalid_argument',
      'Invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice).',
      {
        fields: [
          { field: 'Idempotency-Key', problem: 'must be 1-255 visible ASCII characters', code: 'invalid_format' },
        ],
      },
    );
  }
}

export async function runIdempotently(
  db: Database,
  req: IdempotentRequest,
  run: () => Promise<OperationOutcome>,
): Promise<IdempotentOutcome> {
  checkIdempotencyKey(req.key);
  const requestHash = await sha256Hex(canonicalJson(req.request));
  const id = { workspaceId: req.caller.workspaceId, userId: req.caller.userId, operationId: req.op.id, key: req.key };
  const where = and(
    eq(idempotencyKeys.workspaceId, id.workspaceId),
    eq(idempotencyKeys.userId, id.userId),
    eq(idempotencyKeys.operationId, id.operationId),
    eq(idempotencyKeys.key, id.key),
  );
  const lockedUntil = new Date(req.now.getTime() + IN_FLIGHT_LOCK_MS);

  const claim = async (): Promise<boolean> => {
    const [claimed] = await db
      .insert(idempotencyKeys)
      .values({
        ...id,
        requestHash,
        status: 'in_flight',
        lockedUntil,
        createdAt: req.now,
        expiresAt: new Date(req.now.getTime() + RETENTION_MS),
      })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    return Boolean(claimed);
  };

  let claimed = await claim();
  if (!claimed) {
    const [existing] = await db.select().from(idempotencyKeys).where(where);
    if (existing && existing.expiresAt <= req.now) {
      await db.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.expiresAt, existing.expiresAt)));
      claimed = await claim();
    } else if (existing) {
      if (existing.requestHash !== requestHash) {
        throw new ApiError(
          'conflict',
          'This Idempotency-Key was already used with a different request; use a new key for a new request.',
          {
            idempotency_key: req.key,
            reason: 'key_reused',
          },
        );
      }
      if (existing.status === 'done')
        return { replayed: true, status: existing.responseStatus ?? 200, body: existing.responseBody };
      // Still running: unless its claim was abandoned (a crash), the client should come back for the replay.
      const [takenOver] = await db
        .update(idempotencyKeys)
        .set({ lockedUntil })
        .where(
          and(
            where,
            eq(idempotencyKeys.status, 'in_flight'),
            or(isNull(idempotencyKeys.lockedUntil), lt(idempotencyKeys.lockedUntil, req.now)),
          ),
        )
        .returning({ key: idempotencyKeys.key });
      if (!takenOver) {
        throw new ApiError(
          'duplicate',
          'A request with this Idempotency-Key is still being processed; retry shortly to receive its response.',
          { idempotency_key: req.key, reason: 'in_flight' },
          {
            headers: { 'Retry-After': '1' },
          },
        );
      }
      claimed = true;
    }
  }
  if (!claimed)
    throw new ApiError(
      'duplicate',
      'A request with this Idempotency-Key is being processed; retry shortly.',
      { idempotency_key: req.key, reason: 'in_flight' },
      { headers: { 'Retry-After': '1' } },
    );

  let outcome: OperationOutcome;
  try {
    outcome = await run();
  } catch (error) {
    // A failed request leaves nothing to replay: release the key so a retry runs again.
    await db
      .delete(idempotencyKeys)
      .where(where)
      .catch(() => undefined);
    throw error;
  }
  await db
    .update(idempotencyKeys)
    .set({ status: 'done', responseStatus: outcome.status, responseBody: { data: outcome.output }, lockedUntil: null })
    .where(where);
  return { replayed: false, outcome };
}
