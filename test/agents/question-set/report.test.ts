import { describe, expect, it } from 'vitest';
import type { Verdict } from './ask.js';
import { tally } from './ask.js';
import type { Question } from './judge.js';
import { AnswersReportSchema, formatReport, setReport } from './report.js';

const q = (shape: string, ask: string, thread?: string[]): Question => ({ shape, ask, thread, expect: {} });

describe('the answers report', () => {
  it('shows the fresh held-out questions in a column of their own and marks their failures', () => {
    const dev: Verdict[] = [{ q: q('pipeline', 'dev ask'), why: [] }];
    const older: Verdict[] = [
      { q: q('pipeline', 'older ask'), why: ['missing "X"'] },
      { q: q('win_rate', 'older right'), why: [] },
    ];
    const fresh: Verdict[] = [
      { q: q('pipeline', 'and for EMEA?', ['win rate in APAC?']), why: ['missing the number 7'] },
      { q: q('multi_part', 'fresh right'), why: [] },
    ];
    const held = [...older, ...fresh];
    const report = AnswersReportSchema.parse({
      model: 'local',
      seconds: 1,
      sets: {
        dev: setReport(tally(dev), dev),
        held_out: setReport(tally(held), held),
        fresh: setReport(tally(fresh), fresh),
        fresh_4: setReport(tally(fresh.slice(0, 1)), fresh.slice(0, 1)),
        fresh_5: setReport(tally(fresh.slice(1)), fresh.slice(1)),
        fresh_6: setReport(tally([]), []),
      },
    });
    const lines = formatReport(report).split('\n');

    expect(lines.find((l) => l.startsWith('shape'))).toMatch(/dev .*held-out .*fresh .*fresh-4 .*fresh-5 .*fresh-6/);
    // ALL: dev 1/1, held-out (older + fresh) 2/4, fresh alone 1/2, the fourth fresh set's one question
    // 0/1, the fifth's one 1/1 and the sixth's none.
    expect(lines.find((l) => l.startsWith('ALL'))?.split(/\s{2,}/)).toEqual([
      'ALL',
      '1/1 (100.0%)',
      '2/4 (50.0%)',
      '1/2 (50.0%)',
      '0/1 (0.0%)',
      '1/1 (100.0%)',
      '0/0 (0.0%)',
    ]);
    expect(lines.find((l) => l.startsWith('multi_part'))?.split(/\s{2,}/)).toEqual([
      'multi_part',
      '-',
      '1/1 (100.0%)',
      '1/1 (100.0%)',
      '-',
      '1/1 (100.0%)',
      '-',
    ]);
    expect(lines.find((l) => l.startsWith('pipeline'))?.split(/\s{2,}/)).toEqual([
      'pipeline',
      '1/1 (100.0%)',
      '0/2 (0.0%)',
      '0/1 (0.0%)',
      '0/1 (0.0%)',
      '-',
      '-',
    ]);
    expect(lines).toContain('held-out failures (2, 1 of them fresh, marked *):');
    expect(lines).toContain('  * [pipeline] (after: win rate in APAC?) and for EMEA?');
    expect(lines).toContain('  ✗ [pipeline] older ask');
  });
});
