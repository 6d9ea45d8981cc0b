import type { Answer } from '../../../functions/agents/answer.js';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { EnvSchema } from '../../../platform/config.js';
import type { LocalTransport } from '../../../queues/transport/local.js';
import { allOperations } from '../../../functions/modules.js';
import { CORPUS_NOW } from '../../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../../support/harness.js';
import type { ToolRecorder } from '../../support/tool-recording.js';
import { judge, sqlOver, type Question, type Sql } from './judge.js';

/**
 * Asks a question set through POST /chat on the demo corpus and judges each answer: the one way the
 * gating test (question-set.test.ts) and the measuring runs (held-out.eval.ts, bench/answers.ts) ask,
 * so a figure from one is comparable with the other.
 */

/** The corpus's "now" as the run's today, while timers keep real time (the queue sleeps on them). */
const OFFSET_MS = Date.now() - CORPUS_NOW.getTime();
export const corpusClock: Clock = { now: () => new Date(Date.now() - OFFSET_MS), sleep: systemClock.sleep };

/**
 * The model settings of an environment (MODEL_PROVIDER, OPENAI_*, WORKERS_AI_*), so a measuring run
 * answers with the model its caller configured; everything else stays the harness's test settings.
 */
export function modelEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = env[key];
    if (/^(MODEL_|OPENAI_|WORKERS_AI_)/.test(key) && value !== undefined && value !== '') picked[key] = value;
  }
  return picked;
}

export interface Asker {
  sql: Sql;
  answerOf(q: Question): Promise<{ status: string; answer: Answer }>;
  close(): Promise<void>;
}

/**
 * A harness over a fresh copy of the corpus; `env` reaches the app's configuration (a model provider).
 * With a recorder, each question's tool calls are recorded or replayed under its thread and ask.
 */
export async function openAsker(env: Record<string, string> = {}, recorder?: ToolRecorder): Promise<Asker> {
  const h: Harness = await createHarness({
    database: await openCorpusDatabase(),
    clock: corpusClock,
    env,
    ...(recorder ? { operations: recorder.wrap(allOperations) } : {}),
  });
  const ws: SeededWorkspace = await h.corpusWorkspace();

  const send = async (input: string, chatId: string | null) => {
    const body = chatId ? { input, chat_id: chatId } : { input };
    const res = await h.request('POST', '/chat', { key: ws.editor.key, body });
    if (res.status !== 202) throw new Error(`POST /chat answered ${res.status}: ${res.text}`);
    await (h.services.queue as LocalTransport).drain();
    const run = (await h.request('GET', `/chat/runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data;
    return { chatId: res.body.data.chat_id as string, status: run.status as string, answer: run.answer as Answer };
  };

  return {
    sql: sqlOver(h.pglite.client),
    answerOf: async (q) => {
      const ask = async () => {
        let chatId: string | null = null;
        for (const earlier of q.thread ?? []) chatId = (await send(earlier, chatId)).chatId;
        return send(q.ask, chatId);
      };
      return recorder ? recorder.asking([...(q.thread ?? []), q.ask].join(' → '), ask) : ask();
    },
    close: async () => {
      await h.close();
      await h.database.close();
    },
  };
}

export interface Verdict {
  q: Question;
  /** Empty when the answer is right. */
  why: string[];
}

/** Each question asked in order (a follow-up's thread first) and judged. */
export async function judgeAll(asker: Asker, questions: readonly Question[]): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (const q of questions) {
    let why: string[];
    try {
      const { status, answer } = await asker.answerOf(q);
      why = await judge(q, answer, status, asker.sql);
    } catch (error) {
      // A question that breaks the run is a wrong answer, not a stopped measurement.
      why = [`asking failed: ${error instanceof Error ? error.message : String(error)}`];
    }
    verdicts.push({ q, why });
  }
  return verdicts;
}

export interface Tally {
  right: number;
  total: number;
  share: number;
  byShape: { shape: string; right: number; total: number; share: number }[];
}

/** The share answered right, overall and per shape (shapes by name). */
export function tally(verdicts: readonly Verdict[]): Tally {
  const shapes = new Map<string, { right: number; total: number }>();
  for (const { q, why } of verdicts) {
    const s = shapes.get(q.shape) ?? { right: 0, total: 0 };
    s.total += 1;
    if (why.length === 0) s.right += 1;
    shapes.set(q.shape, s);
  }
  const right = verdicts.filter((v) => v.why.length === 0).length;
  return {
    right,
    total: verdicts.length,
    share: verdicts.length === 0 ? 0 : right / verdicts.length,
    byShape: [...shapes.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([shape, s]) => ({ shape, ...s, share: s.right / s.total })),
  };
}
