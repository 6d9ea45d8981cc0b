/** Timestamps as the database drivers return them (a Date from one, Postgres text from another). */

/** Postgres text of a timestamptz (`2026-01-31 09:00:00.123456+00`) or a Date, as ISO 8601 UTC. */
export function pgTimestampToIso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  const text = String(value);
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?([+-]\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(text);
  const normalized = m ? `${m[1]}T${m[2]}${(m[3] ?? '').slice(0, 4)}${m[4]}:${m[5] ?? '00'}` : text;
  const d = new Date(normalized);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A timestamp as the database returns it (a Date, or Postgres text on either driver), as a Date. */
export function toDate(value: unknown): Date | null {
  const iso = pgTimestampToIso(value);
  return iso ? new Date(iso) : null;
}
