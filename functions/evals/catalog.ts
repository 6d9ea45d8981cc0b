import { and, asc, eq } from 'drizzle-orm';
import { workspaceEvals } from '../../schema/index.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import {
  BUILTIN_EVALS,
  GraderSpecSchema,
  InputSchemaSpec,
  definitionProblems,
  type EvalDefinition,
  type GraderSpec,
  type InputError,
} from './definition.js';
import { z } from 'zod';

/**
 * The evals a workspace can run: the built-in ones (code) and its own (schema/evals.ts), found by
 * slug or id. A workspace eval's version moves on every change to its grading (input schema or
 * graders): 1.0.0, then 1.1.0, 1.2.0...
 */
type Row = typeof workspaceEvals.$inferSelect;

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,58}[a-z0-9]$/;

function fromRow(row: Row): EvalDefinition {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    version: row.version,
    builtin: false,
    inputSchema: InputSchemaSpec.parse(row.inputSchema),
    graders: z.array(GraderSpecSchema).parse(row.graders),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listEvals(db: Queryable, workspaceId: string): Promise<EvalDefinition[]> {
  const rows = await db
    .select()
    .from(workspaceEvals)
    .where(eq(workspaceEvals.workspaceId, workspaceId))
    .orderBy(asc(workspaceEvals.slug));
  return [...BUILTIN_EVALS, ...rows.map(fromRow)];
}

/** An eval by slug or id, built-in or this workspace's; null when there is none. */
export async function findEval(db: Queryable, workspaceId: string, ref: string): Promise<EvalDefinition | null> {
  const builtin = BUILTIN_EVALS.find((e) => e.slug === ref || e.id === ref);
  if (builtin) return builtin;
  const byId = isUuid(ref);
  const [row] = await db
    .select()
    .from(workspaceEvals)
    .where(
      and(
        eq(workspaceEvals.workspaceId, workspaceId),
        byId ? eq(workspaceEvals.id, ref) : eq(workspaceEvals.slug, ref),
      ),
    );
  return row ? fromRow(row) : null;
}

export async function requireWorkspaceEval(db: Queryable, workspaceId: string, ref: string): Promise<Row> {
  if (BUILTIN_EVALS.some((e) => e.slug === ref || e.id === ref))
    throw new ApiError('locked', `${ref} is a built-in eval and cannot be changed.`, { eval: ref });
  const byId = isUuid(ref);
  const [row] = await db
    .select()
    .from(workspaceEvals)
    .where(
      and(
        eq(workspaceEvals.workspaceId, workspaceId),
        byId ? eq(workspaceEvals.id, ref) : eq(workspaceEvals.slug, ref),
      ),
    );
  if (!row) throw new ApiError('not_found', `No eval ${ref} in this workspace.`, { eval: ref });
  return row;
}

export interface EvalDraft {
  slug?: string | undefined;
  name: string;
  description?: string | undefined;
  input_schema: unknown;
  graders: unknown;
}

/** Validate an authored eval without storing it: every problem, with the field it is in. */
export function validateDraft(draft: { input_schema: unknown; graders: unknown }): {
  inputSchema: InputSchemaSpec | null;
  graders: GraderSpec[] | null;
  issues: InputError[];
} {
  const issues: InputError[] = [];
  const schema = InputSchemaSpec.safeParse(draft.input_schema);
  if (!schema.success)
    for (const i of schema.error.issues)
      issues.push({ field: ['input_schema', ...i.path].join('.'), problem: i.message, code: i.code });
  const graders = z.array(GraderSpecSchema).min(1).max(12).safeParse(draft.graders);
  if (!graders.success)
    for (const i of graders.error.issues)
      issues.push({ field: ['graders', ...i.path].join('.'), problem: i.message, code: i.code });
  if (schema.success && graders.success) issues.push(...definitionProblems(schema.data, graders.data));
  return { inputSchema: schema.success ? schema.data : null, graders: graders.success ? graders.data : null, issues };
}

const invalid = (issues: InputError[]) =>
  new ApiError(
    'invalid_argument',
    `Invalid eval: ${issues[0]?.field}: ${issues[0]?.problem}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
    { fields: issues },
  );

export async function createEval(
  db: Queryable,
  workspaceId: string,
  userId: string,
  draft: EvalDraft & { slug: string },
  now: Date,
): Promise<EvalDefinition> {
  const checked = validateDraft(draft);
  if (checked.issues.length > 0 || !checked.inputSchema || !checked.graders) throw invalid(checked.issues);
  if (BUILTIN_EVALS.some((e) => e.slug === draft.slug))
    throw new ApiError('slug_conflict', `"${draft.slug}" is the slug of a built-in eval.`, { slug: draft.slug });
  const [row] = await db
    .insert(workspaceEvals)
    .values({
      id: newId(),
      workspaceId,
      slug: draft.slug,
      name: draft.name,
      description: draft.description ?? '',
      version: '1.0.0',
      inputSchema: checked.inputSchema as unknown as Record<string, unknown>,
      graders: checked.graders as unknown as Record<string, unknown>[],
      createdBy: userId,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row)
    throw new ApiError('slug_conflict', `An eval with slug "${draft.slug}" already exists in this workspace.`, {
      slug: draft.slug,
    });
  return fromRow(row);
}

const bumpMinor = (version: string): string => {
  const [major = '1', minor = '0'] = version.split('.');
  return `${major}.${Number(minor) + 1}.0`;
};

export async function updateEval(
  db: Queryable,
  workspaceId: string,
  ref: string,
  patch: { name?: string | undefined; description?: string | undefined; input_schema?: unknown; graders?: unknown },
  now: Date,
): Promise<EvalDefinition> {
  const row = await requireWorkspaceEval(db, workspaceId, ref);
  const candidate = { input_schema: patch.input_schema ?? row.inputSchema, graders: patch.graders ?? row.graders };
  const checked = validateDraft(candidate);
  if (checked.issues.length > 0 || !checked.inputSchema || !checked.graders) throw invalid(checked.issues);
  const gradingChanged =
    JSON.stringify(checked.inputSchema) !== JSON.stringify(InputSchemaSpec.parse(row.inputSchema)) ||
    JSON.stringify(checked.graders) !== JSON.stringify(z.array(GraderSpecSchema).parse(row.graders));
  const [updated] = await db
    .update(workspaceEvals)
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      inputSchema: checked.inputSchema as unknown as Record<string, unknown>,
      graders: checked.graders as unknown as Record<string, unknown>[],
      version: gradingChanged ? bumpMinor(row.version) : row.version,
      updatedAt: now,
    })
    .where(and(eq(workspaceEvals.id, row.id), eq(workspaceEvals.workspaceId, workspaceId)))
    .returning();
  if (!updated) throw new ApiError('not_found', `No eval ${ref} in this workspace.`, { eval: ref });
  return fromRow(updated);
}

export async function deleteEval(
  db: Queryable,
  workspaceId: string,
  ref: string,
): Promise<{ id: string; slug: string }> {
  const row = await requireWorkspaceEval(db, workspaceId, ref);
  await db
    .delete(workspaceEvals)
    .where(and(eq(workspaceEvals.id, row.id), eq(workspaceEvals.workspaceId, workspaceId)));
  return { id: row.id, slug: row.slug };
}
