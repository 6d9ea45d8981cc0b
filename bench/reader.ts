/**
 * Reading a question into an interpretation (functions/agents/understanding/reader.ts), per question,
 * over the dev and held-out question sets, against a workspace vocabulary at 1x (the demo corpus's
 * size: 60 accounts, 150 deals, 9 owners) and 10x. Beside it, in the same run, the baseline every
 * reading pays: compromise's tokenizing alone. The reader's own cost is the ratio; the vocabulary
 * lookup is the only part that may grow with the workspace.
 * Run by run.ts, or alone:
 *
 *   npx tsx bench/reader.ts
 */
import { readQuestion } from '../functions/agents/understanding/reader.js';
import { loadTokenizer, tokenize } from '../functions/agents/understanding/tokens.js';
import { vocabularyOf, type Vocabulary } from '../functions/agents/understanding/vocabulary.js';
import { WRITTEN_FRESH } from '../test/agents/question-set/held-out-fresh.js';
import { DEVELOPED_ON_HELD_OUT, HELD_OUT } from '../test/agents/question-set/held-out.js';
import { QUESTIONS } from '../test/agents/question-set/questions.js';
import { printTable } from './report.js';

export const readerTitle =
  'Reading a question (reader.ts) per question, dev + held-out sets, vs. tokenizing alone in the same run';

const OWNERS = ['zoe.kim', 'mateo.bauer', 'rhea.okafor', 'paula.park', 'oscar.rossi', 'ben.dimitrov', 'andre.dubois'];
const KINDS = ['Renewal 2026', 'New Business', 'Pilot', 'Expansion'];
const WORDS = ['Acme', 'Tidewater', 'Willow', 'Cobalt', 'Harbor', 'Granite', 'Keystone', 'Prism', 'Quartz', 'Sable'];
const INDUSTRIES = ['Logistics', 'Health', 'Retail', 'Insurance'];
const REGIONS = ['EMEA', 'APAC', 'North America'];

/** A vocabulary of `accounts` accounts (names like the corpus's), 2.5 deals each, seven owners. */
function vocabulary(accounts: number): Vocabulary {
  const accountRows: Record<string, unknown>[] = [];
  const dealRows: Record<string, unknown>[] = [];
  for (let i = 0; i < accounts; i++) {
    const industry = INDUSTRIES[i % INDUSTRIES.length]!;
    const name = `${WORDS[i % WORDS.length]}${i < WORDS.length ? '' : ` ${Math.floor(i / WORDS.length)}`} ${industry}`;
    accountRows.push({ account_name: name, account_industry: industry, account_region: REGIONS[i % REGIONS.length] });
    for (let k = 0; k < (i % 2 === 0 ? 3 : 2); k++)
      dealRows.push({
        name: `${name} - ${KINDS[(i + k) % KINDS.length]}`,
        account_name: name,
        owner_email: `${OWNERS[(i + k) % OWNERS.length]}@brightwave.io`,
      });
  }
  return vocabularyOf(dealRows, accountRows);
}

function timeEach(
  asks: readonly { ask: string; thread?: string[] }[],
  run: (q: { ask: string; thread?: string[] }) => void,
) {
  for (const q of asks.slice(0, 10)) run(q); // Warm-up: the first calls compile the library's paths.
  const samples = asks.map((q) => {
    const start = performance.now();
    run(q);
    return performance.now() - start;
  });
  samples.sort((a, b) => a - b);
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
  return { median: at(0.5), p95: at(0.95), max: samples.at(-1)! };
}

export async function benchReader(): Promise<Record<string, string | number>[]> {
  await loadTokenizer();
  const asks = [...QUESTIONS, ...DEVELOPED_ON_HELD_OUT, ...HELD_OUT, ...WRITTEN_FRESH];
  const tokens = timeEach(asks, (q) => tokenize(q.ask));
  const rows: Record<string, string | number>[] = [
    {
      what: 'tokenize alone (baseline)',
      questions: asks.length,
      'median ms': tokens.median.toFixed(2),
      'p95 ms': tokens.p95.toFixed(2),
      'max ms': tokens.max.toFixed(2),
      'median vs baseline': '1.00',
    },
  ];
  for (const [label, accounts] of [
    ['1x (60 accounts)', 60],
    ['10x (600 accounts)', 600],
  ] as const) {
    const vocab = vocabulary(accounts);
    const read = timeEach(asks, (q) =>
      readQuestion({ ask: q.ask, earlierAsks: q.thread ?? [], today: '2026-11-20' }, vocab),
    );
    rows.push({
      what: `readQuestion, vocabulary ${label}`,
      questions: asks.length,
      'median ms': read.median.toFixed(2),
      'p95 ms': read.p95.toFixed(2),
      'max ms': read.max.toFixed(2),
      'median vs baseline': (read.median / tokens.median).toFixed(2),
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) printTable(readerTitle, await benchReader());
