import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeAll, modelEnv, openAsker, tally, type Asker } from './ask.js';
import { DEVELOPED_ON_HELD_OUT, HELD_OUT } from './held-out.js';
import { DEVELOPED_ON_FRESH, HELD_OUT_FRESH } from './held-out-fresh.js';
import { DEVELOPED_ON_FRESH_2, HELD_OUT_FRESH_2 } from './held-out-fresh-2.js';
import { DEVELOPED_ON_FRESH_3, HELD_OUT_FRESH_3 } from './held-out-fresh-3.js';
import { DEVELOPED_ON_FRESH_4, HELD_OUT_FRESH_4 } from './held-out-fresh-4.js';
import { HELD_OUT_FRESH_5 } from './held-out-fresh-5.js';
import { HELD_OUT_FRESH_6 } from './held-out-fresh-6.js';
import { QUESTIONS } from './questions.js';
import { formatReport, setReport, type AnswersReport } from './report.js';

/**
 * Measures, never gates: the dev set (questions.ts and the held-out questions already developed on,
 * DEVELOPED_* of each held-out file) and the held-out set (held-out.ts with the fresh questions of
 * held-out-fresh.ts to held-out-fresh-6.ts, also reported on their own, the fourth, the fifth and
 * the sixth file's each in a column of its own too) asked through POST /chat on the demo corpus with the model
 * the environment configures, each answer judged by judge.ts. Not a *.test.ts file, so `npm test`
 * leaves it out; `npm run eval:answers` runs it (vitest.answers.config.ts) and prints the figures.
 * ANSWERS_REPORT names the JSON file it writes.
 */

const env = modelEnv(process.env);
let asker: Asker;

beforeAll(async () => {
  asker = await openAsker(env);
}, 120_000);
afterAll(async () => {
  await asker.close();
});

describe('the question sets, measured', () => {
  it('asks the dev and the held-out sets and reports the share right', async () => {
    const started = performance.now();
    const dev = await judgeAll(asker, [
      ...QUESTIONS,
      ...DEVELOPED_ON_HELD_OUT,
      ...DEVELOPED_ON_FRESH,
      ...DEVELOPED_ON_FRESH_2,
      ...DEVELOPED_ON_FRESH_3,
      ...DEVELOPED_ON_FRESH_4,
    ]);
    const older = await judgeAll(asker, HELD_OUT);
    const earlierFresh = await judgeAll(asker, [...HELD_OUT_FRESH, ...HELD_OUT_FRESH_2, ...HELD_OUT_FRESH_3]);
    const fresh4 = await judgeAll(asker, HELD_OUT_FRESH_4);
    const fresh5 = await judgeAll(asker, HELD_OUT_FRESH_5);
    const fresh6 = await judgeAll(asker, HELD_OUT_FRESH_6);
    const fresh = [...earlierFresh, ...fresh4, ...fresh5, ...fresh6];
    const held = [...older, ...fresh];
    const report: AnswersReport = {
      model:
        env.MODEL_PROVIDER === 'openai' ? `openai ${env.OPENAI_MODEL ?? ''}`.trim() : (env.MODEL_PROVIDER ?? 'local'),
      seconds: (performance.now() - started) / 1000,
      sets: {
        dev: setReport(tally(dev), dev),
        held_out: setReport(tally(held), held),
        fresh: setReport(tally(fresh), fresh),
        fresh_4: setReport(tally(fresh4), fresh4),
        fresh_5: setReport(tally(fresh5), fresh5),
        fresh_6: setReport(tally(fresh6), fresh6),
      },
    };
    if (process.env.ANSWERS_REPORT) writeFileSync(process.env.ANSWERS_REPORT, JSON.stringify(report, null, 2));
    console.log(formatReport(report));
    // Every question was asked and judged; the share itself is the measurement, not a gate.
    expect(dev.length + held.length).toBe(
      QUESTIONS.length +
        DEVELOPED_ON_HELD_OUT.length +
        DEVELOPED_ON_FRESH.length +
        DEVELOPED_ON_FRESH_2.length +
        DEVELOPED_ON_FRESH_3.length +
        DEVELOPED_ON_FRESH_4.length +
        HELD_OUT.length +
        HELD_OUT_FRESH.length +
        HELD_OUT_FRESH_2.length +
        HELD_OUT_FRESH_3.length +
        HELD_OUT_FRESH_4.length +
        HELD_OUT_FRESH_5.length +
        HELD_OUT_FRESH_6.length,
    );
  }, 7_200_000);
});
