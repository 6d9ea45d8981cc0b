/**
 * Chat answers on real meetings nobody here wrote (QMSum, test-data/qmsum): each specific query asked
 * through `POST /chat` about its meeting's account (the meetings loaded as
 * bench/retrieval-real-speech.ts loads them: one account and one call per meeting, the chair on our
 * side), and the answer's quotes held against the query's gold evidence spans.
 *
 * Per domain and half it counts the quotes inside the gold spans, outside them in the asked meeting,
 * and from another meeting; and the answers that quote nothing (abstentions), split by whether the
 * scoped search (the semantic lane with `ranking: 'hybrid'`, hydrated, customer voice, kept to the
 * meeting's account: what the agents read) had a gold turn in its top 10. The targets: at least 0.6
 * of the quotes inside the gold spans, and no abstention while that search had one.
 *
 * Train meetings are the tuning half; validation meetings are the reported half.
 *
 *   npx tsx bench/answers-real-speech.ts [--half tune|report|both] [--domain product|committee] [--meetings N] [--verbose]
 *
 * (--domain: that domain's meetings only; N: only the first N meetings left; --verbose prints each
 * answer's opening and its quotes' places.)
 */
import { inArray } from 'drizzle-orm';
import { interactions, transcriptTurns } from '../schema/index.js';
import { systemClock } from '../platform/clock.js';
import { LiftedRateLimiter } from './corpus-db.js';
import { openEmptyBenchApp } from './engine.js';
import { goldTurns, loadQmsum, type QmsumMeeting } from './qmsum-data.js';
import { type Loaded, loadMeetings, type Requester, requester } from './retrieval-real-speech.js';
import { printTable } from './report.js';

const TOP = 10;
const ENDED = new Set(['complete', 'failed', 'canceled', 'awaiting_input']);
/** A run not ended after this many reads (10 s each) is counted as failed, so the bench stops by itself. */
const MAX_READS = 30;

export const answersRealSpeechTitle = (half: string) =>
  `Chat answers on real meetings (QMSum ${half}): quotes inside the gold spans, abstentions beside the scoped search's top ${TOP}`;

/** How the question names its meeting's account, as a client asks about one account. */
export const askedAbout = (accountName: string, query: string): string => `In ${accountName}: ${query}`;

interface QueryFigures {
  domain: QmsumMeeting['domain'];
  inGold: number;
  outsideGold: number;
  otherMeeting: number;
  /** The scoped search had a gold turn in its top TOP. */
  searchFound: boolean;
  failed: boolean;
}

/** The scoped search the agents run for "what did they say about X": does its top TOP hold a gold turn? */
async function scopedSearchFinds(request: Requester, loaded: Loaded, query: string, gold: Set<number>) {
  const res = await request('POST', '/search/query', {
    query,
    mode: 'semantic',
    ranking: 'hybrid',
    hydrate: true,
    audience: 'customer_voice',
    limit: TOP,
    filters: [{ field: 'account_id', op: 'eq', value: loaded.accountId }],
  });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${res.text}`);
  const rows = res.body.data.results as { turn_index: number }[];
  return rows.some((r) => gold.has(loaded.pushed[r.turn_index] ?? -1));
}

interface QuoteBlock {
  kind: string;
  text?: string;
  source?: { interaction_id?: string; turn_id?: string | null };
}

/** `--verbose`: each answer's first lines and its quotes' place, for reading the tuning half. */
const VERBOSE = process.argv.includes('--verbose');

/** The answer's quote blocks, or null when the run did not complete. */
async function askChat(request: Requester, input: string): Promise<QuoteBlock[] | null> {
  const started = await request('POST', '/chat', { input, on_question: 'auto' });
  if (started.status !== 202) throw new Error(`chat: ${started.status} ${started.text}`);
  const runId = started.body.data.run_id as string;
  for (let i = 0; i < MAX_READS; i++) {
    const read = await request('GET', `/chat/runs/${runId}?wait_ms=10000`);
    if (read.status !== 200) throw new Error(`chat read: ${read.status} ${read.text}`);
    const run = read.body.data;
    if (!ENDED.has(String(run.status))) continue;
    if (run.status !== 'complete' || !run.answer) {
      process.stderr.write(
        `run ${runId} ended ${run.status}: ${JSON.stringify(run.error ?? run.pending_input_context)}\n`,
      );
      return null;
    }
    if (VERBOSE) process.stderr.write(`\n# ${input}\n${String(run.answer.text).split('\n').slice(0, 4).join('\n')}\n`);
    return (run.answer.content_blocks as QuoteBlock[]).filter((b) => b.kind === 'quote');
  }
  return null;
}

