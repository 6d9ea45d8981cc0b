import { readMigrationFiles } from 'drizzle-orm/migrator';
import { MIGRATIONS_FOLDER } from '../../platform/db/migrations-folder.js';

/**
 * The migrations as the PostgreSQL tier applies them: pgvector is not packaged for Debian's
 * PostgreSQL 15, so the vector store is LEFT OUT, never imitated (no stand-in `vector` type):
 *
 * - `CREATE EXTENSION ... vector` is skipped;
 * - a table with a NOT NULL vector column is a vector store table (utterance_vectors,
 *   knowledge_node_vectors, entity_centroids): its CREATE TABLE and every later statement naming it
 *   are skipped;
 * - a nullable vector column of another table (themes.embedding, memory_evidence.embedding, the old
 *   utterances.embedding) is dropped from its CREATE TABLE with the CHECKs that read it, and every
 *   later statement naming that column, those CHECKs or an index left out is skipped.
 *
 * Code that reads or writes any of these fails on this tier, loudly (42P01/42703): the tier runs the
 * race tests, none of which touch vectors. `leftOut` names everything skipped, for the set-up's log.
 */
export interface VectorFreeSchema {
  statements: string[];
  leftOut: string[];
}

const VECTOR_COLUMN = /^\s*"([^"]+)"\s+vector\(\d+\)(\s+NOT NULL)?[^,]*,?\s*$/;
const CREATE_TABLE = /^\s*CREATE TABLE(?: IF NOT EXISTS)? "([^"]+)"/i;
const CREATED_NAME = /^\s*(?:CREATE (?:UNIQUE )?INDEX(?: IF NOT EXISTS)?|CREATE TABLE(?: IF NOT EXISTS)?) "([^"]+)"/i;
const CONSTRAINT_LINE = /^\s*CONSTRAINT "([^"]+)"/;

export function vectorFreeStatements(migrationsFolder = MIGRATIONS_FOLDER): VectorFreeSchema {
  const statements: string[] = [];
  const leftOut: string[] = [];
  /** Quoted names whose mention makes a later statement skipped (tables, indexes, constraints). */
  const goneNames = new Set<string>();
  /** Columns dropped from their table: a statement naming both the table and the column is skipped. */
  const goneColumns: { table: string; column: string }[] = [];

  const namesGone = (text: string): boolean =>
    [...goneNames].some((name) => text.includes(`"${name}"`)) ||
    goneColumns.some(({ table, column }) => text.includes(`"${table}"`) && text.includes(`"${column}"`));

  for (const migration of readMigrationFiles({ migrationsFolder })) {
    for (const raw of migration.sql) {
      const text = raw.trim();
      if (text === '') continue;
      if (/CREATE EXTENSION[^;]*\bvector\b/i.test(text)) {
        leftOut.push('extension vector');
        continue;
      }
      const table = CREATE_TABLE.exec(text)?.[1];
      if (table) {
        const lines = text.split('\n');
        const vectorLines = lines.map((line) => VECTOR_COLUMN.exec(line));
        if (vectorLines.some((match) => match?.[2])) {
          goneNames.add(table);
          leftOut.push(`table ${table}`);
          continue;
        }
        const dropped = vectorLines.flatMap((match) => (match?.[1] ? [match[1]] : []));
        if (dropped.length > 0) {
          statements.push(withoutColumns(lines, table, dropped, goneNames, leftOut));
          for (const column of dropped) goneColumns.push({ table, column });
          continue;
        }
      }
      const created = CREATED_NAME.exec(text)?.[1];
      // Creating anew a name left out earlier (an index rebuilt without the column) is kept when
      // nothing else it names is gone.
      if (created && goneNames.has(created)) goneNames.delete(created);
      if (namesGone(text)) {
        if (created) goneNames.add(created);
        leftOut.push(`statement ${text.replace(/\s+/g, ' ').slice(0, 90)}`);
        continue;
      }
      statements.push(text);
    }
  }
  return { statements, leftOut };
}

/** The CREATE TABLE without the vector columns and the constraint lines that read them. */
function withoutColumns(
  lines: string[],
  table: string,
  columns: string[],
  goneNames: Set<string>,
  leftOut: string[],
): string {
  const kept = lines.filter((line) => {
    if (columns.some((column) => VECTOR_COLUMN.exec(line)?.[1] === column)) {
      leftOut.push(`column ${table}.${VECTOR_COLUMN.exec(line)?.[1]}`);
      return false;
    }
    const constraint = CONSTRAINT_LINE.exec(line)?.[1];
    if (constraint && columns.some((column) => line.includes(`"${column}"`))) {
      goneNames.add(constraint);
      leftOut.push(`constraint ${constraint}`);
      return false;
    }
    return true;
  });
  // The line before the closing parenthesis may now end in a comma.
  const close = kept.findLastIndex((line) => line.trim().startsWith(')'));
  const last = close - 1;
  if (last >= 0) kept[last] = (kept[last] ?? '').replace(/,\s*$/, '');
  return kept.join('\n');
}
