import { sql, type SQL } from 'drizzle-orm';
import type { FieldInfo, FieldType } from './fields.js';
import { pgTimestampToIso } from '../../platform/db/timestamps.js';
import { parseIsoDate, parseIsoTimestamp } from '../../platform/validation.js';

/**
 * Values of the filter lane: a caller's scalar checked against its field's type and turned into a
 * bound parameter plus its literal for compiled.sql; and values read back from Postgres in their
 * JSON form. The filter compiler (filter-compiler.ts) builds statements from these.
 */

export type Scalar = string | number | boolean;

/** A value checked against its field's type: the bound parameter and its literal for compiled.sql. */
export interface TypedValue {
  param: SQL;
  literal: string;
  /** Epoch ms, for timestamp values (time window analysis). */
  ms?: number;
}

export type OutputKind = FieldType | 'count' | 'numeric';

export const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;
export const describeValue = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : JSON.stringify(v);

// ---------------------------------------------------------------------------------------------
// Values in

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Epoch ms as the ISO 8601 text Postgres reads back unambiguously (years 1-9999). */
export function isoFromMs(ms: number): string {
  return new Date(ms).toISOString();
}

export function typedValue(field: FieldInfo, raw: Scalar): TypedValue | string {
  switch (field.type) {
    case 'string':
    case 'text': {
      if (typeof raw !== 'string') return `expected a string for ${field.name}, got ${describeValue(raw)}`;
      if (raw.includes('\u0000')) return 'a string may not contain the NUL character';
      return { param: sql`${raw}::text`, literal: quote(raw) };
    }
    case 'enum': {
      if (typeof raw !== 'string' || !field.values?.includes(raw))
        return `expected one of ${field.values?.join(', ')} for ${field.name}, got ${describeValue(raw)}`;
      return { param: sql`${raw}::text`, literal: quote(raw) };
    }
    case 'number': {
      if (typeof raw !== 'number' || !Number.isFinite(raw))
        return `expected a number for ${field.name}, got ${describeValue(raw)}`;
      return { param: sql`${String(raw)}::numeric`, literal: String(raw) };
    }
    case 'integer': {
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw))
        return `expected an integer for ${field.name}, got ${describeValue(raw)}`;
      return { param: sql`${String(raw)}::bigint`, literal: String(raw) };
    }
    case 'timestamp': {
      const ms = typeof raw === 'string' ? parseIsoTimestamp(raw) : null;
      if (ms === null)
        return `expected an ISO 8601 timestamp (e.g. 2026-01-31 or 2026-01-31T09:00:00Z) for ${field.name}, got ${describeValue(raw)}`;
      const iso = isoFromMs(ms);
      return { param: sql`${iso}::timestamptz`, literal: quote(iso), ms };
    }
    case 'date': {
      if (typeof raw !== 'string' || parseIsoDate(raw) === null)
        return `expected an ISO date (YYYY-MM-DD) for ${field.name}, got ${describeValue(raw)}`;
      return { param: sql`${raw}::date`, literal: quote(raw as string) };
    }
    case 'boolean': {
      if (typeof raw !== 'boolean') return `expected true or false for ${field.name}, got ${describeValue(raw)}`;
      return { param: raw ? sql`true` : sql`false`, literal: raw ? 'TRUE' : 'FALSE' };
    }
    case 'uuid': {
      if (typeof raw !== 'string' || !UUID.test(raw))
        return `expected a UUID for ${field.name}, got ${describeValue(raw)}`;
      return { param: sql`${raw.toLowerCase()}::uuid`, literal: quote(raw.toLowerCase()) };
    }
  }
}

export const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** `%`, `_` and the escape character itself are matched literally by `contains`. */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// ---------------------------------------------------------------------------------------------
// Reading values back

/** One output value in its JSON form: ISO timestamps, numbers as numbers, null as null. */
export function outputValue(kind: OutputKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'timestamp':
      return pgTimestampToIso(value);
    case 'number':
    case 'integer':
    case 'count':
    case 'numeric': {
      const n = typeof value === 'bigint' ? Number(value) : Number(value);
      return Number.isFinite(n) ? n : null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 't' || value === 'true';
    case 'date':
      return value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10);
    default:
      return String(value);
  }
}
