import { describe, expect, it } from 'vitest';
import type { Answer } from '../../../functions/agents/answer.js';
import { judge, type Question, type Sql } from './judge.js';

/** An answer of text alone, as much of one as the judge reads for names and figures. */
const answerSaying = (text: string) =>
  ({ text, content_blocks: [], follow_ups: [], grounding: { verified: true, problems: [] } }) as unknown as Answer;
const noSql: Sql = async () => [];

describe('the judge', () => {
  const q: Question = {
    shape: 'period_compare',
    ask: 'win rate this year vs last year',
    expect: {
      mentionsEach: async () => [
        ['43.1%', '43%'],
        ['51.4%', '51%'],
      ],
    },
  };

  it('wants every figure of mentionsEach, each in any of its forms', async () => {
    expect(await judge(q, answerSaying('This year 43% against 51.4% last year.'), 'complete', noSql)).toEqual([]);
  });

  it('fails an answer that gives one figure of two', async () => {
    expect(await judge(q, answerSaying('This year the win rate is 43.1%.'), 'complete', noSql)).toEqual([
      'names none of 51.4%, 51%',
    ]);
  });
});
