import type { z } from '@hono/zod-openapi';
import { ApiError } from './errors.js';

/** One problem with one field, as clients see it in `details.fields`. */
export interface FieldProblem {
  field: string;
  problem: string;
  code: string;
  allowed?: readonly unknown[];
}

/**
 * Validate a value against a schema and turn every zod issue into a `400 invalid_argument` that
 * names each field (dotted path) and, for unknown fields or enum values, the allowed set.
 * `prefix` names where the value came from ("body", "query", "path") only when that helps.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): z.infer<S> {
  // reportInput keeps each issue's input, so a missing field ("required") can be told from a wrong type.
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw validationError(schema, result.error.issues, prefix);
}

export function validationError(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix?: string): ApiError {
  const fields = issues.flatMap((issue) => describeIssue(schema, issue, prefix));
  const first = fields[0];
  const message = first
    ? `Invalid request: ${first.field ? `${first.field}: ` : ''}${first.problem}${fields.length > 1 ? ` (and ${fields.length - 1} more)` : ''}`
    : 'Invalid request.';
  return new ApiError('invalid_argument', message, { fields });
}

function describeIssue(root: z.ZodType, issue: z.core.$ZodIssue, prefix?: string): FieldProblem[] {
  const path = issue.path.map(String);
  const join = (p: string[]) => [prefix, ...p].filter((s): s is string => Boolean(s)).join('.');
  if (issue.code === 'unrecognized_keys') {
    const object = objectAt(root, issue.path);
    const allowed = object ? Object.keys(object.shape) : undefined;
    const retired = object ? retiredKeysOf.get(object.schema) : undefined;
    return issue.keys.map((key) => {
      const retiredBecause = retired?.[key];
      if (retiredBecause !== undefined)
        return {
          field: join([...path, key]),
          problem: `"${key}" is retired: ${retiredBecause}`,
          code: 'retired_field',
        };
      return {
        field: join([...path, key]),
        problem: `unknown field "${key}"${allowed ? `; allowed: ${allowed.join(', ')}` : ''}`,
        code: 'unknown_field',
        ...(allowed ? { allowed } : {}),
      };
    });
  }
  const problem: FieldProblem = { field: join(path), problem: issue.message, code: issue.code };
  if (issue.code === 'invalid_value' && 'values' in issue) {
    problem.allowed = issue.values.map((v) => (typeof v === 'bigint' ? String(v) : v));
  }
  // Only when the issue reports its input: zod drops `input` otherwise, and absent is not undefined.
  if (
    (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
    'input' in issue &&
    issue.input === undefined
  ) {
    problem.problem = 'required';
  }
  return [problem];
}

type AnyDef = { type: string; [key: string]: unknown };

/** Keys a strict object once took and refuses now, with why (spec, Versioning: retired keys are rejected on save). */
const retiredKeysOf = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * Name keys a strict object schema refuses because they were retired: sending one is still
 * `400 invalid_argument`, but the field's problem says it is retired (code `retired_field`) instead
 * of listing it as unknown, so a client written against the old surface learns what happened.
 */
export function withRetiredKeys<S extends z.ZodType>(schema: S, retired: Readonly<Record<string, string>>): S {
  retiredKeysOf.set(schema, retired);
  return schema;
}

/** Walk a schema along an issue path to find the object whose keys are allowed there. */
function objectAt(
  schema: z.ZodType,
  path: readonly PropertyKey[],
): { schema: object; shape: Record<string, unknown> } | undefined {
  let node: unknown = schema;
  for (let i = 0; i <= path.length; i++) {
    node = unwrap(node);
    if (i === path.length) break;
    const def = defOf(node);
    if (!def) return undefined;
    const key = path[i];
    if (def.type === 'object') node = (def.shape as Record<string, unknown>)[String(key)];
    else if (def.type === 'array') node = def.element;
    else if (def.type === 'record') node = def.valueType;
    else return undefined;
  }
  const def = defOf(node);
  if (def?.type !== 'object') return undefined;
  return { schema: node as object, shape: def.shape as Record<string, unknown> };
}

function unwrap(node: unknown): unknown {
  for (let guard = 0; guard < 20; guard++) {
    const def = defOf(node);
    if (!def) return node;
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type))
      node = def.innerType;
    else if (def.type === 'pipe') node = def.in;
    else if (def.type === 'lazy') node = (def.getter as () => unknown)();
    else return node;
  }
  return node;
}

function defOf(node: unknown): AnyDef | undefined {
  const zod = (node as { _zod?: { def?: AnyDef } } | undefined)?._zod;
  return zod?.def;
}
