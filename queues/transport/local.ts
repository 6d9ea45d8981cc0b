import { and, asc, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/log.js';
import { queueDeliveries } from '../../schema/runs.js';
import type { Queryable } from '../../platform/db/port.js';
import type { PublishRequest, PublishResult, QueueTransport, SigningKeys, TransactionalQueue } from './port.js';
import { ACKNOWLEDGED_HEADER, stageEndpointUrl } from './port.js';
import { signDelivery } from './signing.js';

/** How a delivery reaches the stage endpoint in-process: the app's own fetch. */
export type Deliver = (request: Request) => Promise<Response>;

export interface LocalTransportOptions {
  publicUrl: string;
  keys: SigningKeys;
  clock: Clock;
  db: Database;
  log: Logger;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** Attempts per message before it is dropped (the sweeper recovers its run). */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt, capped at maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long a dispatcher holds a delivery before another may take it (crash recovery). */
  lockMs?: number;
}

type DeliveryRow = typeof queueDeliveries.$inferSelect;

/**
 * Longest single wait of the dispatch loop: it claims from the database at least this often, which
 * picks up deliveries it was not told about (a previous process's, another writer's, expired locks).
 */
const MAX_IDLE_MS = 30_000;

/**
 * The embedded default's queue: at-least-once, like QStash. Deliveries live in the database until
 * the stage endpoint acknowledges them with a 2xx, so a restart resumes every pending one. Each is
 * signed like QStash and posted to the same stage endpoint; a non-2xx is retried with exponential
 * backoff; delays and deduplication ids are honoured; at most `concurrency` run at once.
 */
export class LocalTransport implements QueueTransport {
  readonly name = 'local' as const;
  readonly #o: Required<LocalTransportOptions>;
  #deliver: Deliver | null = null;
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #stopped = false;
  #wake: (() => void) | null = null;
  /** Set by every wake-up; a loop about to sleep sees it and goes round again instead (no lost wake-ups). */
  #woken = false;
  /** Something may be due now that the schedule does not know of (start, a publish, drain): claim on the next round. */
  #claimWanted = true;
  /**
   * When each delivery this transport wrote or rescheduled comes due (ms). The dispatcher sleeps and
   * claims by it instead of asking the database when the next one is due; the database stays the
   * truth (a claim takes whatever is due) and is asked at least every MAX_IDLE_MS.
   */
  readonly #schedule = new Map<string, number>();
  #lastClaimAt = 0;
  #loop: Promise<void> | null = null;

  constructor(options: LocalTransportOptions) {
    this.#o = { concurrency: 4, maxAttempts: 10, backoffMs: 500, maxBackoffMs: 60_000, lockMs: 60_000, ...options };
  }

  /** Bind the stage endpoint and start dispatching (pending deliveries from a previous process first). */
  attach(deliver: Deliver): void {
    this.#deliver = deliver;
    if (this.#running || this.#stopped) return;
    this.#running = true;
    this.#loop = this.#dispatchLoop().catch((error: unknown) => {
      this.#o.log.error('local queue dispatcher stopped', { error });
    });
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    const [id] = await this.#insert([request]);
    return { messageId: id ?? '' };
  }

  async publishMany(requests: readonly PublishRequest[]): Promise<void> {
    await this.#insert(requests);
  }

  async #insert(requests: readonly PublishRequest[]): Promise<string[]> {
    const ids = await this.#write(this.#o.db, requests);
    this.#signal(true);
    return ids;
  }

  async #write(db: Queryable, requests: readonly PublishRequest[]): Promise<string[]> {
    if (requests.length === 0) return [];
    const now = this.#o.clock.now().getTime();
    const rows = requests.map((request) => ({
      id: newId(),
      kind: request.kind,
      body: request.body,
      deduplicationId: request.deduplicationId ?? null,
      deliverAt: new Date(now + Math.max(0, request.delaySeconds ?? 0) * 1000),
    }));
    await db.insert(queueDeliveries).values(rows).onConflictDoNothing();
    for (const row of rows) this.#schedule.set(row.id, row.deliverAt.getTime());
    return rows.map((r) => r.id);
  }

  /** The engine's commit writes the next deliveries and acknowledges the current one in its own transaction. */
  within(tx: Queryable): TransactionalQueue {
    let wrote = false;
    return {
      publishMany: async (requests) => {
        wrote = (await this.#write(tx, requests)).length > 0 || wrote;
      },
      acknowledge: async (messageId) => {
        await tx.delete(queueDeliveries).where(eq(queueDeliveries.id, messageId));
      },
      afterCommit: () => this.#signal(wrote),
    };
  }

  /** Stop taking deliveries and wait for those in flight (clean shutdown). */
  async close(): Promise<void> {
    this.#stopped = true;
    this.#signal(false);
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
  }

  /**
   * Stop at once, abandoning deliveries in flight as a killed process would: their rows stay locked
   * until the lock expires, then a new transport on the same database takes them again.
   */
  crash(): void {
    this.#stopped = true;
    this.#signal(false);
  }

  /** Wake the loop; `claim`: something may be due that the schedule does not show. */
  #signal(claim: boolean): void {
    if (claim) this.#claimWanted = true;
    this.#woken = true;
    this.#wake?.();
  }

  /** Resolve once no delivery is due and none is in flight (tests; delayed ones may remain). */
  async drain(maxRounds = 10_000): Promise<void> {
    for (let round = 0; round < maxRounds; round++) {
      if (this.#inFlight.size > 0) {
        await Promise.race([Promise.allSettled([...this.#inFlight]), new Promise((r) => setTimeout(r, 5))]);
        continue;
      }
      if ((await this.#dueCount()) === 0) {
        // One more look: a delivery that just finished may have published the next one.
        await new Promise((r) => setTimeout(r, 1));
        if (this.#inFlight.size === 0 && (await this.#dueCount()) === 0) return;
        continue;
      }
      this.#signal(true);
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error('local queue did not drain');
  }

  async #dueCount(): Promise<number> {
    const now = this.#o.clock.now();
    const [row] = await this.#o.db
      .select({ n: sql<number>`count(*)::int` })
      .from(queueDeliveries)
      .where(
        and(
          lte(queueDeliveries.deliverAt, now),
          or(isNull(queueDeliveries.lockedUntil), lte(queueDeliveries.lockedUntil, now)),
        ),
      );
    return row?.n ?? 0;
  }

  async #dispatchLoop(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      try {
        this.#woken = false;
        const now = this.#o.clock.now().getTime();
        const free = this.#o.concurrency - this.#inFlight.size;
        const due = this.#claimWanted || this.#earliestScheduled() <= now || now - this.#lastClaimAt >= MAX_IDLE_MS;
        if (free > 0 && due) {
          this.#claimWanted = false;
          this.#lastClaimAt = now;
          const claimed = await this.#claim(free);
          for (const row of claimed) this.#schedule.delete(row.id);
          // Everything due was taken: what the schedule still thinks due was taken elsewhere or rolled back.
          if (claimed.length < free) for (const [id, at] of this.#schedule) if (at <= now) this.#schedule.delete(id);
          for (const row of claimed) {
            const task = this.#dispatch(row)
              .catch((error: unknown) => {
                // The delivery happened or not; its row stays locked and is claimed again when the lock ends.
                this.#schedule.set(row.id, (row.lockedUntil ?? new Date()).getTime());
                this.#o.log.warn('local delivery bookkeeping failed; it will be retried', { kind: row.kind, error });
              })
              .finally(() => {
                this.#inFlight.delete(task);
                this.#signal(false);
              });
            this.#inFlight.add(task);
          }
          failures = 0;
          if (claimed.length > 0 && claimed.length === free) continue;
        }
        await this.#sleepUntilNextDue();
      } catch (error) {
        // The database went away: keep the dispatcher alive and try again with backoff; nothing is lost,
        // every delivery is still a row.
        failures++;
        this.#claimWanted = true;
        const delay = Math.min(this.#o.maxBackoffMs, this.#o.backoffMs * 2 ** Math.min(failures - 1, 10));
        this.#o.log.warn('local queue could not read its deliveries; retrying', {
          attempt: failures,
          delay_ms: delay,
          error,
        });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  #earliestScheduled(): number {
    let earliest = Infinity;
    for (const at of this.#schedule.values()) if (at < earliest) earliest = at;
    return earliest;
  }

  /** Take up to `limit` due deliveries: lock them and count the attempt, in one statement. */
  async #claim(limit: number): Promise<DeliveryRow[]> {
    const now = this.#o.clock.now();
    const due = this.#o.db
      .select({ id: queueDeliveries.id })
      .from(queueDeliveries)
      .where(
        and(
          lte(queueDeliveries.deliverAt, now),
          or(isNull(queueDeliveries.lockedUntil), lte(queueDeliveries.lockedUntil, now)),
        ),
      )
      .orderBy(asc(queueDeliveries.deliverAt), asc(queueDeliveries.id))
      .limit(limit);
    return this.#o.db
      .update(queueDeliveries)
      .set({ lockedUntil: new Date(now.getTime() + this.#o.lockMs), attempt: sql`${queueDeliveries.attempt} + 1` })
      .where(sql`${queueDeliveries.id} in ${due}`)
      .returning();
  }

  async #dispatch(row: DeliveryRow): Promise<void> {
    const url = stageEndpointUrl(this.#o.publicUrl, row.kind);
    const rawBody = JSON.stringify(row.body);
    let failure: string;
    try {
      if (!this.#deliver) throw new Error('no stage endpoint attached');
      const response = await this.#deliver(
        new Request(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'upstash-signature': await signDelivery(this.#o.keys.current, url, rawBody),
            'upstash-message-id': row.id,
            'upstash-retried': String(row.attempt - 1),
          },
          body: rawBody,
        }),
      );
      await response.body?.cancel();
      if (this.#stopped) return; // Abandoned (crash): leave the row locked, as a dead process would.
      if (response.ok) {
        // Usually acknowledged already, inside the engine's commit; otherwise remove it here.
        if (response.headers.get(ACKNOWLEDGED_HEADER) !== '1') {
          await this.#o.db
            .delete(queueDeliveries)
            .where(and(eq(queueDeliveries.id, row.id), eq(queueDeliveries.attempt, row.attempt)));
        }
        return;
      }
      failure = `HTTP ${response.status}`;
    } catch (error) {
      if (this.#stopped) return;
      failure = error instanceof Error ? error.message : String(error);
    }
    if (row.attempt >= this.#o.maxAttempts) {
      this.#o.log.error('local delivery dropped after its last attempt; the run sweeper will re-publish', {
        kind: row.kind,
        body: row.body,
        failure,
      });
      await this.#o.db
        .delete(queueDeliveries)
        .where(and(eq(queueDeliveries.id, row.id), eq(queueDeliveries.attempt, row.attempt)));
      return;
    }
    const delay = Math.min(this.#o.maxBackoffMs, this.#o.backoffMs * 2 ** (row.attempt - 1));
    const deliverAt = new Date(this.#o.clock.now().getTime() + delay);
    await this.#o.db
      .update(queueDeliveries)
      .set({ deliverAt, lockedUntil: null, lastError: failure })
      .where(and(eq(queueDeliveries.id, row.id), eq(queueDeliveries.attempt, row.attempt)));
    this.#schedule.set(row.id, deliverAt.getTime());
  }

  /** Wait until the earliest scheduled delivery comes due (or the next periodic claim), or until woken. */
  async #sleepUntilNextDue(): Promise<void> {
    if (this.#stopped || this.#woken) return;
    const now = this.#o.clock.now().getTime();
    const next = Math.min(this.#earliestScheduled(), this.#lastClaimAt + MAX_IDLE_MS);
    const wait = Math.max(0, next - now);
    if (wait === 0 && this.#inFlight.size < this.#o.concurrency) return;
    const wake = new AbortController();
    this.#wake = () => wake.abort();
    if (this.#woken) {
      this.#wake = null;
      return;
    }
    try {
      await this.#o.clock.sleep(wait === 0 ? MAX_IDLE_MS : wait, wake.signal);
    } catch {
      // Woken early by a publish, a finished delivery or a stop.
    } finally {
      this.#wake = null;
    }
  }
}
