import type { z } from 'zod';
import type { Transaction } from '../platform/db/port.js';
import type { PendingInput, RunCaller, RunError, RunStatus } from '../schema/runs.js';
import type { EnginePorts } from './ports.js';

/** A run as a stage sees it. */
export interface RunView {
  id: string;
  workspaceId: string;
  kind: string;
  status: RunStatus;
  stage: string | null;
  version: number;
  /** Attempt number of the current stage, starting at 1. */
  attempt: number;
  input: Record<string, unknown>;
  state: Record<string, unknown>;
  outputs: Record<string, unknown>;
  createdBy: string | null;
  /** Who started the run (user, role, credential, scopes at start); null for system runs. */
  caller: RunCaller | null;
  parentRunId: string | null;
  /** Why the run failed (set once it has). */
  error: RunError | null;
}

export interface RunEventDraft {
  type: string;
  data?: Record<string, unknown>;
}

/** What a stage may do inside the transaction that commits its result. */
export interface CommitScope {
  tx: Transaction;
  /** The engine clock's time of this commit. */
  now: Date;
  /** Start another run in this transaction; its first delivery is published after the commit. */
  startRun(params: StartRunParams): Promise<{ runId: string }>;
  /** Start many runs at once (a handful of statements whatever their number). */
  startRuns(list: readonly StartRunParams[]): Promise<{ runId: string }[]>;
  /**
   * Bring a running run's current stage forward to now (a parent waiting on a child): its pending
   * delivery is superseded and a new one published after the commit. No-op unless it is running.
   */
  wakeRun(runId: string): Promise<void>;
}

export type StageEffects = (scope: CommitScope) => Promise<void>;

interface StageResultBase<St> {
  /** Saved under the stage's name in `outputs`. */
  output?: unknown;
  /** Shallow-merged into the run's `state`. */
  state?: Partial<St>;
  /** Events appended (in order) with the commit. */
  events?: RunEventDraft[];
  /** Writes that must happen exactly once, committed atomically with the state change. */
  effects?: StageEffects;
}

export type StageResult<St = Record<string, unknown>> =
  | (StageResultBase<St> & { next: string; delaySeconds?: number })
  | (StageResultBase<St> & { pause: PendingInput; next: string })
  | (StageResultBase<St> & { complete: true })
  | (StageResultBase<St> & { fail: { code: string; message: string } });

export interface StageContext<S extends EnginePorts = EnginePorts> {
  run: RunView;
  services: S;
  /** Aborted when the stage's deadline passes or the run is canceled. */
  signal: AbortSignal;
  /** A safe point to stop: throws when the run was canceled or superseded meanwhile. */
  checkpoint(): Promise<void>;
  /**
   * Append events to the run's stream now, ahead of the stage's commit, for progress a reader should
   * see while the stage works (a model's streamed tokens). They stay even if the stage then fails or
   * is retried, so they must not claim anything the commit decides. False, and nothing appended,
   * once this delivery no longer holds the run.
   */
  emit(events: readonly RunEventDraft[]): Promise<boolean>;
}

export type Stage<S extends EnginePorts = EnginePorts> = (ctx: StageContext<S>) => Promise<StageResult>;

export interface RetryPolicy {
  /** Attempts per stage, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 60_000 };

export interface ResumeHandler {
  /** The schema a reply to this pause must match (the same one its JSON Schema was made from). */
  schema: (pending: PendingInput) => z.ZodType;
  /** Turn a valid reply into state for the next stage. */
  apply(reply: unknown, run: RunView): Record<string, unknown>;
}

export interface Pipeline<S extends EnginePorts = EnginePorts> {
  kind: string;
  /** Stage names in their usual order; the first is where a run starts. */
  order: readonly string[];
  stages: Readonly<Record<string, Stage<S>>>;
  /** Deadline of one stage execution. */
  deadlineMs?: number;
  retry?: RetryPolicy;
  /** Validate a reply to a pause and turn it into state for the next stage. */
  resume?: ResumeHandler;
  /** Called in the commit transaction when the run reaches a terminal status (emit events, webhooks). */
  onTerminal?(run: RunView & { status: RunStatus }, scope: CommitScope): Promise<void>;
}

export interface StartRunParams {
  workspaceId: string;
  kind: string;
  input?: Record<string, unknown>;
  state?: Record<string, unknown>;
  createdBy?: string | null;
  /** Who starts the run; stages that call operations act as this caller (re-checked each stage). */
  caller?: RunCaller | null;
  parentRunId?: string | null;
  /** Defaults to the pipeline's first stage. */
  stage?: string;
  delaySeconds?: number;
  runId?: string;
}

/** A failure that retrying cannot fix: the run fails at once with this code. */
export class NonRetryableError extends Error {
  override name = 'NonRetryableError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by checkpoint(): the run moved on without this delivery (canceled, or another holds it). */
export class RunSuperseded extends Error {
  override name = 'RunSuperseded';
}

// ---- typed pipelines ---------------------------------------------------------------------------

/** A stage's view with its run's input and state parsed by the pipeline's schemas. */
export interface TypedStageContext<S extends EnginePorts, I, St> extends StageContext<S> {
  input: I;
  state: St;
}

export interface PipelineDefinition<S extends EnginePorts, I, St extends Record<string, unknown>> {
  kind: string;
  /** The run's input as the queue hands it back (stored JSON): parsed before any stage trusts it. */
  input: z.ZodType<I>;
  /** The run's state, with defaults for a run that has none yet. */
  state: z.ZodType<St>;
  /** Named stages; the first one is where a run starts. */
  stages: Record<string, (ctx: TypedStageContext<S, I, St>) => Promise<StageResult<St>>>;
  deadlineMs?: number;
  retry?: RetryPolicy;
  resume?: ResumeHandler;
  onTerminal?(run: RunView & { status: RunStatus }, scope: CommitScope): Promise<void>;
}

/**
 * One typed module per run kind: the stored input and state are parsed with zod on every delivery
 * (a run whose stored JSON no longer parses fails at once, it is never retried into the same
 * error), and each stage receives them typed.
 */
export function definePipeline<S extends EnginePorts, I, St extends Record<string, unknown>>(
  definition: PipelineDefinition<S, I, St>,
): Pipeline<S> {
  const typed =
    (name: string, body: PipelineDefinition<S, I, St>['stages'][string]): Stage<S> =>
    async (ctx) => {
      const input = definition.input.safeParse(ctx.run.input);
      if (!input.success)
        throw new NonRetryableError(
          'invalid_input',
          `The ${definition.kind} run's stored input does not parse (${issueSummary(input.error)}).`,
        );
      const state = definition.state.safeParse(ctx.run.state);
      if (!state.success)
        throw new NonRetryableError(
          'invalid_state',
          `The ${definition.kind} run's state does not parse at stage ${name} (${issueSummary(state.error)}).`,
        );
      return (await body({ ...ctx, input: input.data, state: state.data })) as StageResult;
    };
  const names = Object.keys(definition.stages);
  return {
    kind: definition.kind,
    order: names,
    stages: Object.fromEntries(names.map((name) => [name, typed(name, definition.stages[name]!)])),
    ...(definition.deadlineMs !== undefined ? { deadlineMs: definition.deadlineMs } : {}),
    ...(definition.retry ? { retry: definition.retry } : {}),
    ...(definition.resume ? { resume: definition.resume } : {}),
    ...(definition.onTerminal ? { onTerminal: definition.onTerminal } : {}),
  };
}

const issueSummary = (error: z.ZodError): string =>
  error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
