import { and, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Database, Queryable, Transaction } from '../platform/db/port.js';
import { ApiError, isApiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { parseOrThrow } from '../platform/validation.js';
import { runEvents, runs, type RunError, type RunStatus } from '../schema/runs.js';
import {
  DEFAULT_RETRY,
  NonRetryableError,
  RunSuperseded,
  type CommitScope,
  type Pipeline,
  type RetryPolicy,
  type RunEventDraft,
  type StageResult,
  type StartRunParams,
} from './pipeline.js';
import type { EnginePorts } from './ports.js';
import type { DeliveryReceipt, PublishRequest } from './transport/port.js';
import {
  appendEvents,
  isTerminal,
  jsonbMerge,
  loadRun,
  loadWorkspaceRun,
  toRunView,
  type RunRow,
} from './run-store.js';

/** The body of every stage delivery, validated before anything else reads it. */
export const StageMessage = z
  .object({ run_id: z.uuid(), stage: z.string().min(1), version: z.number().int().min(0) })
  .strict();
export type StageMessage = z.infer<typeof StageMessage>;

export type DeliveryOutcome =
  | 'done' // the stage ran and its result committed
  | 'ignored' // terminal run, stale stage or version, paused run: acknowledged, nothing done
  | 'busy' // another delivery holds the stage: the queue should try again later
  | 'unknown_kind';

const DEFAULT_DEADLINE_MS = 30_000;
/** A lease outlives the deadline by this much, so a slow commit is not mistaken for a crash. */
const LEASE_MARGIN_MS = 15_000;
/** How overdue a run must be before the sweeper assumes its delivery was lost. */
const SWEEP_GRACE_MS = 60_000;

/** A delivery to publish once the transaction that made it has committed. */
interface Kick {
  runId: string;
  kind: string;
  stage: string;
  version: number;
  delaySeconds: number;
}

/** One guarded change of a run row (see #transition). */
interface Transition {
  set: PgUpdateSetSource<typeof runs>;
  events?: readonly RunEventDraft[];
  /** Conditions beyond "same id, same version". */
  guard?: SQL | undefined;
  /** Whether the change supersedes deliveries of the current version (default true; a lease does not). */
  bump?: boolean;
}

/**
 * The stage runner (architecture, "A run"). Every delivery is idempotent: it loads the run, ignores
 * itself unless it names the current stage and version, leases the stage, runs it with a deadline,
 * and commits output + events + the next state in one transaction guarded by the version column.
 * The next delivery is published after the commit; the sweeper re-publishes any that was lost.
 *
 * The engine depends only on EnginePorts; `S` is whatever its pipelines' stages receive.
 */
export class RunEngine<S extends EnginePorts = EnginePorts> {
  readonly #pipelines = new Map<string, Pipeline<S>>();
  readonly #services: () => S;
  /** Aborted by stop(): every stage's signal follows it. */
  readonly #stopping = new AbortController();

  constructor(services: () => S, pipelines: readonly Pipeline<S>[] = []) {
    this.#services = services;
    for (const p of pipelines) this.register(p);
  }

  register(pipeline: Pipeline<S>): void {
    if (this.#pipelines.has(pipeline.kind)) throw new Error(`pipeline ${pipeline.kind} registered twice`);
    for (const stage of pipeline.order)
      if (!pipeline.stages[stage]) throw new Error(`pipeline ${pipeline.kind}: stage ${stage} has no function`);
    this.#pipelines.set(pipeline.kind, pipeline);
  }

  pipeline(kind: string): Pipeline<S> | undefined {
    return this.#pipelines.get(kind);
  }

  /**
   * The process is stopping: every stage running now sees its signal aborted and stops at its next
   * yield point (its failure is recorded as a retry, so the run goes on at the next start), and a
   * delivery arriving after this answers `busy` without running anything.
   */
  stop(): void {
    this.#stopping.abort(new Error('the process is stopping'));
  }

  // ---- starting ------------------------------------------------------------------------------

  /** Insert a run (queued, first event appended) and publish its first delivery after the commit. */
  async start(params: StartRunParams): Promise<{ runId: string }> {
    const kicks: Kick[] = [];
    const result = await this.#db().transaction(async (tx) => this.#insertRun(tx, params, kicks));
    await this.#publish(kicks);
    return result;
  }

  /**
   * Run `fn` in a transaction that may start runs (directly or by emitting events); their first
   * deliveries are published once it commits, and nothing is published if it rolls back.
   */
  async transaction<T>(fn: (scope: CommitScope) => Promise<T>): Promise<T> {
    const kicks: Kick[] = [];
    const result = await this.#db().transaction(async (tx) => fn(this.#commitScope(tx, kicks)));
    await this.#publish(kicks);
    return result;
  }

  /** Start runs inside a caller's transaction; call the returned function after it commits. */
  async startInTransaction(
    tx: Transaction,
    params: StartRunParams,
  ): Promise<{ runId: string; publish: () => Promise<void> }> {
    const kicks: Kick[] = [];
    const { runId } = await this.#insertRun(tx, params, kicks);
    return { runId, publish: () => this.#publish(kicks) };
  }

  async #insertRun(tx: Transaction, params: StartRunParams, kicks: Kick[]): Promise<{ runId: string }> {
    const [started] = await this.#insertRuns(tx, [params], kicks);
    return started!;
  }

  /** Insert runs (queued, first events) in two statements whatever their number; kicks are published after the commit. */
  async #insertRuns(tx: Transaction, list: readonly StartRunParams[], kicks: Kick[]): Promise<{ runId: string }[]> {
    if (list.length === 0) return [];
    const now = this.#now();
    const rows = list.map((params) => {
      const pipeline = this.#pipelines.get(params.kind);
      if (!pipeline) throw new Error(`no pipeline for run kind ${params.kind}`);
      const stage = params.stage ?? pipeline.order[0];
      if (!stage || !pipeline.stages[stage]) throw new Error(`pipeline ${params.kind} has no stage ${String(stage)}`);
      const delaySeconds = params.delaySeconds ?? 0;
      return { params, stage, delaySeconds, runId: params.runId ?? newId() };
    });
    await tx.insert(runs).values(
      rows.map(({ params, stage, delaySeconds, runId }) => ({
        id: runId,
        workspaceId: params.workspaceId,
        kind: params.kind,
        status: 'queued' as const,
        stage,
        version: 0,
        input: params.input ?? {},
        state: params.state ?? {},
        createdBy: params.createdBy ?? params.caller?.user_id ?? null,
        caller: params.caller ?? null,
        parentRunId: params.parentRunId ?? null,
        lastSeq: 1,
        dueAt: new Date(now.getTime() + delaySeconds * 1000),
        createdAt: now,
        updatedAt: now,
      })),
    );
    await tx.insert(runEvents).values(
      rows.map(({ params, stage, runId }) => ({
        runId,
        workspaceId: params.workspaceId,
        seq: 1,
        type: 'run.queued',
        data: { status: 'queued', stage },
        createdAt: now,
      })),
    );
    for (const { params, stage, delaySeconds, runId } of rows)
      kicks.push({ runId, kind: params.kind, stage, version: 0, delaySeconds });
    return rows.map(({ runId }) => ({ runId }));
  }

  // ---- delivering ----------------------------------------------------------------------------

  /**
   * Handle one delivery of a stage message (any number of times, in any order, concurrently). With a
   * receipt from a transport that can join the commit, the delivery is acknowledged inside it.
   */
  async handleDelivery(kind: string, body: unknown, receipt?: DeliveryReceipt): Promise<DeliveryOutcome> {
    const pipeline = this.#pipelines.get(kind);
    if (!pipeline) return 'unknown_kind';
    const message = parseOrThrow(StageMessage, body);
    if (this.#stopping.signal.aborted) return 'busy';
    const deadlineMs = pipeline.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const leaseToken = newId();
    // The steady path, one statement: lease a running run that is at this stage and version.
    let claimed = await this.#claimRunning(kind, message, leaseToken, deadlineMs);
    if (!claimed) {
      const row = await loadRun(this.#db(), message.run_id);
      if (!row || row.kind !== kind) return 'ignored';
      if (isTerminal(row.status) || row.status === 'awaiting_input') return 'ignored';
      if (row.stage !== message.stage || row.version !== message.version) return 'ignored';
      claimed = await this.#claim(row, leaseToken, deadlineMs);
      if (!claimed) {
        const current = await loadRun(this.#db(), message.run_id);
        const stillCurrent =
          current &&
          !isTerminal(current.status) &&
          current.stage === message.stage &&
          current.version === message.version;
        return stillCurrent ? 'busy' : 'ignored';
      }
    }
    const retry = pipeline.retry ?? DEFAULT_RETRY;
    if (claimed.attempt > retry.maxAttempts) {
      await this.#commitResult(
        pipeline,
        claimed,
        leaseToken,
        {
          fail: {
            code: 'attempts_exhausted',
            message: `Stage ${message.stage} did not finish in ${retry.maxAttempts} attempts.`,
          },
        },
        receipt,
      );
      return 'done';
    }

    const stage = pipeline.stages[message.stage];
    if (!stage) {
      await this.#commitResult(
        pipeline,
        claimed,
        leaseToken,
        { fail: { code: 'unknown_stage', message: `Pipeline ${kind} has no stage ${message.stage}.` } },
        receipt,
      );
      return 'done';
    }

    const lease = claimed;
    const cancel = new AbortController();
    const signal = AbortSignal.any([cancel.signal, AbortSignal.timeout(deadlineMs), this.#stopping.signal]);
    const checkpoint = async () => {
      const current = await loadRun(this.#db(), lease.id);
      if (
        !current ||
        current.version !== lease.version ||
        current.leaseToken !== leaseToken ||
        isTerminal(current.status)
      ) {
        cancel.abort(new RunSuperseded('run changed while the stage ran'));
        throw new RunSuperseded('run changed while the stage ran');
      }
      if (signal.aborted)
        throw new ApiError('service_unavailable', `Stage ${message.stage} passed its ${deadlineMs} ms deadline.`);
    };

    const emit = (events: readonly RunEventDraft[]) => this.#emit(lease, leaseToken, events);

    let result: StageResult;
    try {
      result = await stage({ run: toRunView(claimed), services: this.#services(), signal, checkpoint, emit });
    } catch (error) {
      if (error instanceof RunSuperseded) return 'ignored';
      await this.#handleStageError(pipeline, claimed, leaseToken, retry, error);
      return 'done';
    }
    await this.#commitResult(pipeline, claimed, leaseToken, result, receipt);
    return 'done';
  }

  /**
   * Events appended while a stage runs (StageContext.emit): last_seq is advanced in the same guarded
   * statement the commit uses (same version, this lease), so the commit's own events follow them.
   */
  async #emit(lease: RunRow, leaseToken: string, events: readonly RunEventDraft[]): Promise<boolean> {
    if (events.length === 0) return true;
    const now = this.#now();
    const appended = await this.#db().transaction(async (tx) => {
      const [row] = await tx
        .update(runs)
        .set({ lastSeq: sql`${runs.lastSeq} + ${events.length}` })
        .where(and(eq(runs.id, lease.id), eq(runs.version, lease.version), eq(runs.leaseToken, leaseToken)))
        .returning({ lastSeq: runs.lastSeq });
      if (!row) return false;
      await appendEvents(tx, lease, row.lastSeq - events.length, events, now);
      return true;
    });
    if (appended) this.#services().runNotifier.notify(lease.id);
    return appended;
  }

  /** Lease a run already running at the message's stage and version, free of any live lease: one statement. */
  async #claimRunning(
    kind: string,
    message: StageMessage,
    leaseToken: string,
    deadlineMs: number,
  ): Promise<RunRow | null> {
    const now = this.#now();
    const [claimed] = await this.#db()
      .update(runs)
      .set({
        leaseToken,
        leaseUntil: new Date(now.getTime() + deadlineMs + LEASE_MARGIN_MS),
        attempt: sql`${runs.attempt} + 1`,
        totalAttempts: sql`${runs.totalAttempts} + 1`,
        updatedAt: now,
      })
      .where(
        and(
          eq(runs.id, message.run_id),
          eq(runs.kind, kind),
          eq(runs.status, 'running'),
          eq(runs.stage, message.stage),
          eq(runs.version, message.version),
          or(isNull(runs.leaseUntil), lt(runs.leaseUntil, now)),
        ),
      )
      .returning();
    return claimed ?? null;
  }

  /**
   * The one compare-and-set of a run row: apply `set` if the row still has `run`'s version (and the
   * guard holds), bump the version unless told not to, advance last_seq by the events and append them.
   * Null when the run moved on meanwhile. Events need `db` to be a transaction.
   */
  async #transition(db: Queryable, run: RunRow, change: Transition, now: Date): Promise<RunRow | null> {
    const events = change.events ?? [];
    const [updated] = await db
      .update(runs)
      .set({
        ...change.set,
        ...(change.bump === false ? {} : { version: sql`${runs.version} + 1` }),
        ...(events.length > 0 ? { lastSeq: sql`${runs.lastSeq} + ${events.length}` } : {}),
        updatedAt: now,
      })
      .where(and(eq(runs.id, run.id), eq(runs.version, run.version), change.guard))
      .returning();
    if (!updated) return null;
    await appendEvents(db, run, updated.lastSeq - events.length, events, now);
    return updated;
  }

  /** Take the stage's lease: count the attempt, mark the run running. Null when someone holds it. */
  async #claim(row: RunRow, leaseToken: string, deadlineMs: number): Promise<RunRow | null> {
    const now = this.#now();
    const change: Transition = {
      set: {
        leaseToken,
        leaseUntil: new Date(now.getTime() + deadlineMs + LEASE_MARGIN_MS),
        attempt: sql`${runs.attempt} + 1`,
        totalAttempts: sql`${runs.totalAttempts} + 1`,
        status: 'running',
        startedAt: sql`coalesce(${runs.startedAt}, ${now.toISOString()}::timestamptz)`,
      },
      guard: and(
        eq(runs.status, row.status),
        inArray(runs.status, ['queued', 'running']),
        or(isNull(runs.leaseUntil), lt(runs.leaseUntil, now)),
      ),
      // A lease is not a new state: deliveries of this version stay current, so a lost lease can be retaken.
      bump: false,
    };
    // Only the first claim of a queued run appends an event; later claims are one statement.
    if (row.status !== 'queued') return this.#transition(this.#db(), row, change, now);
    return this.#db().transaction((tx) =>
      this.#transition(
        tx,
        row,
        { ...change, events: [{ type: 'run.started', data: { status: 'running', stage: row.stage } }] },
        now,
      ),
    );
  }

  async #commitResult(
    pipeline: Pipeline<S>,
    run: RunRow,
    leaseToken: string,
    result: StageResult,
    receipt?: DeliveryReceipt,
  ): Promise<void> {
    const stage = run.stage ?? '';
    const now = this.#now();
    const events: RunEventDraft[] = [...(result.events ?? [])];
    if (!('fail' in result)) events.push({ type: 'stage.completed', data: { stage, attempt: run.attempt } });
    let status: RunStatus;
    let nextStage: string | null = null;
    let delaySeconds = 0;
    let error: RunError | null = null;
    let pendingInput = null;
    if ('fail' in result) {
      status = 'failed';
      error = { code: result.fail.code, message: result.fail.message, stage };
      events.push({ type: 'run.failed', data: { status, error } });
    } else if ('complete' in result) {
      status = 'complete';
      events.push({ type: 'run.completed', data: { status } });
    } else if ('pause' in result) {
      status = 'awaiting_input';
      nextStage = result.next;
      pendingInput = result.pause;
      events.push({ type: 'run.awaiting_input', data: { status, pending_input: result.pause } });
    } else {
      status = 'running';
      nextStage = result.next;
      delaySeconds = result.delaySeconds ?? 0;
      if (!pipeline.stages[nextStage])
        throw new Error(`pipeline ${pipeline.kind}: stage ${stage} returned unknown next stage ${nextStage}`);
    }
    const terminal = isTerminal(status);
    const kicks: Kick[] = [];
    let acknowledged = false;
    let afterCommit: (() => void) | undefined;
    const committed = await this.#db().transaction(async (tx) => {
      const updated = await this.#transition(
        tx,
        run,
        {
          set: {
            status,
            stage: nextStage,
            // A committed stage is a finished step; a stage that schedules itself again starts afresh.
            attempt: 0,
            outputs: jsonbMerge(runs.outputs, { [stage]: result.output ?? null }),
            state: jsonbMerge(runs.state, result.state ?? {}),
            pendingInput,
            error,
            dueAt: nextStage && status === 'running' ? new Date(now.getTime() + delaySeconds * 1000) : null,
            leaseToken: null,
            leaseUntil: null,
            completedAt: terminal ? now : null,
          },
          events,
          guard: eq(runs.leaseToken, leaseToken),
        },
        now,
      );
      if (!updated) return null;
      const scope = this.#commitScope(tx, kicks);
      if (result.effects) await result.effects(scope);
      if (terminal && pipeline.onTerminal) await pipeline.onTerminal({ ...toRunView(updated), status }, scope);
      if (nextStage && status === 'running') {
        kicks.push({ runId: run.id, kind: run.kind, stage: nextStage, version: updated.version, delaySeconds });
      }
      // A transport in this database takes part: the next deliveries and this one's acknowledgement commit with the result.
      const queue = this.#services().queue.within?.(tx);
      if (queue) {
        await queue.publishMany(kicks.splice(0).map(toPublishRequest));
        if (receipt) {
          await queue.acknowledge(receipt.messageId);
          acknowledged = true;
        }
        afterCommit = () => queue.afterCommit();
      }
      return updated;
    });
    if (!committed) return;
    if (receipt && acknowledged) receipt.acknowledged = true;
    afterCommit?.();
    await this.#publish(kicks);
    this.#services().runNotifier.notify(run.id);
  }

  async #handleStageError(
    pipeline: Pipeline<S>,
    run: RunRow,
    leaseToken: string,
    retry: RetryPolicy,
    error: unknown,
  ): Promise<void> {
    const log = this.#services().log;
    const retryable = !(error instanceof NonRetryableError) && (!isApiError(error) || error.retry);
    const code = error instanceof NonRetryableError ? error.code : isApiError(error) ? error.code : 'internal';
    // Unknown errors are recorded by class only: their text may carry internals or secrets.
    const message =
      error instanceof NonRetryableError || isApiError(error)
        ? error.message
        : `Stage ${run.stage} failed unexpectedly.`;
    if (!retryable || run.attempt >= retry.maxAttempts) {
      log.warn('stage failed; run fails', {
        run_id: run.id,
        kind: run.kind,
        stage: run.stage,
        attempt: run.attempt,
        error,
      });
      const reason = retryable ? `${message} (gave up after ${run.attempt} attempts)` : message;
      await this.#commitResult(pipeline, run, leaseToken, { fail: { code, message: reason } });
      return;
    }
    const delayMs = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (run.attempt - 1));
    log.info('stage failed; retrying', {
      run_id: run.id,
      stage: run.stage,
      attempt: run.attempt,
      delay_ms: delayMs,
      error,
    });
    const now = this.#now();
    const committed = await this.#db().transaction((tx) =>
      this.#transition(
        tx,
        run,
        {
          set: { dueAt: new Date(now.getTime() + delayMs), leaseToken: null, leaseUntil: null },
          events: [
            {
              type: 'stage.retrying',
              data: { stage: run.stage, attempt: run.attempt, delay_ms: delayMs, error: { code, message } },
            },
          ],
          guard: eq(runs.leaseToken, leaseToken),
        },
        now,
      ),
    );
    if (!committed) return;
    await this.#publish([
      {
        runId: run.id,
        kind: run.kind,
        stage: run.stage ?? '',
        version: committed.version,
        delaySeconds: delayMs / 1000,
      },
    ]);
    this.#services().runNotifier.notify(run.id);
  }

  #commitScope(tx: Transaction, kicks: Kick[]): CommitScope {
    return {
      tx,
      now: this.#now(),
      startRun: (params) => this.#insertRun(tx, params, kicks),
      startRuns: (list) => this.#insertRuns(tx, list, kicks),
      wakeRun: async (runId) => {
        const row = await loadRun(tx, runId);
        if (row?.status !== 'running' || !row.stage) return;
        const now = this.#now();
        // A leased run is mid-stage: it will look again when that stage ends, so leave it be.
        const updated = await this.#transition(
          tx,
          row,
          { set: { dueAt: now }, guard: or(isNull(runs.leaseUntil), lt(runs.leaseUntil, now)) },
          now,
        );
        if (updated?.stage)
          kicks.push({ runId, kind: updated.kind, stage: updated.stage, version: updated.version, delaySeconds: 0 });
      },
    };
  }

  // ---- control -------------------------------------------------------------------------------

  /**
   * Cancel a non-terminal run at once (the worker notices at its next checkpoint or when its commit
   * fails the version check), and with it every non-terminal run it started (children, their
   * children). A terminal run is left as it is; the caller decides how to answer.
   */
  async cancel(
    workspaceId: string,
    runId: string,
    kinds?: readonly string[],
    reason?: string,
  ): Promise<{ canceled: boolean; status: RunStatus }> {
    const now = this.#now();
    const kicks: Kick[] = [];
    const notified: string[] = [];
    const outcome = await this.#db().transaction(async (tx) => {
      const row = await loadWorkspaceRun(tx, workspaceId, runId, kinds);
      if (isTerminal(row.status)) return { canceled: false, status: row.status };
      const canceled = await this.#cancelRow(tx, row, reason ? { reason } : {}, now, kicks);
      if (!canceled)
        throw new ApiError('version_conflict', 'The run changed while it was being canceled; read it and retry.', {
          run_id: runId,
        });
      notified.push(runId);
      for (const child of await this.#openDescendants(tx, runId)) {
        if (await this.#cancelRow(tx, child, { reason: 'parent run canceled', parent_run_id: runId }, now, kicks))
          notified.push(child.id);
      }
      return { canceled: true, status: 'canceled' as RunStatus };
    });
    await this.#publish(kicks);
    for (const id of notified) this.#services().runNotifier.notify(id);
    return outcome;
  }

  async #cancelRow(
    tx: Transaction,
    row: RunRow,
    data: Record<string, unknown>,
    now: Date,
    kicks: Kick[],
  ): Promise<boolean> {
    const updated = await this.#transition(
      tx,
      row,
      {
        set: {
          status: 'canceled',
          stage: null,
          pendingInput: null,
          leaseToken: null,
          leaseUntil: null,
          dueAt: null,
          completedAt: now,
        },
        events: [{ type: 'run.canceled', data: { status: 'canceled', ...data } }],
      },
      now,
    );
    if (!updated) return false;
    const pipeline = this.#pipelines.get(updated.kind);
    if (pipeline?.onTerminal)
      await pipeline.onTerminal({ ...toRunView(updated), status: 'canceled' }, this.#commitScope(tx, kicks));
    return true;
  }

  /** Every non-terminal run below `runId` (children, grandchildren...), parents before children. */
  async #openDescendants(tx: Transaction, runId: string): Promise<RunRow[]> {
    const found: RunRow[] = [];
    let frontier = [runId];
    // Bounded: delegation depth is small, and a cycle is impossible (a child is created after its parent).
    for (let depth = 0; depth < 16 && frontier.length > 0; depth++) {
      const children = await tx.select().from(runs).where(inArray(runs.parentRunId, frontier));
      frontier = children.map((c) => c.id);
      found.push(...children.filter((c) => !isTerminal(c.status)));
    }
    return found;
  }

  /**
   * Answer a paused run. The reply is validated against the pause's schema; a mismatch leaves the
   * run unchanged (`invalid_input`), a run that is not paused answers `invalid_state`.
   */
  async resume(
    workspaceId: string,
    runId: string,
    reply: unknown,
    kinds?: readonly string[],
  ): Promise<{ status: RunStatus; runId: string }> {
    const now = this.#now();
    const kicks: Kick[] = [];
    await this.#db().transaction(async (tx) => {
      const row = await loadWorkspaceRun(tx, workspaceId, runId, kinds);
      if (row.status !== 'awaiting_input' || !row.pendingInput || !row.stage) {
        throw new ApiError('invalid_state', `The run is ${row.status}, not awaiting input.`, {
          current_status: row.status,
        });
      }
      const pipeline = this.#pipelines.get(row.kind);
      if (!pipeline?.resume)
        throw new ApiError('invalid_state', 'This run cannot be resumed.', { current_status: row.status });
      const parsed = pipeline.resume.schema(row.pendingInput).safeParse(reply);
      if (!parsed.success) {
        throw new ApiError('invalid_input', 'The reply does not match what the run asked for.', {
          validation_error: parsed.error.issues.map((i) => ({ field: i.path.join('.'), problem: i.message })),
        });
      }
      const statePatch = pipeline.resume.apply(parsed.data, toRunView(row));
      const updated = await this.#transition(
        tx,
        row,
        {
          set: {
            status: 'queued',
            attempt: 0,
            pendingInput: null,
            state: jsonbMerge(runs.state, statePatch),
            dueAt: now,
          },
          events: [{ type: 'run.resumed', data: { status: 'queued', stage: row.stage } }],
        },
        now,
      );
      if (!updated)
        throw new ApiError('version_conflict', 'The run changed while it was being resumed; read it and retry.', {
          run_id: runId,
        });
      kicks.push({ runId, kind: row.kind, stage: row.stage, version: updated.version, delaySeconds: 0 });
    });
    await this.#publish(kicks);
    this.#services().runNotifier.notify(runId);
    return { status: 'queued', runId };
  }

  /**
   * Re-publish the current stage of runs that are overdue and not leased: recovers a delivery lost
   * between a commit and its publish, or dropped by a transport. Duplicates are harmless.
   */
  async sweep(limit = 500): Promise<number> {
    const now = this.#now();
    const overdue = await this.#db()
      .select({ id: runs.id, kind: runs.kind, stage: runs.stage, version: runs.version })
      .from(runs)
      .where(
        and(
          inArray(runs.status, ['queued', 'running']),
          lt(runs.dueAt, new Date(now.getTime() - SWEEP_GRACE_MS)),
          or(isNull(runs.leaseUntil), lt(runs.leaseUntil, now)),
        ),
      )
      .limit(limit);
    await this.#publish(
      overdue
        .filter((r) => r.stage)
        .map((r) => ({ runId: r.id, kind: r.kind, stage: r.stage ?? '', version: r.version, delaySeconds: 0 })),
    );
    return overdue.length;
  }

  // ---- plumbing ------------------------------------------------------------------------------

  async #publish(kicks: readonly Kick[]): Promise<void> {
    const { queue, log } = this.#services();
    const requests = kicks.map(toPublishRequest);
    // The runs are committed and due; a publish that fails is left to the sweeper. Never fail the caller.
    if (requests.length > 1 && queue.publishMany) {
      try {
        await queue.publishMany(requests);
      } catch (error) {
        log.error('publishing stage deliveries failed; the sweeper will retry', { count: requests.length, error });
      }
      return;
    }
    for (const request of requests) {
      try {
        await queue.publish(request);
      } catch (error) {
        log.error('publishing a stage delivery failed; the sweeper will retry', {
          run_id: request.body.run_id,
          stage: request.body.stage,
          error,
        });
      }
    }
  }

  #db(): Database {
    return this.#services().db;
  }

  #now(): Date {
    return this.#services().clock.now();
  }
}

export type { Queryable };

function toPublishRequest(kick: Kick): PublishRequest {
  return {
    kind: kick.kind,
    body: { run_id: kick.runId, stage: kick.stage, version: kick.version },
    ...(kick.delaySeconds > 0 ? { delaySeconds: kick.delaySeconds } : {}),
    deduplicationId: `${kick.runId}:${kick.stage}:${kick.version}`,
  };
}
