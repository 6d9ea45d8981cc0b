/**
 * Writes test-data/qmsum/meetings.json.gz: a compact subset of QMSum's train and validation meetings
 * (never its test split) for bench/retrieval-real-speech.ts and its tests, read from a local git
 * snapshot of Yale-LILY/QMSum (MIT licence, copied beside the data). Nothing here calls the network.
 *
 *   npx tsx bench/qmsum-extract.ts [path/to/QMSum.git]
 *
 * Kept per meeting: every turn (speaker, text) and every specific query with its gold turn spans.
 * The general queries, answers and topic lists are left out: retrieval is judged against the spans.
 * The tuning half is train meetings, the reported half validation meetings, both domains in each.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { QMSUM_FILE, type QmsumData, type QmsumMeeting } from './qmsum-data.js';

const SNAPSHOT = process.argv[2] ?? '/work/.mirror/Yale-LILY+QMSum/repo';

/** Whole AMI series (a-d) and committee sessions; train ones tune, validation ones are reported. */
const CHOSEN: readonly { split: 'train' | 'val'; ids: readonly string[] }[] = [
  {
    split: 'train',
    ids: [
      ...['ES2002', 'IS1000', 'TS3003'].flatMap((s) => ['a', 'b', 'c', 'd'].map((x) => s + x)),
      'covid_0',
      'covid_1',
      'education_1',
      'education_2',
      'education_3',
      'education_5',
    ],
  },
  {
    split: 'val',
    ids: [
      ...['ES2006', 'IS1006', 'TS3009'].flatMap((s) => ['a', 'b', 'c', 'd'].map((x) => s + x)),
      'covid_2',
      'covid_6',
      'education_0',
      'education_10',
      'education_18',
      'education_22',
    ],
  },
];

const Raw = z.object({
  meeting_transcripts: z.array(z.object({ speaker: z.string(), content: z.string() })),
  specific_query_list: z.array(
    z.object({
      query: z.string(),
      relevant_text_span: z.array(z.tuple([z.string(), z.string()])),
    }),
  ),
});

const git = (...args: string[]) =>
  execFileSync('git', ['-C', SNAPSHOT, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

function meetingOf(id: string, split: 'train' | 'val'): QmsumMeeting {
  const raw = Raw.parse(JSON.parse(git('show', `HEAD:data/ALL/${split}/${id}.json`)));
  return {
    id,
    split,
    domain: /^(ES|IS|TS)\d/.test(id) ? 'product' : 'committee',
    turns: raw.meeting_transcripts.map((t) => ({ speaker: t.speaker, text: t.content })),
    queries: raw.specific_query_list.map((q) => ({
      query: q.query,
      spans: q.relevant_text_span.map(([from, to]) => [Number(from), Number(to)] as [number, number]),
    })),
  };
}

const data: QmsumData = {
  source: 'https://github.com/Yale-LILY/QMSum',
  commit: git('rev-parse', 'HEAD').trim(),
  meetings: CHOSEN.flatMap(({ split, ids }) => ids.map((id) => meetingOf(id, split))),
};
const zipped = gzipSync(JSON.stringify(data), { level: 9 });
const dir = join(import.meta.dirname, '..', 'test-data', 'qmsum');
writeFileSync(join(dir, QMSUM_FILE), zipped);
writeFileSync(join(dir, 'LICENSE'), git('show', 'HEAD:LICENSE'));
process.stdout.write(
  `${data.meetings.length} meetings, ${data.meetings.reduce((n, m) => n + m.queries.length, 0)} queries, ${(zipped.length / 1024).toFixed(0)} KiB gzipped (commit ${data.commit})\n`,
);
