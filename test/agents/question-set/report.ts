import { z } from 'zod';
import type { Tally, Verdict } from './ask.js';

/**
 * What a measuring run of the question sets reports (held-out.eval.ts writes it, bench/answers.ts
 * reads and prints it): per set, the share right overall and per shape, and each failure with the
 * judge's reasons. `held_out` is every held-out question (held-out.ts and the held-out-fresh*.ts
 * files); `fresh` is the fresh files' part of it alone, and `fresh_4`, `fresh_5` and `fresh_6` the
 * fourth, the fifth and the sixth fresh file's parts of that, so the newest questions show on their own.
 */

const TallySchema = z.object({
  right: z.number().int(),
  total: z.number().int(),
  share: z.number(),
  byShape: z.array(
    z.object({ shape: z.string(), right: z.number().int(), total: z.number().int(), share: z.number() }),
  ),
});
const SetReportSchema = z.object({
  tally: TallySchema,
  failures: z.array(
    z.object({ shape: z.string(), thread: z.array(z.string()), ask: z.string(), why: z.array(z.string()) }),
  ),
});
export const AnswersReportSchema = z.object({
  model: z.string(),
  seconds: z.number(),
  sets: z.object({
    dev: SetReportSchema,
    held_out: SetReportSchema,
    fresh: SetReportSchema,
    fresh_4: SetReportSchema,
    fresh_5: SetReportSchema,
    fresh_6: SetReportSchema,
  }),
});
export type AnswersReport = z.infer<typeof AnswersReportSchema>;
export type SetReport = z.infer<typeof SetReportSchema>;

export function setReport(tally: Tally, verdicts: readonly Verdict[]): SetReport {
  return {
    tally,
    failures: verdicts
      .filter((v) => v.why.length > 0)
      .map(({ q, why }) => ({ shape: q.shape, thread: q.thread ?? [], ask: q.ask, why })),
  };
}

const share = (right: number, total: number) =>
  `${right}/${total} (${total === 0 ? '0.0' : ((100 * right) / total).toFixed(1)}%)`;

/** The report as text: the sets side by side per shape, then the held-out failures (fresh ones marked). */
export function formatReport(report: AnswersReport): string {
  const { dev, held_out: held, fresh, fresh_4: fresh4, fresh_5: fresh5, fresh_6: fresh6 } = report.sets;
  const sets = [dev, held, fresh, fresh4, fresh5, fresh6];
  const shapes = [...new Set(sets.flatMap((set) => set.tally.byShape.map((s) => s.shape)))].sort();
  const cell = (t: SetReport['tally'], shape: string) => {
    const s = t.byShape.find((x) => x.shape === shape);
    return s ? share(s.right, s.total) : '-';
  };
  const rows = [
    [
      'shape',
      'dev (questions.ts + developed shapes)',
      'held-out (held-out.ts + held-out-fresh*.ts)',
      'fresh (held-out-fresh*.ts)',
      'fresh-4 (held-out-fresh-4.ts)',
      'fresh-5 (held-out-fresh-5.ts)',
      'fresh-6 (held-out-fresh-6.ts)',
    ],
    ['ALL', ...sets.map((set) => share(set.tally.right, set.tally.total))],
    ...shapes.map((shape) => [shape, ...sets.map((set) => cell(set.tally, shape))]),
  ];
  const widths = [0, 1, 2, 3, 4, 5, 6].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const freshAsks = new Set(fresh.failures.map((f) => `${f.thread.join('\n')}\n${f.ask}`));
  return [
    `answers: model ${report.model}, ${Math.round(report.seconds)} s`,
    '',
    line(rows[0] ?? []),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.slice(1).map(line),
    '',
    `held-out failures (${held.failures.length}, ${fresh.failures.length} of them fresh, marked *):`,
    ...held.failures.map(
      (f) =>
        `  ${freshAsks.has(`${f.thread.join('\n')}\n${f.ask}`) ? '*' : '✗'} [${f.shape}] ${f.thread.length > 0 ? `(after: ${f.thread.join(' / ')}) ` : ''}${f.ask}\n      ${f.why.join('; ')}`,
    ),
  ].join('\n');
}
