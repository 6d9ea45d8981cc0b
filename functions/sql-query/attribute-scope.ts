import { ApiError } from '../../platform/errors.js';
import { isObj, type Json, list, type Obj, strings } from './parse-tree.js';
import { isQueryView, VIEW_COLUMN_LISTS, VIEW_COLUMNS, VIEW_SCHEMA } from './views.js';

/**
 * Attribute notation names a column or calls a function: PostgreSQL reads `x.f` as the column f of the
 * relation x when x has one, and otherwise as the call `f(x)`; `(expr).f` likewise selects a field of a
 * row or calls f. So `f` passes only where it is a column of what x is at that point of the query, resolved
 * as PostgreSQL resolves it (a name the query gives counts only on the relation that gives it), or an
 * allowed function, which the call form may use anyway.
 *
 * The resolution follows the parser's namespaces: a query level sees its own FROM items and the levels
 * around it; a subquery in FROM sees the earlier items of its level only when LATERAL; a JOIN's ON sees that
 * join's two sides; an aliased join hides the relations inside it; a CTE's query sees the levels around
 * its WITH, not that level's FROM; a bare relation name is the nearest CTE of that name before a view.
 * Where a list of columns is only partly known the check refuses rather than guesses.
 */
export function checkAttributeNames(root: Json, allowedFunction: (name: string) => boolean): void {
  new AttributeScope(allowedFunction).expressions(root, { levels: [], ctes: [] });
}

/** A relation's output columns in order; `exact` is false when the list is only partly known. */
interface Columns {
  names: readonly string[];
  exact: boolean;
}

/** A name a FROM clause exposes: a view or CTE (under its alias), a subquery's alias, an aliased join. */
interface Entry {
  name: string;
  columns: Columns;
}

/** One query level's FROM clause. */
interface Level {
  entries: Entry[];
  /** The columns of each top-level FROM item, in order: what `*` expands to. */
  items: Columns[];
  /** Every column name of the level's items, those of relations an aliased join hides included. */
  columnNames: Set<string>;
  /** Whether every item's column list is fully known. */
  exact: boolean;
}

interface Env {
  /** Innermost first. */
  levels: Level[];
  /** The CTEs in scope, innermost WITH first. */
  ctes: Map<string, Columns>[];
}

const UNKNOWN: Columns = { names: [], exact: false };

class AttributeScope {
  constructor(private readonly allowedFunction: (name: string) => boolean) {}