export async function measureAnswersRealSpeech(meetings: readonly QmsumMeeting[]): Promise<QueryFigures[]> {
  const app = await openEmptyBenchApp({ limiter: new LiftedRateLimiter(systemClock) });
  try {
    const request = await requester(app);
    const loaded = await loadMeetings(app, request, meetings);
    const interactionOf = new Map<string, Loaded>();
    const figures: QueryFigures[] = [];
    for (const l of loaded) {
      const name = `${l.meeting.id} ${l.meeting.domain === 'product' ? 'Design' : 'Committee'}`;
      for (const q of l.meeting.queries) {
        const gold = goldTurns(q);
        const searchFound = await scopedSearchFinds(request, l, q.query, gold);
        const quotes = await askChat(request, askedAbout(name, q.query));
        const figure: QueryFigures = {
          domain: l.meeting.domain,
          inGold: 0,
          outsideGold: 0,
          otherMeeting: 0,
          searchFound,
          failed: quotes === null,
        };
        const turnIds = (quotes ?? []).map((b) => b.source?.turn_id).filter((t): t is string => typeof t === 'string');
        const turns =
          turnIds.length === 0
            ? []
            : await app.handle.db
                .select({
                  id: transcriptTurns.id,
                  interactionId: transcriptTurns.interactionId,
                  turnIndex: transcriptTurns.turnIndex,
                })
                .from(transcriptTurns)
                .where(inArray(transcriptTurns.id, turnIds));
        const turnOf = new Map(turns.map((t) => [t.id, t]));
        for (const b of quotes ?? []) {
          const turn = b.source?.turn_id ? turnOf.get(b.source.turn_id) : undefined;
          if (!interactionOf.has(turn?.interactionId ?? '') && turn) {
            const owner = await interactionAccount(app, turn.interactionId);
            const of = loaded.find((x) => x.accountId === owner);
            if (of) interactionOf.set(turn.interactionId, of);
          }
          const meeting = turn ? interactionOf.get(turn.interactionId) : undefined;
          const place =
            !turn || meeting !== l
              ? 'other meeting'
              : gold.has(l.pushed[turn.turnIndex] ?? -1)
                ? 'in gold'
                : 'outside gold';
          if (place === 'other meeting') figure.otherMeeting++;
          else if (place === 'in gold') figure.inGold++;
          else figure.outsideGold++;
          if (VERBOSE) process.stderr.write(`  [${place}] ${String(b.text).slice(0, 140)}\n`);
        }
        if (VERBOSE) process.stderr.write(`  scoped search top ${TOP} had gold: ${searchFound}\n`);
        figures.push(figure);
      }
    }
    return figures;
  } finally {
    await app.close();
  }
}

async function interactionAccount(app: Awaited<ReturnType<typeof openEmptyBenchApp>>, interactionId: string) {
  const rows = await app.handle.db
    .select({ accountId: interactions.accountId })
    .from(interactions)
    .where(inArray(interactions.id, [interactionId]));
  return rows[0]?.accountId ?? null;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

export function summarizeAnswers(figures: readonly QueryFigures[]): Record<string, string | number>[] {
  return ['product', 'committee'].map((domain) => {
    const mine = figures.filter((f) => f.domain === domain);
    const inGold = sum(mine.map((f) => f.inGold));
    const quotes = sum(mine.map((f) => f.inGold + f.outsideGold + f.otherMeeting));
    const abstained = mine.filter((f) => !f.failed && f.inGold + f.outsideGold + f.otherMeeting === 0);
    return {
      domain,
      queries: mine.length,
      'answers quoting': mine.filter((f) => f.inGold + f.outsideGold + f.otherMeeting > 0).length,
      quotes,
      'in gold': inGold,
      'outside gold': sum(mine.map((f) => f.outsideGold)),
      'other meeting': sum(mine.map((f) => f.otherMeeting)),
      'share in gold': quotes > 0 ? (inGold / quotes).toFixed(3) : 'n/a',
      'abstained, search had gold': abstained.filter((f) => f.searchFound).length,
      'abstained, search had none': abstained.filter((f) => !f.searchFound).length,
      'runs not completed': mine.filter((f) => f.failed).length,
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--half');
  const asked = at > 0 ? process.argv[at + 1] : 'report';
  const meetingsAt = process.argv.indexOf('--meetings');
  const first = meetingsAt > 0 ? Number(process.argv[meetingsAt + 1]) : Infinity;
  const domainAt = process.argv.indexOf('--domain');
  const domain = domainAt > 0 ? process.argv[domainAt + 1] : undefined;
  for (const half of asked === 'both'
    ? (['tune', 'report'] as const)
    : ([asked === 'tune' ? 'tune' : 'report'] as const)) {
    const split = half === 'tune' ? 'train' : 'val';
    const figures = await measureAnswersRealSpeech(
      loadQmsum()
        .meetings.filter((m) => m.split === split && (!domain || m.domain === domain))
        .slice(0, first),
    );
    printTable(
      answersRealSpeechTitle(
        half === 'tune' ? 'train meetings, the tuning half' : 'validation meetings, the reported half',
      ),
      summarizeAnswers(figures),
    );
  }
  process.exit(0);
}
