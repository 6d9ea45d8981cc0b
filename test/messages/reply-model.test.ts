import { describe, expect, it } from 'vitest';
import { estimateReplyProbability, INTERCEPT } from '../../functions/messages/reply-model.js';
import { REPLY_LABELLED_SET } from './reply-labelled-set.js';

/** The reply-probability model against emails labelled by a reader before its weights were set. */

const ranks = (xs: number[]): number[] => {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]?.[0] === order[i]?.[0]) j++;
    for (let k = i; k <= j; k++) out[order[k]?.[1] as number] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
};

function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  ra.forEach((x, i) => {
    const y = rb[i] as number;
    num += (x - ma) * (y - mb);
    da += (x - ma) ** 2;
    db += (y - mb) ** 2;
  });
  return num / Math.sqrt(da * db);
}

describe('the reply-probability model', () => {
  const scored = REPLY_LABELLED_SET.map((e) => ({ ...e, p: estimateReplyProbability(e.message).probability }));

  it('ranks the labelled emails the way their reader did', () => {
    const rho = spearman(
      scored.map((s) => s.p),
      scored.map((s) => s.label),
    );
    let concordant = 0;
    let pairs = 0;
    for (const a of scored) {
      for (const b of scored) {
        if (a.label <= b.label) continue;
        pairs++;
        if (a.p > b.p) concordant++;
      }
    }
    const concordance = concordant / pairs;
    expect(rho, `Spearman ${rho.toFixed(3)}`).toBeGreaterThanOrEqual(0.7);
    expect(concordance, `pairwise concordance ${concordance.toFixed(3)}`).toBeGreaterThanOrEqual(0.8);
  });

  it('is deterministic, bounded and explains itself: contributions add up to the logit', () => {
    for (const e of REPLY_LABELLED_SET) {
      const a = estimateReplyProbability(e.message);
      expect(estimateReplyProbability(e.message)).toEqual(a);
      expect(a.probability).toBeGreaterThanOrEqual(0);
      expect(a.probability).toBeLessThanOrEqual(1);
      for (const f of a.features) expect(f.contribution).toBeCloseTo(f.value * f.weight, 12);
      expect(a.logit).toBeCloseTo(INTERCEPT + a.features.reduce((s, f) => s + f.contribution, 0), 9);
    }
  });

  it('moves the way a reader would: hype, a missing ask and length all lower it', () => {
    const good = REPLY_LABELLED_SET.find((e) => e.id === 'specific-short-ask')?.message as string;
    const base = estimateReplyProbability(good).probability;
    expect(
      estimateReplyProbability(
        good.replace('Would a 15-minute', 'This revolutionary, game-changing offer!!! Would a 15-minute'),
      ).probability,
    ).toBeLessThan(base);
    expect(estimateReplyProbability(good.replace(/Would a 15-minute call[^?]*\?/, '')).probability).toBeLessThan(base);
    const padded = good.replace(
      'Best,',
      `${'We also help with many other things that teams find useful over time. '.repeat(45)}\n\nBest,`,
    );
    expect(estimateReplyProbability(padded).probability).toBeLessThan(base);
  });

  it('covers every label with at least 32 distinct emails', () => {
    expect(REPLY_LABELLED_SET.length).toBeGreaterThanOrEqual(32);
    expect(new Set(REPLY_LABELLED_SET.map((e) => e.id)).size).toBe(REPLY_LABELLED_SET.length);
    expect(new Set(REPLY_LABELLED_SET.map((e) => e.label))).toEqual(new Set([1, 2, 3, 4, 5]));
  });
});
