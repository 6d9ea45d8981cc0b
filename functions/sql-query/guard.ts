import { ApiError } from '../../platform/errors.js';
import type { SqlParseResult, SqlParser } from '../../platform/sql-parser/port.js';
import { checkAttributeNames } from './attribute-scope.js';
import { isNodeKind, isObj, type Json, type Obj, strings } from './parse-tree.js';
import { isQueryView, QUERY_VIEWS, VIEW_SCHEMA } from './views.js';

/**
 * What caller SQL may say, decided on the real Postgres parser's tree (libpg-query, through the
 * runtime's SqlParser adapter: platform/sql-parser) before anything runs. Everything is an allow
 * list, so what is not named here is refused:
 *   - one statement, a SELECT (no SELECT INTO, no FOR UPDATE, no data-modifying CTEs: those are
 *     other node kinds, and only the node kinds below may appear anywhere in the tree);
 *   - relations: the views in schema `ws_views` (bare or qualified) and the query's own CTE names;
 *   - functions: the ones in ALLOWED_FUNCTIONS, bare (or pg_catalog-qualified, which is how the
 *     parser spells SQL-syntax forms like EXTRACT); no set_config, current_setting, sleeps, dblink...;
 *   - casts: to the plain types in ALLOWED_TYPES (no regclass and friends, which read catalogs);
 *   - attribute notation (`rel.name`, `(expr).name`): Postgres reads `x.f` as the call `f(x)` when x has no
 *     column f, so the name must be a column of what x is at that point of the query (a name the query
 *     gives counts only on the relation that gives it) or an allowed function; anything else could be any
 *     function at all (attribute-scope.ts).
 * Identifiers are compared after parsing, so comments, quoting and U&"..." escapes change nothing.
 * The guard is the outer layer: the statement then runs as a role that can read only the views and call
 * only the allowed functions (sandbox.ts), so what the guard misses still reads one workspace.
 */
export { QUERY_VIEWS, VIEW_COLUMNS, VIEW_SCHEMA } from './views.js';

export const ALLOWED_FUNCTIONS = new Set([
  // aggregates
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'bool_and',
  'bool_or',
  'every',
  'string_agg',
  'array_agg',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'percentile_cont',
  'percentile_disc',
  'mode',
  // window
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  // scalar
  'abs',
  'ceil',
  'ceiling',
  'floor',
  'round',
  'trunc',
  'sign',
  'greatest',
  'least',
  'nullif',
  'lower',
  'upper',
  'length',
  'char_length',
  'btrim',
  'ltrim',
  'rtrim',
  'trim',
  'substr',
  'substring',
  'left',
  'right',
  'position',
  'strpos',
  'replace',
  'split_part',
  'concat',
  'concat_ws',
  'initcap',
  'starts_with',
  'date_trunc',
  'date_part',
  'extract',
  'age',
  'now',
  'to_char',
  'make_date',
  'coalesce',
  'array_length',
  'cardinality',
]);

export const ALLOWED_TYPES = new Set([
  'text',
  'varchar',
  'bpchar',
  'int2',
  'int4',
  'int8',
  'integer',
  'int',
  'bigint',
  'smallint',
  'numeric',
  'float4',
  'float8',
  'real',
  'bool',
  'boolean',
  'date',
  'timestamp',
  'timestamptz',
  'interval',
  'uuid',
]);

/** Parse-tree node kinds a read-only SELECT over the views needs; any other kind is refused. */
const ALLOWED_NODES = new Set([
  'RawStmt',
  'SelectStmt',
  'ResTarget',
  'ColumnRef',
  'String',
  'A_Star',
  'A_Const',
  'Integer',
  'Float',
  'Boolean',
  'A_Expr',
  'BoolExpr',
  'FuncCall',
  'TypeCast',
  'TypeName',
  'RangeVar',
  'Alias',
  'JoinExpr',
  'SortBy',
  'NullTest',
  'BooleanTest',
  'CaseExpr',
  'CaseWhen',
  'CoalesceExpr',
  'MinMaxExpr',
  'SubLink',
  'WithClause',
  'CommonTableExpr',
  'RangeSubselect',
  'List',
  'WindowDef',
  'GroupingSet',
  'A_ArrayExpr',
  'A_Indirection',
  'A_Indices',
  'SQLValueFunction',
]);

const refuse = (reason: string, message: string, extra: Record<string, unknown> = {}): never => {
  throw new ApiError('invalid_argument', message, { field: 'sql', reason, ...extra });
};

/** 503, never 400 or a run: SQL the parser could not check does not run. */
function unavailable(parser: SqlParser, e: unknown): ApiError {
  return new ApiError('dependency_unavailable', 'The SQL parser could not load, so no SQL runs.', {
    reason: 'sql_parser_unavailable',
    parser: parser.kind,
    cause: e instanceof Error ? e.message : String(e),
  });
}

