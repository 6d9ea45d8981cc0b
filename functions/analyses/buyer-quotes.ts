import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import type { AnalysisOutput } from './analysis.js';
import { collectFromConversationSlices, interactionInScope } from '../search/index.js';

/**
 * What buyers said, verbatim: the sentences of the customer's side of calls and meetings (their
 * transcript turns) and of inbound emails that carry a signal, each with who said it, where and when.
 * A sentence is a contiguous slice of the turn or the body, so the grounding verifier finds it there
 * word for word. A signal is a set of word patterns that must all appear in one sentence (a champion
 * word and a leaving word), so a new wording of the same signal is a new pattern, not new code.
 */

export interface Signal {
  /** What the signal is, in words ("risk to the renewal", "a champion leaving"). */
  name: string;
  /** Patterns (case-insensitive, POSIX and JavaScript alike) that must all match one sentence. */
  all: readonly string[];
}

/** Words a buyer says when a renewal or a deal is in danger. */
export const RISK_SIGNAL: Signal = {
  name: 'risk',
  all: [
    '(at risk|cancel|tools we could cut|spend review|enough value|stopped logging|keep the tool|looking around|too expensive|over budget|will not fly|not renew|budget freeze|hiring freeze|fewer seats|adoption has been low|make the numbers work|who will champion)',
  ],
};

/** A champion leaving or moving on, in the buyer's words: a champion word and a leaving word in one sentence. */
export const CHAMPION_LEFT_SIGNAL: Signal = {
  name: 'champion leaving',
  all: ['champion', '(leaving|left|moved|gone|no longer|stepped down|replac|new role)'],
};

export interface BuyerQuote extends Record<string, unknown> {
  interaction_id: string;
  turn_id: string | null;
  speaker: string | null;
  occurred_at: string;
  account_name: string | null;
  deal_name: string | null;
  kind: string;
  text: string;
}

interface SpokenRow extends Record<string, unknown> {
  interaction_id: string;
  turn_id: string | null;
  speaker: string | null;
  occurred_at: string;
  account_name: string | null;
  deal_name: string | null;
  kind: string;
  full_text: string;
  /** occurred_at at full precision, for the order across slices. */
  at: string;
}

/**
 * The buyers' sentences carrying the signal in the interactions `where` selects (`i` is the interaction),
 * newest first (ties by interaction, newest id first, as the slices run), one sentence per turn or email,
 * at most `limit`. The turns and emails are read a slice of conversations per statement
 * (collectFromConversationSlices: a regular-expression scan of every turn in one statement holds an
 * embedded database, and every tenant's requests, for as long as the workspace is large), newest
 * first, until `3 × limit` matching rows are held: the sentences are taken from the newest of those,
 * so the older slices would add nothing. `readBackTo` is then the oldest day read (what an answer
 * counting the quotes must say it covered); null when every conversation in scope was read.
 */
export async function buyerQuotes(
  db: Queryable,
  workspaceId: string,
  where: SQL,
  signal: Signal,
  limit: number,
): Promise<{ quotes: BuyerQuote[]; readBackTo: string | null }> {
  const matches = (column: SQL) =>
    sql.join(
      signal.all.map((p) => sql`${column} ~* ${p}`),
      sql` and `,
    );
  const considered = limit * 3;
  const { rows, readBackTo } = await collectFromConversationSlices(
    db,
    workspaceId,
    (slice) => {
      const inSlice = slice.over(sql`i.occurred_at`, sql`i.id`);
      return queryRows<SpokenRow>(
        db,
        sql`select i.id as interaction_id, t.id as turn_id, t.speaker_name as speaker,
                 to_char(i.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as occurred_at,
                 a.name as account_name, d.name as deal_name, i.kind, t.text as full_text, i.occurred_at::text as at
          from transcript_turns t
          join interactions i on i.id = t.interaction_id and i.workspace_id = t.workspace_id
          left join accounts a on a.id = i.account_id and a.workspace_id = i.workspace_id
          left join deals d on d.id = i.deal_id and d.workspace_id = i.workspace_id
          where t.workspace_id = ${workspaceId} and ${slice.over(sql`t.occurred_at`, sql`t.interaction_id`)}
            and ${inSlice} and t.side = 'external' and ${interactionInScope(workspaceId, sql`i.id`)}
            and ${where} and ${matches(sql`t.text`)}
          union all
          select i.id, null, (select p.name from participants p where p.workspace_id = i.workspace_id
                   and p.interaction_id = i.id and p.side = 'external' order by p.name limit 1),
                 to_char(i.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                 a.name, d.name, i.kind, i.body, i.occurred_at::text
          from interactions i
          left join accounts a on a.id = i.account_id and a.workspace_id = i.workspace_id
          left join deals d on d.id = i.deal_id and d.workspace_id = i.workspace_id
          where i.workspace_id = ${workspaceId} and ${inSlice} and i.kind = 'email' and i.direction = 'inbound'
            and i.body is not null and ${interactionInScope(workspaceId, sql`i.id`)}
            and ${where} and ${matches(sql`i.body`)}`,
      );
    },
    { max: considered },
  );
  rows.sort(
    (x, y) =>
      compare(y.at, x.at) ||
      compare(y.interaction_id, x.interaction_id) ||
      compare(x.turn_id ?? '\uffff', y.turn_id ?? '\uffff'),
  );
  const patterns = signal.all.map((p) => new RegExp(p, 'i'));
  const out: BuyerQuote[] = [];
  for (const { full_text, at: _at, ...row } of rows.slice(0, considered)) {
    const sentence = sentencesOf(full_text).find((s) => patterns.every((p) => p.test(s)));
    if (sentence && out.length < limit) out.push({ ...row, text: sentence });
  }
  return { quotes: out, readBackTo };
}

/** What an answer adds to its reading when its quotes stopped at their bound (buyerQuotes' readBackTo). */
export function quotesBoundWords(readBackTo: string | null): string {
  return readBackTo ? `; buyers' sentences read from the newest conversations only, back to ${readBackTo}` : '';
}

const compare = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/** The sentences of a text, each a slice of it as written. */
function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A quote block of a buyer's sentence, attributed as the warehouse holds it. */
export function quoteBlock(q: BuyerQuote): Extract<AnalysisOutput['blocks'][number], { kind: 'quote' }> {
  return {
    kind: 'quote',
    text: q.text,
    source: {
      interaction_id: q.interaction_id,
      turn_id: q.turn_id,
      speaker: q.speaker,
      occurred_at: q.occurred_at,
      account: q.account_name,
      deal: q.deal_name,
      side: 'external',
    },
    stance: 'supports',
  };
}
