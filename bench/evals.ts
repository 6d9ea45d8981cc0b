/**
 * Evals and the optimizer with the local model on the 1x demo corpus: an eval run end to end
 * (submit, retrieve, grade, rewrite, regrade, read) beside one semantic search in the same run; the
 * optimizer's three rounds beside one grading of the same draft; and the CSV export of 1,000 and
 * 10,000 runs with the process's peak RSS while it streams (constant memory: the two should match).
 *
 *   npx tsx bench/evals.ts
 */
import { eq } from 'drizzle-orm';
import { API_PREFIX } from '../functions/http/env.js';
import { optimizeMessage } from '../functions/messages/optimizer.js';
import { gradeTask } from '../functions/evals/tasks.js';
import { newId } from '../platform/ids.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { runs } from '../schema/index.js';
import { REPLY_LABELLED_SET } from '../test/messages/reply-labelled-set.js';
import { openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { printTable } from './report.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const ms = (x: number) => x.toFixed(0);

async function evalRuns(corpus: BenchCorpus): Promise<Record<string, string | number>[]> {
  const queue = corpus.services.queue as LocalTransport;
  const messages = REPLY_LABELLED_SET.slice(0, 10).map((e) => e.message);
  const totals: number[] = [];
  for (const message of messages) {
    const started = performance.now();
    const res = await corpus.app.request(`${corpus.services.config.publicUrl}${API_PREFIX}/evals/run`, {
      method: 'POST',
      headers: { 'x-api-key': corpus.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { message, artifact_type: 'email' }, reuse: 'force' }),
    });
    const { data } = (await res.json()) as { data: { run_id: string } };
    await queue.drain();
    const read = await corpus.app.request(`${corpus.services.config.publicUrl}${API_PREFIX}/eval-runs/${data.run_id}`, {
      headers: { 'x-api-key': corpus.apiKey },
    });
    const body = (await read.json()) as { data: { status: string } };
    if (body.data.status !== 'complete') throw new Error(`eval run ended ${body.data.status}`);
    totals.push(performance.now() - started);
  }
  const searches: number[] = [];
  for (const message of messages) {
    const started = performance.now();
    await corpus.search({
      query: message.slice(0, 1500),
      mode: 'semantic',
      hydrate: true,
      audience: 'customer_voice',
      limit: 60,
    });
    searches.push(performance.now() - started);
  }
  return [
    {
      measure: 'eval runs (submit to complete report card)',
      n: totals.length,
      'median ms': ms(median(totals)),
      'max ms': ms(Math.max(...totals)),
      'vs one semantic search': `${(median(totals) / median(searches)).toFixed(1)}x (${ms(median(searches))} ms)`,
      target: 'under 1500 ms',
    },
  ];
}

async function optimizer(corpus: BenchCorpus): Promise<Record<string, string | number>[]> {
  const drafts = REPLY_LABELLED_SET.filter((e) => e.label <= 3)
    .slice(0, 10)
    .map((e) => e.message);
  const totals: number[] = [];
  const grades: number[] = [];
  const rounds: number[] = [];
  for (const message of drafts) {
    const g = performance.now();
    await corpus.services.model.run(gradeTask, {
      target: 'message',
      text: message,
      dimensions: ['specificity', 'clarity', 'call_to_action', 'tone'],
      artifact_type: 'email',
      audience: null,
      account: null,
      reference_accounts: [],
      quotes: [],
    });
    grades.push(performance.now() - g);
    const started = performance.now();
    const result = await optimizeMessage(
      corpus.services.model,
      { message, channel: 'email' },
      new AbortController().signal,
    );
    totals.push(performance.now() - started);
    rounds.push(result.rounds.length - 1);
  }
  return [
    {
      measure: 'optimizer (up to three rounds)',
      n: totals.length,
      'median ms': ms(median(totals)),
      'max ms': ms(Math.max(...totals)),
      'vs one grading': `${(median(totals) / Math.max(0.01, median(grades))).toFixed(0)}x (${median(grades).toFixed(1)} ms); rounds run: median ${median(rounds)}`,
      target: 'under 1000 ms (the spec: ~32 s hosted)',
    },
  ];
}

async function exportRss(corpus: BenchCorpus): Promise<Record<string, string | number>[]> {
  const [template] = await corpus.db.select().from(runs).where(eq(runs.kind, 'eval_run')).limit(1);
  if (!template) throw new Error('no eval run to copy');
  const rows: Record<string, string | number>[] = [];
  let inserted = 0;
  for (const target of [1_000, 10_000]) {
    while (inserted < target) {
      const batch = Array.from({ length: Math.min(500, target - inserted) }, (_, i) => ({
        ...template,
        id: newId(),
        createdAt: new Date(template.createdAt.getTime() + (inserted + i + 1) * 1000),
      }));
      await corpus.db.insert(runs).values(batch);
      inserted += batch.length;
    }
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    let lines = 0;
    const started = performance.now();
    const res = await corpus.app.request(`${corpus.services.config.publicUrl}${API_PREFIX}/evals/export.csv`, {
      headers: { 'x-api-key': corpus.apiKey },
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      lines += (decoder.decode(value, { stream: true }).match(/\n/g) ?? []).length;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    rows.push({
      measure: `CSV export of ${target.toLocaleString('en-US')} runs (plus the bench's own)`,
      'rows streamed': lines - 1,
      ms: ms(performance.now() - started),
      'peak RSS growth while streaming': `${((peak - before) / 1024 / 1024).toFixed(1)} MB`,
      target: 'about the same at 1,000 and 10,000',
    });
  }
  return rows;
}

export async function benchEvals(): Promise<void> {
  const corpus = await openBenchCorpus(1);
  try {
    printTable('Eval runs at 1x, local model', await evalRuns(corpus));
    printTable('Message optimizer, local model, ten drafts labelled 1-3 in the reply set', await optimizer(corpus));
    printTable('Eval export (CSV, streamed page by page)', await exportRss(corpus));
  } finally {
    await corpus.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEvals();