  /** Walk expressions, checking attribute notation against `env` and every nested query at its own level. */
  expressions(node: Json, env: Env): void {
    if (Array.isArray(node)) {
      for (const n of node) this.expressions(n, env);
      return;
    }
    if (!isObj(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (!isObj(value)) {
        this.expressions(value, env);
        continue;
      }
      if (key === 'SelectStmt') {
        this.select(value, env);
        continue;
      }
      if (key === 'ColumnRef') this.columnRef(value, env);
      else if (key === 'A_Indirection') this.indirection(value, env);
      this.expressions(value, env);
    }
  }

  /** Check one SELECT (or set operation) and return its output columns. */
  select(select: Obj, outer: Env): Columns {
    const env = this.withClause(select.withClause, outer);
    if (typeof select.op === 'string' && select.op !== 'SETOP_NONE') {
      const left = isObj(select.larg) ? this.select(select.larg, env) : UNKNOWN;
      if (isObj(select.rarg)) this.select(select.rarg, env);
      // ORDER BY and LIMIT of a set operation name its output columns, not relations.
      this.expressions([select.sortClause ?? null, select.limitCount ?? null, select.limitOffset ?? null], env);
      return left;
    }
    const level: Level = { entries: [], items: [], columnNames: new Set(), exact: true };
    for (const item of list(select.fromClause)) {
      const columns = this.fromItem(item, level, env);
      level.items.push(columns);
    }
    const inner: Env = { levels: [level, ...env.levels], ctes: env.ctes };
    for (const [key, value] of Object.entries(select))
      if (key !== 'withClause' && key !== 'fromClause') this.expressions(value, inner);
    const values = list(select.valuesLists);
    if (values.length > 0) {
      const first = values[0];
      const width = isObj(first) && isObj(first.List) ? list(first.List.items).length : 0;
      return { names: Array.from({ length: width }, (_, i) => `column${i + 1}`), exact: true };
    }
    return this.outputColumns(list(select.targetList), level, inner);
  }

  /** The CTEs of a WITH, each checked, added to the scope of what follows them (all of them if RECURSIVE). */
  private withClause(withClause: Json | undefined, outer: Env): Env {
    if (!isObj(withClause)) return outer;
    const declared = new Map<string, Columns>();
    const env: Env = { levels: outer.levels, ctes: [declared, ...outer.ctes] };
    const recursive = withClause.recursive === true;
    const ctes = list(withClause.ctes).flatMap((n) =>
      isObj(n) && isObj(n.CommonTableExpr) ? [n.CommonTableExpr] : [],
    );
    if (recursive)
      for (const cte of ctes) declared.set(String(cte.ctename), { names: strings(cte.aliascolnames), exact: false });
    for (const cte of ctes) {
      const name = String(cte.ctename);
      const query = isObj(cte.ctequery) && isObj(cte.ctequery.SelectStmt) ? cte.ctequery.SelectStmt : null;
      const renames = strings(cte.aliascolnames);
      if (!query) {
        declared.set(name, UNKNOWN);
        continue;
      }
      // A recursive CTE's columns are its first branch's, known before the branch that reads the CTE itself.
      if (recursive && typeof query.op === 'string' && query.op !== 'SETOP_NONE' && isObj(query.larg))
        declared.set(name, renamed(this.select(query.larg, env), renames));
      // Without RECURSIVE a CTE sees only the ones before it: the map holds just those while it is checked.
      declared.set(name, renamed(this.select(query, env), renames));
    }
    return env;
  }

  /** Add one FROM item's names to the level; returns all its columns (what `*` reads from it). */
  private fromItem(item: Json, level: Level, env: Env): Columns {
    if (!isObj(item)) return UNKNOWN;
    if (isObj(item.RangeVar)) {
      const node = item.RangeVar;
      const alias = isObj(node.alias) ? node.alias : null;
      const columns = renamed(relationColumns(node, env), strings(alias?.colnames));
      const name = typeof alias?.aliasname === 'string' ? alias.aliasname : String(node.relname);
      this.expose(level, name, columns);
      return columns;
    }
    if (isObj(item.RangeSubselect)) {
      const node = item.RangeSubselect;
      const sees: Env = node.lateral === true ? { levels: [level, ...env.levels], ctes: env.ctes } : env;
      const query = isObj(node.subquery) && isObj(node.subquery.SelectStmt) ? node.subquery.SelectStmt : null;
      const alias = isObj(node.alias) ? node.alias : null;
      const columns = renamed(query ? this.select(query, sees) : UNKNOWN, strings(alias?.colnames));
      if (typeof alias?.aliasname === 'string') this.expose(level, alias.aliasname, columns);
      else this.note(level, columns);
      return columns;
    }
    if (isObj(item.JoinExpr)) return this.join(item.JoinExpr, level, env);
    level.exact = false;
    return UNKNOWN;
  }

  private join(node: Obj, level: Level, env: Env): Columns {
    const start = level.entries.length;
    const left = this.fromItem(node.larg ?? null, level, env);
    const right = this.fromItem(node.rarg ?? null, level, env);
    const sides = level.entries.slice(start);
    // ON sees the join's two sides only (and the levels around).
    const on: Level = {
      entries: sides,
      items: [left, right],
      columnNames: new Set([...left.names, ...right.names]),
      exact: left.exact && right.exact,
    };
    this.expressions(node.quals ?? null, { levels: [on, ...env.levels], ctes: env.ctes });
    const using = strings(node.usingClause);
    const merged = using.length > 0 || node.isNatural === true;
    // USING and NATURAL merge columns, so positions past the merged ones are not known here.
    const columns: Columns = { names: [...left.names, ...right.names], exact: left.exact && right.exact && !merged };
    const alias = isObj(node.alias) ? node.alias : null;
    if (typeof alias?.aliasname === 'string') {
      // The alias hides the relations inside the join.
      level.entries.splice(start);
      const named = renamed(columns, strings(alias.colnames));
      this.expose(level, alias.aliasname, named);
      return named;
    }
    const usingAlias = isObj(node.join_using_alias) ? node.join_using_alias : null;
    if (typeof usingAlias?.aliasname === 'string')
      this.expose(level, usingAlias.aliasname, { names: using, exact: true });
    return columns;
  }

  private expose(level: Level, name: string, columns: Columns): void {
    level.entries.push({ name, columns });
    this.note(level, columns);
  }

  private note(level: Level, columns: Columns): void {
    for (const column of columns.names) level.columnNames.add(column);
    if (!columns.exact) level.exact = false;
  }

  /** `x.f` (x a relation), `schema.x.f`, `catalog.schema.x.f`; a bare name or `x.*` is never a call. */
  private columnRef(ref: Obj, env: Env): void {
    const fields = list(ref.fields);
    const names = strings(ref.fields);
    const last = names.at(-1);
    if (fields.length < 2 || names.length !== fields.length || last === undefined || this.allowedFunction(last)) return;
    if (names.length === 2) {
      const found = lookup(env, names[0] as string);
      if (found === undefined)
        refuseAttribute(names.join('.'), last, `${names[0]} is not a relation of the query at that point`);
      if (!found.every((entry) => entry.columns.names.includes(last)))
        refuseAttribute(names.join('.'), last, `${last} is not a column of ${names[0]}`);
      return;
    }
    // Qualified by a schema: only a view (never an alias) can be named so.
    const relation = names.at(-2) as string;
    if (!isQueryView(relation) || !(VIEW_COLUMN_LISTS[relation] as readonly string[]).includes(last))
      refuseAttribute(names.join('.'), last, `${last} is not a column of ${relation}`);
  }

  /** `(expr).f`: a field of the row expr is, or the call f(expr). */
  private indirection(node: Obj, env: Env): void {
    let row = wholeRowColumns(node.arg ?? null, env);
    for (const step of list(node.indirection)) {
      const name = isObj(step) && isObj(step.String) && typeof step.String.sval === 'string' ? step.String.sval : null;
      if (name === null) {
        row = undefined;
        continue;
      }
      // Past a field of a known row, or on an expression whose type the guard does not work out, a view's
      // column names pass: the views' rows are the composite values a query can build on.
      if (!this.allowedFunction(name) && !VIEW_COLUMNS.has(name) && !row?.names.includes(name))
        refuseAttribute(`(...).${name}`, name, `${name} is not a column of the row it is read from`);
      row = undefined;
    }
  }

  private outputColumns(targets: Json[], level: Level, env: Env): Columns {
    const names: string[] = [];
    let exact = true;
    for (const target of targets) {
      const rt = isObj(target) && isObj(target.ResTarget) ? target.ResTarget : null;
      if (!rt) continue;
      if (typeof rt.name === 'string') {
        names.push(rt.name);
        continue;
      }
      const star = starColumns(rt.val ?? null, level, env);
      if (star) {
        names.push(...star.names);
        exact &&= star.exact;
      } else {
        names.push(figureName(rt.val ?? null)?.name ?? '?column?');
      }
    }
    return { names, exact };
  }
}

/** A view's or CTE's columns, by the name a RangeVar reads (a bare name is the nearest CTE first). */
function relationColumns(node: Obj, env: Env): Columns {
  const name = String(node.relname);
  const schema = typeof node.schemaname === 'string' ? node.schemaname : null;
  if (schema === null)
    for (const ctes of env.ctes) {
      const columns = ctes.get(name);
      if (columns) return columns;
    }
  if ((schema === null || schema === VIEW_SCHEMA) && isQueryView(name))
    return { names: VIEW_COLUMN_LISTS[name], exact: true };
  return UNKNOWN;
}

/** Columns after an alias's column list renames the first ones. */
function renamed(columns: Columns, renames: string[]): Columns {
  if (renames.length === 0) return columns;
  if (columns.exact) return { names: [...renames, ...columns.names.slice(renames.length)], exact: true };
  // Which names the list replaced is not known: keep only the views' column names, which call nothing the
  // role may not (and which the views' own rows have anyway).
  return { names: [...renames, ...columns.names.filter((n) => VIEW_COLUMNS.has(n))], exact: false };
}

/** The relations a name means at the innermost level that exposes it, or undefined when none does. */
function lookup(env: Env, name: string): Entry[] | undefined {
  for (const level of env.levels) {
    const found = level.entries.filter((entry) => entry.name === name);
    if (found.length > 0) return found;
  }
  return undefined;
}

/**
 * The columns of the row `x` or `x.*` stands for, when it is a relation's whole row. A bare name is a
 * column first, so when any level could have a column of that name (or a level's columns are not all
 * known) it is not taken for a relation.
 */
function wholeRowColumns(arg: Json, env: Env): Columns | undefined {
  const ref = isObj(arg) && isObj(arg.ColumnRef) ? arg.ColumnRef : null;
  if (!ref) return undefined;
  const fields = list(ref.fields);
  const names = strings(ref.fields);
  const name = names[0];
  const starred = fields.length === 2 && names.length === 1 && isObj(fields[1]) && isObj(fields[1].A_Star);
  if (name === undefined || !(fields.length === 1 || starred)) return undefined;
  if (!starred && env.levels.some((level) => !level.exact || level.columnNames.has(name))) return undefined;
  const found = lookup(env, name);
  return found?.length === 1 ? found[0]?.columns : undefined;
}

/** What `*` or `x.*` in a select list expands to, or undefined when the target is not a star. */
function starColumns(val: Json, level: Level, env: Env): Columns | undefined {
  const ref = isObj(val) && isObj(val.ColumnRef) ? val.ColumnRef : null;
  if (!ref) return undefined;
  const fields = list(ref.fields);
  const lastField = fields.at(-1);
  if (!isObj(lastField) || !isObj(lastField.A_Star)) return undefined;
  if (fields.length === 1)
    return { names: level.items.flatMap((c) => c.names), exact: level.items.every((c) => c.exact) };
  const relation = strings(ref.fields).at(-1);
  const found = relation === undefined ? undefined : lookup(env, relation);
  return found?.length === 1 ? (found[0]?.columns ?? UNKNOWN) : UNKNOWN;
}

/**
 * The name PostgreSQL gives an unnamed select-list item (its FigureColname), with how strongly: a cast
 * keeps its operand's strong name and otherwise takes its type's. Kinds left out get `?column?`.
 */
function figureName(node: Json): { name: string; strong: boolean } | undefined {
  if (!isObj(node)) return undefined;
  const [kind, value] = Object.entries(node)[0] ?? [];
  if (kind === undefined || !isObj(value)) return undefined;
  const strong = (name: string | undefined) => (name === undefined ? undefined : { name, strong: true });
  switch (kind) {
    case 'ColumnRef':
      return strong(strings(value.fields).at(-1));
    case 'A_Indirection':
      return strong(strings(value.indirection).at(-1)) ?? figureName(value.arg ?? null);
    case 'FuncCall':
      return strong(strings(value.funcname).at(-1));
    case 'A_Expr':
      return value.kind === 'AEXPR_NULLIF' ? strong('nullif') : undefined;
    case 'TypeCast': {
      const inner = figureName(value.arg ?? null);
      if (inner?.strong) return inner;
      const type = isObj(value.typeName) ? strings(value.typeName.names).at(-1) : undefined;
      return type === undefined ? inner : { name: type, strong: false };
    }
    case 'SubLink':
      if (value.subLinkType === 'EXISTS_SUBLINK') return strong('exists');
      if (value.subLinkType === 'ARRAY_SUBLINK') return strong('array');
      if (value.subLinkType === 'EXPR_SUBLINK')
        return strong(firstOutputName(isObj(value.subselect) ? (value.subselect.SelectStmt ?? null) : null));
      return undefined;
    case 'CaseExpr':
      return { name: 'case', strong: false };
    case 'A_ArrayExpr':
      return { name: 'array', strong: false };
    case 'CoalesceExpr':
      return strong('coalesce');
    case 'MinMaxExpr':
      return strong(value.op === 'IS_GREATEST' ? 'greatest' : 'least');
    case 'SQLValueFunction':
      return typeof value.op === 'string'
        ? strong(
            value.op
              .replace(/^SVFOP_/, '')
              .replace(/_N$/, '')
              .toLowerCase(),
          )
        : undefined;
    default:
      return undefined;
  }
}

/** The name of a scalar subquery's one column. */
function firstOutputName(select: Json): string | undefined {
  if (!isObj(select)) return undefined;
  if (typeof select.op === 'string' && select.op !== 'SETOP_NONE') return firstOutputName(select.larg ?? null);
  const first = list(select.targetList)[0];
  const rt = isObj(first) && isObj(first.ResTarget) ? first.ResTarget : null;
  if (!rt) return undefined;
  return typeof rt.name === 'string' ? rt.name : (figureName(rt.val ?? null)?.name ?? '?column?');
}

function refuseAttribute(written: string, name: string, why: string): never {
  throw new ApiError(
    'invalid_argument',
    `${written}: ${why}, and attribute notation may call a function of that name.`,
    { field: 'sql', reason: 'forbidden_function', function: name },
  );
}
