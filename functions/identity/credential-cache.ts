import { sql } from 'drizzle-orm';
import type { Database } from '../../platform/db/port.js';
import { ApiError, type ErrorCode } from '../../platform/errors.js';
import type { Caller } from './caller.js';

/**
 * Verified credentials, kept in memory so the steady path authenticates without the database
 * (per process on Node, per isolate on Workers). Bounded (least recently used out first) and
 * short-lived: an entry is trusted for at most CREDENTIAL_CACHE_TTL_MS, so a revocation or a
 * membership change made elsewhere (another isolate, the admin CLI) takes effect within that time;
 * made through this process, it takes effect at once (the writers below invalidate). Refusals that
 * do not change by themselves (unknown, revoked or expired credential, a removed member) are kept
 * too, so a flood of bad keys does not reach the database. The key is a SHA-256 of the presented
 * credential, never the credential.
 */
export const CREDENTIAL_CACHE_TTL_MS = 30_000;
export const CREDENTIAL_CACHE_MAX_ENTRIES = 10_000;

type Entry =
  | { kind: 'caller'; caller: Caller; storedAt: number; expiresAt: number | null; grantId: string | null }
  | {
      kind: 'refusal';
      code: ErrorCode;
      message: string;
      storedAt: number;
      userId: string | null;
      credentialId: string | null;
    };

/** The codes whose answer is stable for a while: worth remembering. */
const CACHEABLE_REFUSALS: ReadonlySet<ErrorCode> = new Set(['invalid_token', 'expired_token', 'forbidden']);

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = CREDENTIAL_CACHE_TTL_MS,
    private readonly maxEntries = CREDENTIAL_CACHE_MAX_ENTRIES,
  ) {}

  /** A cached verdict: the caller, or the refusal rethrown; undefined on a miss. */
  lookup(key: string, now: Date): Caller | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now.getTime() - entry.storedAt > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last, so eviction takes the oldest.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (entry.kind === 'refusal') throw new ApiError(entry.code, entry.message);
    if (entry.expiresAt !== null && entry.expiresAt <= now.getTime()) {
      // Expiry is exact, not up to the TTL.
      throw new ApiError('expired_token', 'The credential has expired.');
    }
    return entry.caller;
  }

  remember(key: string, caller: Caller, now: Date, facts: { expiresAt: Date | null; grantId: string | null }): void {
    this.put(key, {
      kind: 'caller',
      caller,
      storedAt: now.getTime(),
      expiresAt: facts.expiresAt?.getTime() ?? null,
      grantId: facts.grantId,
    });
  }

  rememberRefusal(key: string, error: unknown, now: Date): void {
    if (!(error instanceof ApiError) || !CACHEABLE_REFUSALS.has(error.code)) return;
    this.put(key, {
      kind: 'refusal',
      code: error.code,
      message: error.message,
      storedAt: now.getTime(),
      userId: null,
      credentialId: null,
    });
  }

  /** A key, token or session id was revoked. */
  forgetCredential(credentialId: string): void {
    this.forgetWhere((e) =>
      e.kind === 'caller' ? e.caller.credentialId === credentialId : e.credentialId === credentialId,
    );
  }

  /** A member's membership changed (role, removal, addition): every credential of theirs is re-read. */
  forgetUser(userId: string): void {
    this.forgetWhere((e) => (e.kind === 'caller' ? e.caller.userId === userId : true));
  }

  /** An OAuth grant was revoked: every access token issued from it. */
  forgetGrant(grantId: string): void {
    this.forgetWhere((e) => e.kind === 'caller' && e.grantId === grantId);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private put(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  private forgetWhere(matches: (entry: Entry) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry)) this.entries.delete(key);
  }
}

/** The one cache of this process (isolate): revocations made here invalidate it for every app in it. */
export const credentialCache = new CredentialCache();

/**
 * `last_used_at` of API keys, written behind: a use is noted in memory, and what is due (a key not
 * written for a minute) is written in one statement for every key pending, after the response, off
 * the request's path. Per process (isolate), like the cache.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

export class LastUsedRecorder {
  private readonly writtenAt = new Map<string, number>();
  private pending = new Map<string, Date>();
  private inFlight: Promise<void> | null = null;

  /** The key was used now; `knownWrittenAt` is what the database holds, when the caller just read it. */
  note(keyId: string, now: Date, knownWrittenAt?: Date | null): void {
    if (knownWrittenAt !== undefined) this.writtenAt.set(keyId, knownWrittenAt?.getTime() ?? 0);
    const last = this.writtenAt.get(keyId) ?? 0;
    if (now.getTime() - last <= LAST_USED_RESOLUTION_MS) return;
    this.writtenAt.set(keyId, now.getTime());
    this.pending.set(keyId, now);
    if (this.writtenAt.size > CREDENTIAL_CACHE_MAX_ENTRIES)
      this.writtenAt.delete(this.writtenAt.keys().next().value as string);
  }

  /** Start writing what is pending, unless a write is already under way; the promise never rejects. */
  flushInBackground(db: Database, onError: (error: unknown) => void): Promise<void> | null {
    if (this.pending.size === 0 || this.inFlight) return null;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([id, at]) => sql`(${id}::uuid, ${at.toISOString()}::timestamptz)`);
    this.inFlight = db
      .execute(
        sql`update api_keys as k set last_used_at = u.used_at
            from (values ${sql.join(rows, sql`, `)}) as u(id, used_at)
            where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.used_at)`,
      )
      .then(
        () => undefined,
        (error: unknown) => onError(error),
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  /** Resolves once no write is under way (tests, and a Worker before it closes its pool). */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }
}

export const lastUsedRecorder = new LastUsedRecorder();
