/**
 * How well the chat answers the question sets: the dev set (test/agents/question-set/questions.ts and the
 * held-out shapes already developed on, DEVELOPED_* in each held-out file)
 * beside the held-out set written without reading the answering code (held-out.ts,
 * held-out-fresh.ts to held-out-fresh-6.ts), each answer judged by judge.ts. Prints the share right
 * overall and per shape for the dev set, the whole held-out set, its fresh questions alone, the
 * fourth, the fifth and the sixth fresh set each alone, and the held-out failures with the judge's reasons.
 * Measures, never gates.
 *
 * The model is the environment's: MODEL_PROVIDER=local by default; a hosted OpenAI-compatible model
 * with MODEL_PROVIDER=openai OPENAI_BASE_URL=... OPENAI_API_KEY=... OPENAI_MODEL=... OPENAI_EMBEDDING_MODEL=...
 *
 *   npm run eval:answers
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnswersReportSchema, formatReport } from '../test/agents/question-set/report.js';

const dir = mkdtempSync(join(tmpdir(), 'cip-answers-'));
const reportPath = join(dir, 'answers.json');
try {
  // The harness and its corpus template come from vitest's global setup, so the run goes through vitest.
  const run = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.answers.config.ts', '--silent'], {
    stdio: 'inherit',
    env: { ...process.env, ANSWERS_REPORT: reportPath },
  });
  let text: string;
  try {
    text = readFileSync(reportPath, 'utf8');
  } catch {
    process.stderr.write(
      `\nno report: the measuring run ended ${run.status ?? run.signal} before writing ${reportPath}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`\n${formatReport(AnswersReportSchema.parse(JSON.parse(text)))}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