/** The one SELECT's text, checked; throws 400 invalid_argument naming why otherwise. */
export async function checkQuery(parser: SqlParser, text: string): Promise<string> {
  let parsed: SqlParseResult;
  try {
    parsed = await parser.parse(text);
  } catch (e) {
    throw unavailable(parser, e);
  }
  if (!parsed.ok) return refuse('syntax_error', `The SQL does not parse: ${parsed.syntaxError}`);
  const tree: Obj = isObj(parsed.tree as Json) ? (parsed.tree as Obj) : {};
  const stmts = Array.isArray(tree.stmts) ? tree.stmts : [];
  if (stmts.length !== 1)
    refuse('multiple_statements', `Send exactly one statement (got ${stmts.length}).`, { statements: stmts.length });
  const raw = stmts[0] as Obj;
  const stmt = raw.stmt as Obj;
  if (!isObj(stmt) || !isObj(stmt.SelectStmt)) {
    const kind = isObj(stmt) ? Object.keys(stmt)[0] : 'unknown';
    refuse('not_select', `Only a SELECT runs here (got ${kind}).`, { statement: kind });
  }
  const ctes = new Set<string>();
  collectCtes(stmt, ctes);
  walk(stmt, ctes);
  checkAttributeNames(stmt, (name) => ALLOWED_FUNCTIONS.has(name));
  const start = typeof raw.stmt_location === 'number' ? raw.stmt_location : 0;
  const length = typeof raw.stmt_len === 'number' && raw.stmt_len > 0 ? raw.stmt_len : undefined;
  // The parser counts bytes; slice the UTF-8 bytes so a multibyte character before it cannot shift it.
  const bytes = new TextEncoder().encode(text);
  return new TextDecoder().decode(bytes.slice(start, length === undefined ? undefined : start + length));
}

function collectCtes(node: Json, into: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) collectCtes(n, into);
  else if (isObj(node))
    for (const [key, value] of Object.entries(node)) {
      if (key === 'CommonTableExpr' && isObj(value) && typeof value.ctename === 'string') {
        if (value.ctename.startsWith('pg_'))
          refuse('forbidden_relation', `A CTE may not be named ${value.ctename}.`, { relation: value.ctename });
        into.add(value.ctename);
      }
      collectCtes(value, into);
    }
}

function walk(node: Json, ctes: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) walk(n, ctes);
    return;
  }
  if (!isObj(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (isNodeKind(key)) {
      if (!ALLOWED_NODES.has(key)) refuse('forbidden_construct', `${key} is not allowed in a query.`, { node: key });
      if (isObj(value)) checkNode(key, value, ctes);
    } else if (key === 'lockingClause' || key === 'intoClause') {
      refuse('forbidden_construct', `${key === 'intoClause' ? 'SELECT INTO' : 'FOR UPDATE/SHARE'} is not allowed.`, {
        node: key,
      });
    }
    walk(value, ctes);
  }
}

function checkNode(kind: string, node: Obj, ctes: Set<string>): void {
  if (kind === 'RangeVar') {
    const schema = typeof node.schemaname === 'string' ? node.schemaname : null;
    const name = String(node.relname);
    if (typeof node.catalogname === 'string' || (schema !== null && schema !== VIEW_SCHEMA))
      refuse('forbidden_relation', `Only the ${VIEW_SCHEMA} views can be read (not ${schema}.${name}).`, {
        relation: `${schema}.${name}`,
        allowed: QUERY_VIEWS,
      });
    const isView = isQueryView(name);
    if (!isView && (schema !== null || !ctes.has(name)))
      refuse('forbidden_relation', `${name} is not one of the queryable views.`, {
        relation: name,
        allowed: QUERY_VIEWS,
      });
  } else if (kind === 'FuncCall') {
    const names = strings(node.funcname);
    const fn = names.at(-1) ?? '';
    const qualifiedOk = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog');
    if (!qualifiedOk || !ALLOWED_FUNCTIONS.has(fn))
      refuse('forbidden_function', `The function ${names.join('.')} is not allowed.`, { function: names.join('.') });
  } else if (kind === 'TypeName' || kind === 'TypeCast') {
    // A cast carries its type as the `typeName` field, not as a TypeName node of its own.
    const typeName = kind === 'TypeCast' ? node.typeName : node;
    const names = strings(isObj(typeName) ? typeName.names : null);
    const type = names.at(-1) ?? '';
    const qualifiedOk = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog');
    if (!qualifiedOk || !ALLOWED_TYPES.has(type))
      refuse('forbidden_type', `Casting to ${names.join('.')} is not allowed.`, { type: names.join('.') });
  }
}
