import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';

/**
 * The real-meeting test data (test-data/qmsum, written by bench/qmsum-extract.ts from QMSum's train
 * and validation meetings): turns as spoken, and for each specific query the turn ranges human
 * annotators marked as its evidence. Read from the committed file only: no test or bench fetches it.
 */

export const QMSUM_FILE = 'meetings.json.gz';
export const QMSUM_DIR = join(import.meta.dirname, '..', 'test-data', 'qmsum');

const Turn = z.object({ speaker: z.string().min(1), text: z.string() }).strict();
const Query = z
  .object({
    query: z.string().min(1),
    /** Inclusive turn index ranges [from, to] of the gold evidence. */
    spans: z.array(z.tuple([z.number().int().min(0), z.number().int().min(0)])).min(1),
  })
  .strict();
const Meeting = z
  .object({
    id: z.string().regex(/^(ES|IS|TS)\d{4}[a-d]$|^(covid|education)_\d+$/),
    /** train meetings are the tuning half, val meetings the reported half. */
    split: z.enum(['train', 'val']),
    domain: z.enum(['product', 'committee']),
    turns: z.array(Turn).min(1),
    queries: z.array(Query),
  })
  .strict()
  .superRefine((m, ctx) => {
    for (const [i, q] of m.queries.entries())
      for (const [from, to] of q.spans)
        if (from > to || to >= m.turns.length)
          ctx.addIssue({
            code: 'custom',
            path: ['queries', i, 'spans'],
            message: `span [${from}, ${to}] is outside the meeting's ${m.turns.length} turns`,
          });
  });
const Data = z
  .object({ source: z.string().url(), commit: z.string().regex(/^[0-9a-f]{40}$/), meetings: z.array(Meeting).min(1) })
  .strict();

export type QmsumMeeting = z.infer<typeof Meeting>;
export type QmsumData = z.infer<typeof Data>;

/** The committed meetings, validated. */
export function loadQmsum(file = join(QMSUM_DIR, QMSUM_FILE)): QmsumData {
  return Data.parse(JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')));
}

/** The gold turn indexes of a query: every turn inside one of its spans. */
export function goldTurns(query: QmsumMeeting['queries'][number]): Set<number> {
  const gold = new Set<number>();
  for (const [from, to] of query.spans) for (let i = from; i <= to; i++) gold.add(i);
  return gold;
}

/**
 * Who chairs the meeting, taken as our side when it is pushed as a call: the project manager of an
 * AMI design meeting, and in a committee whoever is labelled chair or opens the session.
 */
export function isChair(meeting: QmsumMeeting, speaker: string): boolean {
  if (meeting.domain === 'product') return speaker === 'Project Manager';
  if (/\bchair\b/i.test(speaker)) return true;
  const opener = meeting.turns.find((t) => t.text.trim().length > 20)?.speaker;
  return speaker === opener;
}
