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
  // A refinement may name its own problem code (`params.code`), e.g. invalid_date.
  const own = issue.code === 'custom' && typeof issue.params?.code === 'string' ? issue.params.code : null;
  const problem: FieldProblem = { field: join(path), problem: issue.message, code: own ?? issue.code };
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

// ---- dates -------------------------------------------------------------------------------------
// The one calendar the service reads dates with: typed values (filters' timestamps and dates), and
// the dates written in free text that an operation reads a period from (search queries, questions).

const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A date written in text as year, month and day (2026-02-30, 2026/13/01), not inside a longer number or word. */
const DATE_IN_TEXT = /(?<![\p{L}\p{N}./-])(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?!\p{N}|[-/.]\d|(?!T\d)\p{L})/gu;

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Whether year, month (1-12) and day name a day of the calendar (years 1-9999). */
export function isCalendarDate(y: number, m: number, d: number): boolean {
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

/** An ISO date (YYYY-MM-DD) as epoch ms at UTC midnight, or null when it names no day (2026-02-30). */
export function parseIsoDate(value: string): number | null {
  const m = ISO_DATE.exec(value.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!isCalendarDate(y, mo, d)) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getTime();
}

/** An ISO 8601 date or date-time (no offset means UTC) as epoch ms, or null when it is not one. */
export function parseIsoTimestamp(value: string): number | null {
  const m = ISO_TIMESTAMP.exec(value.trim());
  if (!m) return null;
  const [, ys, mos, ds, hs = '00', mis = '00', ss = '00', frac = '', zone = 'Z'] = m;
  const [y, mo, d, h, mi, s] = [ys, mos, ds, hs, mis, ss].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
    if (!zm) return null;
    const oh = Number(zm[2]);
    const om = Number(zm[3] ?? '0');
    if (oh > 14 || om > 59) return null;
    offsetMinutes = (zm[1] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Math.floor(Number(`0${frac || '.0'}`) * 1000);
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  const t = date.getTime() - offsetMinutes * 60_000;
  const year = new Date(t).getUTCFullYear();
  return year >= 1 && year <= 9999 ? t : null;
}

/** The first date written in the text (year, month, day) that names no day of the calendar, or null. */
export function impossibleDateIn(text: string): string | null {
  for (const m of text.matchAll(DATE_IN_TEXT))
    if (!isCalendarDate(Number(m[1]), Number(m[3]), Number(m[4]))) return m[0];
  return null;
}

const impossibleDateProblem = (date: string): string =>
  `"${date}" is not a date (no such month or day); write a real one as YYYY-MM-DD`;

/**
 * `400 invalid_argument` for a date written in text that does not exist, naming the phrase it was
 * read from (and the field, when the caller knows it).
 */
export function impossibleDateError(date: string, phrase: string, field?: string): ApiError {
  const problem = impossibleDateProblem(date);
  return new ApiError('invalid_argument', `Invalid request: ${field ? `${field}: ` : ''}in "${phrase}", ${problem}`, {
    reason: 'invalid_date',
    phrase,
    ...(field ? { fields: [{ field, problem, code: 'invalid_date' }] } : {}),
  });
}

/**
 * The checks `readsDates` adds. A check, not the schema, marks the field: a schema described after
 * (`.openapi()`) is a new instance that keeps its checks.
 */
const readsDatesChecks = new WeakSet<object>();
const checksOf = (node: unknown): readonly object[] => {
  const checks = defOf(node)?.checks;
  return Array.isArray(checks) ? (checks as object[]) : [];
};

/**
 * A free-text field the service reads a period from ("emails since 2026-02-30"): a date written in it
 * that does not exist is `400 invalid_argument` naming the field (code `invalid_date`), before any
 * lane or run reads it. The schema is recorded, so a test can find every field that reads dates.
 */
export function readsDates<S extends z.ZodType<string | undefined>>(schema: S): S {
  const checked = schema.superRefine((text, ctx) => {
    const date = typeof text === 'string' ? impossibleDateIn(text) : null;
    if (date) ctx.addIssue({ code: 'custom', message: impossibleDateProblem(date), params: { code: 'invalid_date' } });
  }) as unknown as S;
  const check = checksOf(checked).at(-1);
  if (check) readsDatesChecks.add(check);
  return checked;
}

/** The top-level fields of an object schema declared with `readsDates`. */
export function fieldsReadingDates(schema: z.ZodType | undefined): string[] {
  const shape = schema ? objectAt(schema, [])?.shape : undefined;
  if (!shape) return [];
  return Object.entries(shape)
    .filter(([, field]) => {
      for (let node: unknown = field, guard = 0; node && guard < 10; guard++) {
        if (checksOf(node).some((c) => readsDatesChecks.has(c))) return true;
        const def = defOf(node);
        node =
          def && ['optional', 'nullable', 'default', 'prefault', 'readonly'].includes(def.type)
            ? def.innerType
            : undefined;
      }
      return false;
    })
    .map(([key]) => key);
}
