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

  const ranking: Question = {
    shape: 'competitors',
    ask: 'which competitors come up the most? rank them',
    expect: { ordered: async () => [['Pipewell'], ['Tallyhawk'], ['Quotient Labs', 'Quotient']] },
  };

  it('wants a ranking named in its order, each item at its first mention', async () => {
    const right = 'Pipewell comes up most (64), then Tallyhawk (40), then Quotient (32); Pipewell leads.';
    expect(await judge(ranking, answerSaying(right), 'complete', noSql)).toEqual([]);
  });

  it('fails a ranking with the right items in the wrong order', async () => {
    const swapped = 'Tallyhawk comes up most, then Pipewell, then Quotient Labs.';
    expect(await judge(ranking, answerSaying(swapped), 'complete', noSql)).toEqual(['ranks Tallyhawk before Pipewell']);
  });

  it('fails a ranking that leaves an item out', async () => {
    expect(await judge(ranking, answerSaying('Pipewell, then Tallyhawk.'), 'complete', noSql)).toEqual([
      'names none of Quotient Labs, Quotient',
    ]);
  });
});
