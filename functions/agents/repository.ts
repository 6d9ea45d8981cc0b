import { and, asc, eq, or, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { agents } from '../../schema/agents.js';
import { findLibraryAgent, LIBRARY_AGENTS, LIBRARY_AUTHOR, TENANT_AUTHOR, type LibraryAgent } from './library.js';
import { AGENT_LIMITS, type AgentView } from './schemas.js';

type AgentRow = typeof agents.$inferSelect;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An agent a run can be started as: a library agent or one of the workspace's own. */
export interface ResolvedAgent {
  id: string;
  slug: string;
  name: string;
  prompt: string;
  tool_blocklist: string[];
  authored_by: typeof LIBRARY_AUTHOR | typeof TENANT_AUTHOR;
}

export function libraryView(agent: LibraryAgent): AgentView {
  return {
    id: agent.id,
    slug: agent.slug,
    name: agent.name,
    description: agent.description,
    prompt: agent.prompt,
    tool_blocklist: [...agent.tool_blocklist],
    authored_by: LIBRARY_AUTHOR,
    locked: true,
    created_at: null,
    updated_at: null,
  };
}

export function workspaceView(row: AgentRow): AgentView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    prompt: row.prompt,
    tool_blocklist: row.toolBlocklist,
    authored_by: TENANT_AUTHOR,
    locked: false,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The roster: library agents first (in code order), then the workspace's, oldest first. */
export async function listAgents(db: Queryable, workspaceId: string): Promise<AgentView[]> {
  const own = await db
    .select()
    .from(agents)
    .where(eq(agents.workspaceId, workspaceId))
    .orderBy(asc(agents.createdAt), asc(agents.id));
  return [...LIBRARY_AGENTS.map(libraryView), ...own.map(workspaceView)];
}

/** An agent by uuid or slug, library first; another workspace's agent is not found. */
export async function findAgent(
  db: Queryable,
  workspaceId: string,
  ref: string,
): Promise<{ view: AgentView; row: AgentRow | null } | null> {
  const library = findLibraryAgent(ref);
  if (library) return { view: libraryView(library), row: null };
  const byId = UUID.test(ref);
  const [row] = await db
    .select()
    .from(agents)
    .where(
      and(
        eq(agents.workspaceId, workspaceId),
        byId ? or(eq(agents.id, ref), eq(agents.slug, ref.toLowerCase())) : eq(agents.slug, ref),
      ),
    );
  return row ? { view: workspaceView(row), row } : null;
}

export async function getAgentOrThrow(
  db: Queryable,
  workspaceId: string,
  ref: string,
): Promise<{ view: AgentView; row: AgentRow | null }> {
  const found = await findAgent(db, workspaceId, ref);
  if (!found) throw new ApiError('not_found', `No agent "${ref}" in this workspace.`, { agent: ref });
  return found;
}

export const toResolvedAgent = (view: AgentView): ResolvedAgent => ({
  id: view.id,
  slug: view.slug,
  name: view.name,
  prompt: view.prompt,
  tool_blocklist: view.tool_blocklist,
  authored_by: view.authored_by,
});

/** kebab-case of a name, within the slug length; "agent" when nothing usable is left. */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, AGENT_LIMITS.slug - 4)
    .replace(/-+$/g, '');
  return slug || 'agent';
}

export interface NewAgent {
  name: string;
  prompt: string;
  description: string | null;
  toolBlocklist: string[];
  createdBy: string;
}

/**
 * Insert with a supplied slug: taken in this workspace or shadowing a library agent is 409
 * slug_conflict (the unique index decides a race, never a read-then-write).
 */
export async function insertAgentWithSlug(
  db: Queryable,
  workspaceId: string,
  slug: string,
  agent: NewAgent,
  now: Date,
): Promise<AgentRow> {
  if (findLibraryAgent(slug)) throw slugConflict(slug, 'it is the slug of a library agent');
  const row = await tryInsert(db, workspaceId, slug, agent, now);
  if (!row) throw slugConflict(slug, 'another agent of this workspace has it');
  return row;
}

/** Insert with a slug derived from the name, made unique with -2, -3, ... (library slugs count as taken). */
export async function insertAgentDerivingSlug(
  db: Queryable,
  workspaceId: string,
  agent: NewAgent,
  now: Date,
): Promise<AgentRow> {
  const base = slugFromName(agent.name);
  const taken = new Set(
    (
      await db
        .select({ slug: agents.slug })
        .from(agents)
        .where(
          and(
            eq(agents.workspaceId, workspaceId),
            sql`(${agents.slug} = ${base} or ${agents.slug} like ${`${base}-%`})`,
          ),
        )
    ).map((r) => r.slug),
  );
  for (const library of LIBRARY_AGENTS) taken.add(library.slug);
  for (let n = 1; n < 10_000; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (taken.has(candidate)) continue;
    const row = await tryInsert(db, workspaceId, candidate, agent, now);
    if (row) return row;
    taken.add(candidate); // Lost a race for it: try the next one.
  }
  throw new ApiError('conflict', `Could not find a free slug for "${agent.name}".`);
}

async function tryInsert(
  db: Queryable,
  workspaceId: string,
  slug: string,
  agent: NewAgent,
  now: Date,
): Promise<AgentRow | null> {
  const [row] = await db
    .insert(agents)
    .values({
      id: newId(),
      workspaceId,
      slug,
      name: agent.name,
      prompt: agent.prompt,
      description: agent.description,
      toolBlocklist: agent.toolBlocklist,
      createdBy: agent.createdBy,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

const slugConflict = (slug: string, why: string) =>
  new ApiError('slug_conflict', `The slug "${slug}" is taken: ${why}. Choose another or omit it to derive one.`, {
    slug,
  });

export async function updateAgent(
  db: Queryable,
  workspaceId: string,
  id: string,
  patch: Partial<{ name: string; prompt: string; description: string | null; toolBlocklist: string[] }>,
  now: Date,
): Promise<AgentRow> {
  const [row] = await db
    .update(agents)
    .set({ ...patch, updatedAt: now })
    .where(and(eq(agents.workspaceId, workspaceId), eq(agents.id, id)))
    .returning();
  if (!row) throw new ApiError('not_found', 'No such agent in this workspace.', { agent: id });
  return row;
}

export async function deleteAgent(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(agents)
    .where(and(eq(agents.workspaceId, workspaceId), eq(agents.id, id)))
    .returning({ id: agents.id });
  return deleted.length > 0;
}
