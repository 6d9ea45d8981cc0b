import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from './port.js';

/**
 * A page of rows upserted in one statement with one parameter: the rows as a JSON array, turned
 * back into the table's row type by `jsonb_populate_recordset`. Measured on PGlite with 100
 * contacts a page it costs about half of drizzle's multi-row `VALUES` upsert (which binds a
 * parameter per cell and builds the query cell by cell), and on Neon it is one small request
 * whatever the row count. Values go through each column's own driver mapping (timestamps,
 * vectors), so what lands is what drizzle would have written.
 *
 * Every row must set the same columns: a column some rows leave out would be null in them, not
 * its default, so a mismatch is refused rather than written.
 */
export interface UpsertConflict<T extends PgTable> {
  /** The unique index the rows are matched on; without it, any unique violation skips the row. */
  target?: PgColumn[];
  /** Columns (by their TypeScript key) overwritten from the incoming row on a match; none: a match is left as it is. */
  update?: (keyof T['$inferInsert'] & string)[];
  /** Only rows matching this are overwritten (e.g. a newer version); others are left alone. */
  updateWhere?: SQL;
}

export async function upsertRows<T extends PgTable>(
  db: Queryable,
  table: T,
  rows: readonly T['$inferInsert'][],
  conflict: UpsertConflict<T> = {},
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.entries(getTableColumns(table)).filter(([, column]) => !column.generated) as [
    string,
    PgColumn,
  ][];
  const first = rows[0] as Record<string, unknown>;
  const used = columns.filter(([key]) => first[key] !== undefined);
  const records = rows.map((row) => {
    const values = row as Record<string, unknown>;
    const record: Record<string, unknown> = {};
    for (const [key, column] of used) {
      const value = values[key];
      if (value === undefined) throw new Error(`upsertRows(${getTableName(table)}): every row must set "${key}"`);
      record[column.name] = toJsonValue(column, value);
    }
    return record;
  });
  const names = sql.join(
    used.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  );
  const updates = (conflict.update ?? []).map((key) => {
    const column = (getTableColumns(table) as Record<string, PgColumn>)[key];
    if (!column) throw new Error(`upsertRows(${getTableName(table)}): no column "${key}"`);
    return sql`${sql.identifier(column.name)} = excluded.${sql.identifier(column.name)}`;
  });
  const target = conflict.target
    ? sql`(${sql.join(
        conflict.target.map((column) => sql.identifier(column.name)),
        sql`, `,
      )}) `
    : sql``;
  const onConflict =
    updates.length === 0
      ? sql`do nothing`
      : sql`do update set ${sql.join(updates, sql`, `)}${conflict.updateWhere ? sql` where ${conflict.updateWhere}` : sql``}`;
  const tableName = sql.identifier(getTableName(table));
  await db.execute(
    sql`insert into ${tableName} (${names}) select ${names} from jsonb_populate_recordset(null::${tableName}, ${JSON.stringify(records)}::jsonb) on conflict ${target}${onConflict}`,
  );
}

/** A value as JSON that the column's input function reads back: json columns as JSON, the rest as their driver value. */
function toJsonValue(column: PgColumn, value: unknown): unknown {
  if (value === null) return null;
  if (column.getSQLType().startsWith('json')) return value;
  const driver = column.mapToDriverValue(value);
  if (driver instanceof Date) return driver.toISOString();
  return driver;
}
