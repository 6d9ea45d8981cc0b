import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Operation } from '../../functions/registry.js';
import { canonicalJson } from '../../platform/canonical-json.js';
import { ApiError, ERROR_CODES, isApiError } from '../../platform/errors.js';
import { NonRetryableError } from '../../queues/pipeline.js';

/**
 * The answer sets' agent runs with their tools' results recorded once and replayed. The local model is
 * a pure function of its transcript and the corpus is loaded deterministically, so a run that gets the
 * recorded results back takes the same steps: the model, the reader, the composer and the verifier all
 * run for real (the verifier's quote checks and the tests' own SQL read the database), while the tool
 * executions themselves (search, SQL, the accounts' reads) come from the recording instead of PGlite.
 *
 * `ANSWER_TOOLS` picks the mode: `replay` (the default, what `npm test` does), `record` (run every
 * tool live and write the recording: `npm run test:record`), `live` (run every tool, read and write no
 * recording: the end-to-end tier of `npm run test:all`). A replayed call that is not in the recording
 * fails its run and the test, naming the command that re-records; it never falls back to running live.
 */

export const RECORD_COMMAND = 'npm run test:record';

export type ToolMode = 'replay' | 'record' | 'live';

const ToolModeSchema = z.enum(['replay', 'record', 'live']);

/** The mode `ANSWER_TOOLS` asks for; unset is `replay`. */
export function toolModeFromEnv(env: NodeJS.ProcessEnv = process.env): ToolMode {
  const parsed = ToolModeSchema.safeParse(env.ANSWER_TOOLS ?? 'replay');
  if (!parsed.success) throw new Error(`ANSWER_TOOLS must be replay, record or live, not ${env.ANSWER_TOOLS}`);
  return parsed.data;
}

const RecordedResultSchema = z.union([
  z.object({ ok: z.literal(true), output: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
]);
type RecordedResult = z.infer<typeof RecordedResultSchema>;

/**
 * Per question (its thread and ask), per call (`<operation> <canonical JSON of its input>`), the id of
 * its result; the results once each by content (every question starts with the same overview calls),
 * one a line so a re-recording's diff shows what changed.
 */
const RecordingSchema = z.object({
  questions: z.record(z.string(), z.record(z.string(), z.string())),
  results: z.record(z.string(), RecordedResultSchema),
});
type Recording = z.infer<typeof RecordingSchema>;

export interface ToolRecorder {
  readonly mode: ToolMode;
  /** The registry's operations, their handlers recording or replaying the calls an agent run makes. */
  wrap(operations: readonly Operation[]): Operation[];
  /** Run `ask` as question `question`: the calls its runs make are recorded and replayed under it. */
  asking<T>(question: string, ask: () => Promise<T>): Promise<T>;
  /** Throws, naming the command that re-records, when a replayed call was not in the recording. */
  assertNoMisses(): void;
  /** In record mode, write the recording (only the questions asked, so a removed question leaves it). */
  save(): void;
}

/**
 * A recorder over the recording at `file` (JSON, committed beside the test that replays it). `live`
 * returns the operations unwrapped, so an end-to-end run is exactly the app's.
 */
export function openToolRecorder(file: string, mode: ToolMode = toolModeFromEnv()): ToolRecorder {
  const recording: Recording = mode === 'replay' ? readRecording(file) : { questions: {}, results: {} };
  const misses: string[] = [];
  let question: string | null = null;
  // A handler that calls another operation (ctx.invoke) is recorded as one call: the inner ones replay with it.
  const inside = new AsyncLocalStorage<true>();

  const callOf = (op: Operation, input: Record<string, unknown>) => `${op.id} ${canonicalJson(input)}`;

  const replay = (op: Operation, input: Record<string, unknown>): unknown => {
    const call = callOf(op, input);
    const id = question === null ? undefined : recording.questions[question]?.[call];
    const hit = id === undefined ? undefined : recording.results[id];
    if (!hit) {
      misses.push(`${JSON.stringify(question)}: ${call.slice(0, 300)}`);
      throw new NonRetryableError(
        'recording_missing',
        `No recorded result for ${op.id} in ${file}; re-record with \`${RECORD_COMMAND}\`.`,
      );
    }
    if (!hit.ok) throw new ApiError(hit.error.code, hit.error.message, hit.error.details);
    return structuredClone(hit.output);
  };

  const record = async (op: Operation, ctx: Parameters<Operation['handler']>[0], input: Record<string, unknown>) => {
    if (question === null) throw new Error('a recorded agent run must be asked through recorder.asking()');
    const calls = recording.questions[question] ?? {};
    recording.questions[question] = calls;
    const keep = (result: RecordedResult) => {
      // By the exact text: the key order of an output is what the model reads, so it is kept.
      const id = createHash('sha256').update(JSON.stringify(result)).digest('hex').slice(0, 16);
      recording.results[id] = result;
      calls[callOf(op, input)] = id;
    };
    try {
      const output = await inside.run(true, () => op.handler(ctx, input));
      // Stored as JSON, as it is read back: what the operation's output check sees on replay.
      keep({ ok: true, output: JSON.parse(JSON.stringify(output ?? null)) });
      return output;
    } catch (error) {
      if (isApiError(error)) keep({ ok: false, error: error.toEnvelope().error } as RecordedResult);
      throw error;
    }
  };

  return {
    mode,
    wrap: (operations) =>
      mode === 'live'
        ? [...operations]
        : operations.map((op) => ({
            ...op,
            handler: async (ctx, input) => {
              // Only an agent run's tool calls are recorded: the requests the test makes run for real.
              if (ctx.origin !== 'run' || inside.getStore()) return op.handler(ctx, input);
              return mode === 'replay' ? replay(op, input) : record(op, ctx, input);
            },
          })),
    asking: async (q, ask) => {
      question = q;
      try {
        return await ask();
      } finally {
        question = null;
      }
    },
    assertNoMisses: () => {
      if (misses.length === 0) return;
      throw new Error(
        `${misses.length} tool call(s) of the replayed agent runs are not in ${file}; the local model or the ` +
          `tools changed since it was recorded. Re-record with \`${RECORD_COMMAND}\` and commit the file. ` +
          `First: ${misses[0]}`,
      );
    },
    save: () => {
      if (mode !== 'record') return;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, serialize(recording));
    },
  };
}

/** The questions indented, each result on one line, both in a stable order. */
function serialize(recording: Recording): string {
  const sorted = <T>(record: Record<string, T>) => Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
  const questions = Object.fromEntries(
    sorted(recording.questions).map(([q, calls]) => [q, Object.fromEntries(sorted(calls))]),
  );
  const results = sorted(recording.results).map(([id, result]) => `  ${JSON.stringify(id)}: ${JSON.stringify(result)}`);
  return `{\n"questions": ${JSON.stringify(questions, null, 1)},\n"results": {\n${results.join(',\n')}\n}}\n`;
}

function readRecording(file: string): Recording {
  if (!existsSync(file)) throw new Error(`${file} does not exist: record it with \`${RECORD_COMMAND}\``);
  return RecordingSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}
