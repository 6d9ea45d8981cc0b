import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../../platform/db/port.js';
import { forEachConversationSlice } from '../../search/index.js';
import type { ReadMemo } from '../../read-memo.js';

/**
 * Competitors, as the workspace's own conversations name them: the capitalised name after a phrase
 * people use when they compare, switch or run a bake-off ("looking at Pipewell", "switching from
 * Stackwise"), named that way at least twice. The competitors shape reads them from its searches;
 * the relevance check reads them from the data (competitorsNamedIn), so a buyer's quote naming a
 * rival counts as being about "competitors" whichever model wrote the answer.
 */

const CUE_PHRASES = [
  'looking at',
  'different from',
  'switching (?:away )?from',
  'switch from',
  'between you and',
  'contract with',
  'chose us over',
  'win against',
  'want out of',
  'used',
  'migration from',
  'compared? (?:to|with)',
  'instead of',
  'liked',
  'evaluating',
  'comparison with',
];

/** Where people name an alternative: the word after these is a competitor's name. */
const CUES = new RegExp(`\\b(?:${CUE_PHRASES.join('|')})\\s+(\\p{Lu}[\\p{L}]+(?:\\s\\p{Lu}[\\p{L}]*)?)`, 'gu');
/** The same cues for Postgres (ARE syntax: no lookarounds, `(?:` is fine), followed by a capital letter. */
const SQL_CUES = `(${CUE_PHRASES.join('|')})\\s+[A-Z]`;

/** Capitalised words after a cue that are not rivals: the seller, the tools buyers integrate, months, pronouns. */
const NOT_NAMES =
  /^(Brightwave|Salesforce|HubSpot|Slack|Snowflake|Microsoft|Zendesk|Okta|BigQuery|January|February|March|April|May|June|July|August|September|October|November|December|Q[1-4]|The|Our|We|You|It)\b/;
const MAX_COMPETITORS = 6;

/** Names after a comparison cue, two mentions or more, most mentioned first; `known` (accounts, people) are not rivals. */
export function competitorNames(
  texts: readonly string[],
  known: ReadonlySet<string>,
  max: number = MAX_COMPETITORS,
): string[] {
  const counts = new Map<string, number>();
  for (const t of texts)
    for (const m of t.matchAll(CUES)) {
      const name = m[1]!.trim().replace(/\s+(?:and|or)$/, '');
      if (NOT_NAMES.test(name) || known.has(name.toLowerCase())) continue;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  return [...counts.entries()]
    .filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name]) => name)
    .slice(0, max);
}

/** How many cue-bearing turns and emails are read at most: enough to find every rival named twice. */
const READ_LIMIT = 2000;

/**
 * The competitors this workspace's conversations name (turns and email bodies), excluding its own
 * accounts' and contacts' names: a regular-expression scan of the newest conversations' turns and
 * emails, a slice of conversations per statement (one statement over every turn holds the database,
 * and every other tenant's requests, for as long as the corpus is large), until READ_LIMIT of each.
 * The relevance check runs it only when a question is about competitors and a quote did not say the word.
 * With a memo (the request's or the stage's) it is read once however many callers ask: an answer's
 * verification re-runs the competitors analysis and judges its quotes, both of which need it.
 */
export function competitorsNamedIn(db: Queryable, workspaceId: string, memo?: ReadMemo): Promise<string[]> {
  return memo
    ? memo.once(`competitorsNamedIn:${workspaceId}`, () => readCompetitors(db, workspaceId))
    : readCompetitors(db, workspaceId);
}

async function readCompetitors(db: Queryable, workspaceId: string): Promise<string[]> {
  const turns: string[] = [];
  const emails: string[] = [];
  await forEachConversationSlice(db, workspaceId, async (slice) => {
    const rows = await queryRows<{ text: string; email: boolean }>(
      db,
      sql`(select text, false as email from transcript_turns t where workspace_id = ${workspaceId}
            and ${slice.over(sql`t.occurred_at`, sql`t.interaction_id`)} and text ~ ${SQL_CUES}
            limit ${READ_LIMIT - turns.length})
          union all
          (select body, true from interactions i
           where workspace_id = ${workspaceId} and ${slice.over(sql`i.occurred_at`, sql`i.id`)}
             and kind = 'email' and body ~ ${SQL_CUES} limit ${READ_LIMIT - emails.length})`,
    );
    for (const row of rows) (row.email ? emails : turns).push(row.text);
    return turns.length < READ_LIMIT || emails.length < READ_LIMIT;
  });
  const names = await queryRows<{ name: string }>(
    db,
    sql`select lower(name) as name from accounts where workspace_id = ${workspaceId}
        union select lower(name) from contacts where workspace_id = ${workspaceId}`,
  );
  return competitorNames([...turns, ...emails], new Set(names.map((r) => r.name)), 50);
}
