import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../platform/db/port.js';
import { loadTokenizer, tokenize } from './understanding/tokens.js';

/**
 * Which names opening the prose's list lines are people's (the prose-quote rule: "- Dana Reyes: we need
 * SSO" gives Dana's words): a name the NLP library tags as a person's ("Dana Reyes"), or a contact of
 * this workspace by full or first name ("Priya" of "Priya Shah"). "Pricing" or "Next steps" is neither.
 * Reads nothing when no line needs it.
 */
export async function peopleAmong(db: Queryable, workspaceId: string, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  await loadTokenizer();
  const people = new Set(names.filter((name) => tokenize(name).some((t) => t.person)));
  const rest = names.filter((name) => !people.has(name));
  if (rest.length === 0) return people;
  const known = await queryRows<{ name: string }>(
    db,
    sql`select n.name from unnest(array[${sql.join(
      rest.map((name) => sql`${name}`),
      sql`, `,
    )}]::text[]) as n(name)
        where exists (select 1 from contacts c where c.workspace_id = ${workspaceId}
                        and (c.name = n.name or c.name like n.name || ' %'))`,
  );
  for (const { name } of known) people.add(name);
  return people;
}
