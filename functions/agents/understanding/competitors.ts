import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../../platform/db/port.js';

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
 * accounts' and contacts' names. One regex scan of the workspace's turns: the relevance check runs
 * it only when a question is about competitors and a quote did not say the word.
 */
export async function competitorsNamedIn(db: Queryable, workspaceId: string): Promise<string[]> {
  const rows = await queryRows<{ text: string }>(
    db,
    sql`(select text from transcript_turns where workspace_id = ${workspaceId} and text ~ ${SQL_CUES} limit ${READ_LIMIT})
        union all
        (select body as text from interactions
         where workspace_id = ${workspaceId} and kind = 'email' and body ~ ${SQL_CUES} limit ${READ_LIMIT})`,
  );
  const names = await queryRows<{ name: string }>(
    db,
    sql`select lower(name) as name from accounts where workspace_id = ${workspaceId}
        union select lower(name) from contacts where workspace_id = ${workspaceId}`,
  );
  return competitorNames(
    rows.map((r) => r.text),
    new Set(names.map((r) => r.name)),
    50,
  );
}
