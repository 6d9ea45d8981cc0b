import type { z } from 'zod';
import type { Transaction } from '../platform/db/port.js';
import type { PendingInput, RunStatus } from '../schema/runs.js';
import type { Services } from '../functions/services.js';

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
}

export interface RunEventDraft {
  type: string;
  data?: Record<string, unknown>;
}

/** What a stage may do inside the transaction that commits its result. */
export interface CommitScope {
  tx: Transaction;
  /** Start another run in this transaction; its first delivery is published after the commit. */
  startRun(params: StartRunParams): Promise<{ runId: string }>;
}

export type StageEffects = (scope: CommitScope) => Promise<void>;

interface StageResultBase {
  /** Saved under the stage's name in `outputs`. */
  output?: unknown;
  /** Shallow-merged into the run's `state`. */
  state?: Record<string, unknown>;
  /** Events appended (in order) with the commit. */
  events?: RunEventDraft[];
  /** Writes that must happen exactly once, committed atomically with the state change. */
  effects?: StageEffects;
}

export type StageResult =
  | (StageResultBase & { next: string; delaySeconds?: number })
  | (StageResultBase & { pause: PendingInput; next: string })
  | (StageResultBase & { complete: true })
  | (StageResultBase & { fail: { code: string; message: string } });

export interface StageContext {
  run: RunView;
  services: Services;
  /** Aborted when the stage's deadline passes or the run is canceled. */
  signal: AbortSignal;
  /** A safe point to stop: throws when the run was canceled or superseded meanwhile. */
  checkpoint(): Promise<void>;
}

export type Stage = (ctx: StageContext) => Promise<StageResult>;

export interface RetryPolicy {
  /** Attempts per stage, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 60_000 };

export interface Pipeline {
  kind: string;
  /** Stage names in their usual order; the first is where a run starts. */
  order: readonly string[];
  stages: Readonly<Record<string, Stage>>;
  /** Deadline of one stage execution. */
  deadlineMs?: number;
  retry?: RetryPolicy;
  /** Validate a reply to a pause and turn it into state for the next stage. */
  resume?: { schema: (pending: PendingInput) => z.ZodType; apply(reply: unknown, run: RunView): Record<string, unknown> };
  /** Called in the commit transaction when the run reaches a terminal status (emit events, webhooks). */
  onTerminal?(run: RunView & { status: RunStatus }, scope: CommitScope): Promise<void>;
}

export interface StartRunParams {
  workspaceId: string;
  kind: string;
  input?: Record<string, unknown>;
  state?: Record<string, unknown>;
  createdBy?: string | null;
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
