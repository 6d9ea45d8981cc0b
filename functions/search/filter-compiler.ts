import { sql, type SQL } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import type { FieldProblem } from '../../platform/validation.js';
import { joinsFor, SURFACE_VOCABULARY, type FieldInfo, type SurfaceVocabulary } from './fields.js';
import {
  describeValue,
  escapeLike,
  isScalar,
  quote,
  typedValue,
  type OutputKind,
  type Scalar,
  type TypedValue,
} from './filter-values.js';
import { RECENT_WINDOW_DAYS, type ResolvedSearch } from './lane.js';
import { SEARCH_LIMITS, type Filter, type FilterOperator, type Metric, type MetricFunction } from './request.js';
import { customerVoice, interactionInScope } from './scope-predicates.js';

/**
 * The filter compiler: typed predicates, `group_by`, metrics, `order_by` and `limit` over one
 * surface, checked against the field vocabulary (functions/search/fields.ts) and compiled to
 * parameterized SQL. Field names are only looked up in the vocabulary (their SQL is the
 * vocabulary's own constant); every value reaches the database as a bound, typed parameter.
 *
 * Besides the statement it runs, the compiler writes `compiled.sql`, the record of intent the spec
 * asks for. Its format:
 *   - the surface is named by its logical name and read as a view whose columns are the surface's
 *     vocabulary fields (joined fields such as `account_name` included), so `SELECT *` means every
 *     vocabulary field;
 *   - the caller's predicates follow in order, ANDed, with literals quoted (strings in single quotes
 *     with quotes doubled; timestamps normalised to ISO 8601 UTC; `contains` as `ILIKE '%…%'` with
 *     `%`, `_` and `\` escaped);
 *   - then GROUP BY, ORDER BY (with the tie-breakers the lane adds) and LIMIT;
 *   - the tenant predicate, the excluded-interaction predicate and the customer-voice predicate are
 *     not shown: the gate injects them (corpus.audience_applied says whether customer voice ran).
 * It is never executed. Value typing and read-back live in filter-values.ts.
 *
 * Null semantics: `neq` and `not_in` keep rows whose field is null (null is not equal to the value;
 * SQL `IS DISTINCT FROM`); `eq`, `in` and comparisons never match null; `contains` is a
 * case-insensitive substring match, `eq` on text is exact.
 */

const DAY_MS = 86_400_000;

interface Bound {
  ms: number;
  strict: boolean;
}

export interface TimeWindow {
  lower: Bound | null;
  upper: Bound | null;
}

export interface OutputColumn {
  name: string;
  kind: OutputKind;
}

export interface CompiledFilterQuery {
  vocab: SurfaceVocabulary;
  mode: 'rows' | 'aggregate';
  /** Metrics without group_by: exactly one row, whatever the population. */
  bare: boolean;
  /** compiled.sql (record of intent, see above). */
  intentSql: string;
  /** The read: rows or groups, each with `__match_count` (matches before the limit), aggregates with `__rows`. */
  statement: SQL;
  /** Diagnosis of an empty result: workspace rows on the surface, their event span, and how many the caller's predicates select before scope. */
  diagnosis: SQL;
  columns: OutputColumn[];
  /** The window the filters put on the surface's event time. */
  timeWindow: TimeWindow;
  /** Whether scope predicates beyond the tenant apply (exclusions, customer voice). */
  scoped: boolean;
}

// ---------------------------------------------------------------------------------------------
// Predicates

interface CompiledPredicate {
  sql: SQL;
  intent: string;
}

function compilePredicate(
  vocab: SurfaceVocabulary,
  filter: Filter,
  index: number,
  problems: FieldProblem[],
  window: TimeWindow,
  used: Set<FieldInfo>,
  workspaceId: string,
  path: string,
): CompiledPredicate | null {
  const at = (part: 'field' | 'op' | 'value') => `${path}.${index}.${part}`;
  const field = vocab.byName.get(filter.field);
  if (!field) {
    const allowed = vocab.fields.map((f) => f.name);
    problems.push({
      field: at('field'),
      problem: `unknown field "${filter.field}" on surface ${vocab.surface}; allowed: ${allowed.join(', ')}`,
      code: 'unknown_field',
      allowed,
    });
    return null;
  }
  const op = filter.op;
  if (!field.operators.includes(op)) {
    problems.push({
      field: at('op'),
      problem: `operator "${op}" does not apply to ${field.name} (${field.type}${field.nullable ? ', nullable' : ''}); allowed: ${field.operators.join(', ')}`,
      code: 'unsupported_operator',
      allowed: field.operators,
    });
    return null;
  }
  used.add(field);
  const col = sql.raw(field.column);
  const name = field.name;
  const value = filter.value;
  const bad = (problem: string, code = 'invalid_value') => {
    problems.push({ field: at('value'), problem, code });
    return null;
  };

  if (op === 'is_null' || op === 'not_null') {
    if (value !== undefined && value !== null) return bad(`${op} takes no value`, 'unexpected_value');
    return op === 'is_null'
      ? { sql: sql`${col} is null`, intent: `${name} IS NULL` }
      : { sql: sql`${col} is not null`, intent: `${name} IS NOT NULL` };
  }

  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(value))
      return bad(`${op} takes an array of values (at most ${SEARCH_LIMITS.inValues})`, 'invalid_value_shape');
    if (value.length === 0) return bad(`${op} needs at least one value`, 'too_small');
    if (value.length > SEARCH_LIMITS.inValues)
      return bad(`${op} takes at most ${SEARCH_LIMITS.inValues} values (got ${value.length})`, 'too_big');
    const typed: TypedValue[] = [];
    for (const [j, v] of value.entries()) {
      const t = isScalar(v) ? typedValue(field, v) : `value ${j} must be a scalar`;
      if (typeof t === 'string') return bad(`value ${j}: ${t}`);
      typed.push(t);
    }
    const list = sql.join(
      typed.map((t) => t.param),
      sql`, `,
    );
    const listIntent = typed.map((t) => t.literal).join(', ');
    if (op === 'in') return { sql: sql`${col} in (${list})`, intent: `${name} IN (${listIntent})` };
    return field.nullable
      ? {
          sql: sql`(${col} is null or ${col} not in (${list}))`,
          intent: `(${name} IS NULL OR ${name} NOT IN (${listIntent}))`,
        }
      : { sql: sql`${col} not in (${list})`, intent: `${name} NOT IN (${listIntent})` };
  }

  if (op === 'between') {
    if (!Array.isArray(value) || value.length !== 2) return bad('between takes [low, high]', 'invalid_value_shape');
    const [lowRaw, highRaw] = value;
    const low = isScalar(lowRaw) ? typedValue(field, lowRaw) : 'low must be a scalar';
    if (typeof low === 'string') return bad(`low: ${low}`);
    const high = isScalar(highRaw) ? typedValue(field, highRaw) : 'high must be a scalar';
    if (typeof high === 'string') return bad(`high: ${high}`);
    if (outOfOrder(field, lowRaw as Scalar, highRaw as Scalar, low, high))
      return bad('between takes [low, high] with low <= high', 'invalid_range');
    if (name === vocab.eventTimeField) {
      tighten(window, 'lower', { ms: low.ms as number, strict: false });
      tighten(window, 'upper', { ms: high.ms as number, strict: false });
    }
    return {
      sql: sql`${col} between ${low.param} and ${high.param}`,
      intent: `${name} BETWEEN ${low.literal} AND ${high.literal}`,
    };
  }

  // Scalar operators: eq, neq, gt, gte, lt, lte, contains.
  if (!isScalar(value))
    return bad(
      value === undefined || value === null ? `${op} needs a value` : `${op} takes a single value, not an array`,
      value === undefined || value === null ? 'required' : 'invalid_value_shape',
    );
  if (op === 'contains') {
    if (typeof value !== 'string') return bad(`contains takes a string, got ${describeValue(value)}`);
    if (value.includes('\u0000')) return bad('a string may not contain the NUL character');
    const pattern = `%${escapeLike(value)}%`;
    if (field.contains) return { sql: field.contains(pattern, workspaceId), intent: `${name} ILIKE ${quote(pattern)}` };
    return { sql: sql`${col} ilike ${pattern} escape '\\'`, intent: `${name} ILIKE ${quote(pattern)}` };
  }
  const typed = typedValue(field, value);
  if (typeof typed === 'string') return bad(typed);
  if (name === vocab.eventTimeField && typed.ms !== undefined) {
    if (op === 'eq') {
      tighten(window, 'lower', { ms: typed.ms, strict: false });
      tighten(window, 'upper', { ms: typed.ms, strict: false });
    } else if (op === 'gt' || op === 'gte') tighten(window, 'lower', { ms: typed.ms, strict: op === 'gt' });
    else if (op === 'lt' || op === 'lte') tighten(window, 'upper', { ms: typed.ms, strict: op === 'lt' });
  }
  const p = typed.param;
  switch (op) {
    case 'eq':
      return { sql: sql`${col} = ${p}`, intent: `${name} = ${typed.literal}` };
    case 'neq':
      return field.nullable
        ? { sql: sql`${col} is distinct from ${p}`, intent: `${name} IS DISTINCT FROM ${typed.literal}` }
        : { sql: sql`${col} <> ${p}`, intent: `${name} <> ${typed.literal}` };
    case 'gt':
      return { sql: sql`${col} > ${p}`, intent: `${name} > ${typed.literal}` };
    case 'gte':
      return { sql: sql`${col} >= ${p}`, intent: `${name} >= ${typed.literal}` };
    case 'lt':
      return { sql: sql`${col} < ${p}`, intent: `${name} < ${typed.literal}` };
    case 'lte':
      return { sql: sql`${col} <= ${p}`, intent: `${name} <= ${typed.literal}` };
  }
  return null;
}

function outOfOrder(field: FieldInfo, lowRaw: Scalar, highRaw: Scalar, low: TypedValue, high: TypedValue): boolean {
  if (field.type === 'timestamp') return (low.ms as number) > (high.ms as number);
  if (field.type === 'number' || field.type === 'integer') return (lowRaw as number) > (highRaw as number);
  if (field.type === 'date') return (lowRaw as string) > (highRaw as string);
  return false;
}

function tighten(window: TimeWindow, side: 'lower' | 'upper', bound: Bound): void {
  const current = window[side];
  if (!current) {
    window[side] = bound;
    return;
  }
  const tighter =
    side === 'lower'
      ? bound.ms > current.ms || (bound.ms === current.ms && bound.strict)
      : bound.ms < current.ms || (bound.ms === current.ms && bound.strict);
  if (tighter) window[side] = bound;
}

/** Whether the filters' event-time window lies entirely outside the surface's [min, max] span. */
export function windowOutsideSpan(window: TimeWindow, min: number, max: number): boolean {
  const { lower, upper } = window;
  if (lower && (lower.ms > max || (lower.strict && lower.ms === max))) return true;
  if (upper && (upper.ms < min || (upper.strict && upper.ms === min))) return true;
  return false;
}

/** The start of the window when it is a recent one (its lower bound within RECENT_WINDOW_DAYS of now, either side). */
export function recentWindowStart(window: TimeWindow, now: Date): Date | null {
  if (!window.lower) return null;
  return Math.abs(window.lower.ms - now.getTime()) <= RECENT_WINDOW_DAYS * DAY_MS ? new Date(window.lower.ms) : null;
}

// ---------------------------------------------------------------------------------------------
// Metrics, grouping, ordering

interface CompiledMetric {
  alias: string;
  sql: SQL;
  intent: string;
  kind: OutputKind;
}

export function metricAlias(metric: Metric): string {
  return metric.field ? `${metric.fn}_${metric.field}` : metric.fn;
}

function compileMetric(
  vocab: SurfaceVocabulary,
  metric: Metric,
  index: number,
  problems: FieldProblem[],
  used: Set<FieldInfo>,
): CompiledMetric | null {
  const fn: MetricFunction = metric.fn;
  const accepting = vocab.fields.filter((f) => f.metrics.includes(fn)).map((f) => f.name);
  if (metric.field === undefined) {
    if (fn === 'count') return { alias: 'count', sql: sql`count(*)`, intent: 'count(*) AS count', kind: 'count' };
    problems.push({
      field: `metrics.${index}.field`,
      problem: `${fn} needs a field; allowed: ${accepting.join(', ')}`,
      code: 'required',
      allowed: accepting,
    });
    return null;
  }
  const field = vocab.byName.get(metric.field);
  if (!field?.metrics.includes(fn)) {
    const numeric = fn === 'sum' || fn === 'avg';
    problems.push({
      field: `metrics.${index}.field`,
      problem: field
        ? `${fn} does not apply to ${field.name} (${field.type})${numeric ? '; sum and avg need a numeric field' : ''}; allowed: ${accepting.join(', ')}`
        : `unknown field "${metric.field}" on surface ${vocab.surface}; allowed: ${accepting.join(', ')}`,
      code: field ? (numeric ? 'not_numeric' : 'unsupported_metric') : 'unknown_field',
      allowed: accepting,
    });
    return null;
  }
  used.add(field);
  const col = sql.raw(field.column);
  const alias = metricAlias(metric);
  switch (fn) {
    case 'count':
      return { alias, sql: sql`count(${col})`, intent: `count(${field.name}) AS ${alias}`, kind: 'count' };
    case 'count_distinct':
      return {
        alias,
        sql: sql`count(distinct ${col})`,
        intent: `count(DISTINCT ${field.name}) AS ${alias}`,
        kind: 'count',
      };
    case 'sum':
      return { alias, sql: sql`sum(${col})`, intent: `sum(${field.name}) AS ${alias}`, kind: 'numeric' };
    case 'avg':
      return { alias, sql: sql`avg(${col})`, intent: `avg(${field.name}) AS ${alias}`, kind: 'numeric' };
    case 'min':
      return { alias, sql: sql`min(${col})`, intent: `min(${field.name}) AS ${alias}`, kind: field.type };
    case 'max':
      return { alias, sql: sql`max(${col})`, intent: `max(${field.name}) AS ${alias}`, kind: field.type };
    case 'share':
      // A percentage with one decimal, so the figure an answer writes ("45.9%") is the cell itself.
      return {
        alias,
        sql: sql`round(100.0 * avg((${col})::int), 1)`,
        intent: `round(100 * avg(${field.name}::int), 1) AS ${alias}`,
        kind: 'numeric',
      };
  }
}

/** The fields a row query asked for, in its order; an unknown one is a problem naming the allowed set. */
function selectedFields(vocab: SurfaceVocabulary, names: readonly string[], problems: FieldProblem[]): FieldInfo[] {
  const out: FieldInfo[] = [];
  names.forEach((name, i) => {
    const field = vocab.byName.get(name);
    if (!field) {
      const allowed = vocab.fields.map((f) => f.name);
      problems.push({
        field: `fields.${i}`,
        problem: `unknown field "${name}" on surface ${vocab.surface}; allowed: ${allowed.join(', ')}`,
        code: 'unknown_field',
        allowed,
      });
    } else if (!out.includes(field)) out.push(field);
  });
  return out;
}

const invalid = (problems: FieldProblem[]): ApiError => {
  const first = problems[0] as FieldProblem;
  return new ApiError(
    'invalid_argument',
    `Invalid request: ${first.field}: ${first.problem}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
    { fields: problems },
  );
};

// ---------------------------------------------------------------------------------------------
// The query

/**
 * Check a resolved filter search against the vocabulary and compile it. Throws `400
 * invalid_argument` naming every offending `filters.<i>.field|op|value`, `group_by.<i>`,
 * `metrics.<i>.field` or `order_by.field` (with the allowed set) before anything is read.
 */
export function compileFilterSearch(search: ResolvedSearch, workspaceId: string): CompiledFilterQuery {
  const vocab = SURFACE_VOCABULARY[search.surface];
  const problems: FieldProblem[] = [];
  const window: TimeWindow = { lower: null, upper: null };
  const usedByPredicates = new Set<FieldInfo>();
  const predicates: CompiledPredicate[] = [];
  search.filters.forEach((filter, i) => {
    const p = compilePredicate(vocab, filter, i, problems, window, usedByPredicates, workspaceId, 'filters');
    if (p) predicates.push(p);
  });

  const aggregate = search.metrics.length > 0 || search.groupBy.length > 0;
  const used = new Set<FieldInfo>(usedByPredicates);
  const groups: FieldInfo[] = [];
  const metrics: CompiledMetric[] = [];
  if (aggregate) {
    const groupable = vocab.fields.filter((f) => f.groupable).map((f) => f.name);
    search.groupBy.forEach((name, i) => {
      const field = vocab.byName.get(name);
      if (!field?.groupable) {
        problems.push({
          field: `group_by.${i}`,
          problem: field
            ? `${name} (${field.type}) cannot be grouped on; allowed: ${groupable.join(', ')}`
            : `unknown field "${name}" on surface ${vocab.surface}; allowed: ${groupable.join(', ')}`,
          code: field ? 'not_groupable' : 'unknown_field',
          allowed: groupable,
        });
      } else if (groups.includes(field)) {
        problems.push({ field: `group_by.${i}`, problem: `${name} is already grouped on`, code: 'duplicate' });
      } else {
        groups.push(field);
        used.add(field);
      }
    });
    search.metrics.forEach((metric, i) => {
      const m = compileMetric(vocab, metric, i, problems, used);
      if (!m) return;
      if (metrics.some((other) => other.alias === m.alias))
        problems.push({ field: `metrics.${i}`, problem: `duplicate metric ${m.alias}`, code: 'duplicate' });
      else metrics.push(m);
    });
  }

  // ORDER BY: a vocabulary field (rows) or a group field or metric alias (aggregates).
  let order: { sql: SQL; intent: string } | null = null;
  if (search.orderBy) {
    const { field: name, dir } = search.orderBy;
    const direction = dir === 'desc' ? sql.raw('desc') : sql.raw('asc');
    const DIR = dir === 'desc' ? 'DESC' : 'ASC';
    if (aggregate) {
      const allowed = [...groups.map((g) => g.name), ...metrics.map((m) => m.alias)];
      if (!allowed.includes(name)) {
        problems.push({
          field: 'order_by.field',
          problem: `cannot order an aggregate by "${name}"; allowed: ${allowed.join(', ') || '(none)'} (group_by fields and metric aliases)`,
          code: 'unknown_field',
          allowed,
        });
      } else {
        order = { sql: sql`${sql.identifier(name)} ${direction} nulls last`, intent: `${name} ${DIR} NULLS LAST` };
      }
    } else {
      const field = vocab.byName.get(name);
      if (!field) {
        const allowed = vocab.fields.map((f) => f.name);
        problems.push({
          field: 'order_by.field',
          problem: `unknown field "${name}" on surface ${vocab.surface}; allowed: ${allowed.join(', ')}`,
          code: 'unknown_field',
          allowed,
        });
      } else {
        used.add(field);
        order = {
          sql: sql`${sql.raw(field.column)} ${direction} nulls last`,
          intent: `${name} ${DIR}${field.nullable ? ' NULLS LAST' : ''}`,
        };
      }
    }
  }
  if (problems.length > 0) throw invalid(problems);

  const bare = aggregate && groups.length === 0;
  const base = search.fields ? selectedFields(vocab, search.fields, problems) : vocab.fields;
  if (problems.length > 0) throw invalid(problems);
  const columns: OutputColumn[] = aggregate
    ? [
        ...groups.map((g) => ({ name: g.name, kind: g.type as OutputKind })),
        ...metrics.map((m) => ({ name: m.alias, kind: m.kind })),
      ]
    : base.map((f) => ({ name: f.name, kind: f.type as OutputKind }));
  if (!aggregate) for (const f of base) used.add(f);

  const joinSql = (fields: Iterable<FieldInfo>) => surfaceJoins(vocab, fields);
  const table = sql.raw(`${vocab.table} t`);
  const scoped = vocab.surface === 'interactions';
  const scope = surfaceScope(vocab, workspaceId, search.audience);
  const userWhere = andPredicates(predicates);
  const where = sql.join([scope, ...(userWhere ? [userWhere] : [])], sql` and `);

  let statement: SQL;
  let intent: string;
  const intentWhere = predicates.length > 0 ? ` WHERE ${predicates.map((p) => p.intent).join(' AND ')}` : '';
  if (!aggregate) {
    const select = sql.join(
      base.map((f) => sql`${sql.raw(f.column)} as ${sql.identifier(f.name)}`),
      sql`, `,
    );
    const tieBreak = order ? sql`, t.id asc` : sql``;
    const orderSql = order ? order.sql : sql`t.occurred_at desc, t.id asc`;
    statement = sql`select ${select}, count(*) over () as "__match_count" from ${table} ${joinSql(used)} where ${where} order by ${orderSql}${tieBreak} limit ${search.limit}`;
    intent = `SELECT ${search.fields ? base.map((f) => f.name).join(', ') : '*'} FROM ${vocab.surface}${intentWhere} ORDER BY ${order ? `${order.intent}, id ASC` : 'occurred_at DESC, id ASC'} LIMIT ${search.limit}`;
  } else {
    const selectParts = [
      ...groups.map((g) => sql`${sql.raw(g.column)} as ${sql.identifier(g.name)}`),
      ...metrics.map((m) => sql`${m.sql} as ${sql.identifier(m.alias)}`),
    ];
    const select = sql.join(selectParts, sql`, `);
    const intentSelect = [...groups.map((g) => g.name), ...metrics.map((m) => m.intent)].join(', ');
    if (bare) {
      statement = sql`select ${select}, count(*) as "__rows", count(*) over () as "__match_count" from ${table} ${joinSql(used)} where ${where}`;
      intent = `SELECT ${intentSelect} FROM ${vocab.surface}${intentWhere}`;
    } else {
      const groupSql = sql.join(
        groups.map((g) => sql.raw(g.column)),
        sql`, `,
      );
      const groupOrder = sql.join(
        groups.map((g) => sql`${sql.identifier(g.name)} asc nulls last`),
        sql`, `,
      );
      const orderSql = order ? sql`${order.sql}, ${groupOrder}` : groupOrder;
      const groupNames = groups.map((g) => g.name);
      const orderIntent = [
        ...(order ? [order.intent] : []),
        ...groupNames.filter((n) => n !== search.orderBy?.field).map((n) => `${n} ASC NULLS LAST`),
      ].join(', ');
      statement = sql`select ${select}, count(*) as "__rows", count(*) over () as "__match_count" from ${table} ${joinSql(used)} where ${where} group by ${groupSql} order by ${orderSql} limit ${search.limit}`;
      intent = `SELECT ${intentSelect} FROM ${vocab.surface}${intentWhere} GROUP BY ${groupNames.join(', ')} ORDER BY ${orderIntent} LIMIT ${search.limit}`;
    }
  }

  const event = sql.raw(`t.${vocab.eventTimeField}`);
  const diagnosis = sql`select count(*)::int as "total", min(${event}) as "min_at", max(${event}) as "max_at",
      count(*) filter (where ${userWhere ?? sql`true`})::int as "selected"
    from ${table} ${joinSql(usedByPredicates)} where t.workspace_id = ${workspaceId}`;

  return {
    vocab,
    mode: aggregate ? 'aggregate' : 'rows',
    bare,
    intentSql: intent,
    statement,
    diagnosis,
    columns,
    timeWindow: window,
    scoped,
  };
}

/** The joins a set of fields needs on the surface's base table (alias `t`), as SQL. */
export function surfaceJoins(vocab: SurfaceVocabulary, fields: Iterable<FieldInfo>): SQL {
  return sql.raw(
    joinsFor(vocab, fields)
      .map((j) => vocab.joins[j]?.sql ?? '')
      .join(' '),
  );
}

/** The gate's predicates: the tenant, and on interactions the excluded-interaction and customer-voice ones. */
function surfaceScope(vocab: SurfaceVocabulary, workspaceId: string, audience: ResolvedSearch['audience']): SQL {
  const scope: SQL[] = [sql`t.workspace_id = ${workspaceId}`];
  if (vocab.surface === 'interactions') {
    scope.push(interactionInScope(workspaceId, sql.raw('t.id')));
    if (audience === 'customer_voice') scope.push(customerVoice(workspaceId, sql.raw('t.id'), sql.raw('t.account_id')));
  }
  return sql.join(scope, sql` and `);
}

const andPredicates = (predicates: readonly CompiledPredicate[]): SQL | null =>
  predicates.length > 0
    ? sql.join(
        predicates.map((p) => sql`(${p.sql})`),
        sql` and `,
      )
    : null;

// ---------------------------------------------------------------------------------------------
// Cohorts: the same predicates for another reader of a surface (simulate)

/** A list of search predicates compiled for a reader that writes its own SELECT over the surface. */
export interface CompiledPredicateList {
  /** The predicates ANDed over the aliases t, a, d; null when the list is empty. */
  sql: SQL | null;
  /** Their record of intent, ANDed (empty when the list is empty). */
  intent: string;
  /** The vocabulary fields they read (their joins must be in the FROM). */
  fields: ReadonlySet<FieldInfo>;
}

/**
 * Compile one list of search filters on a surface with the filter lane's own rules (vocabulary,
 * operators, typed bound values). Problems are pushed onto `problems`, named `<path>.<i>.field|op|value`,
 * so a caller with several lists can refuse them all in one `400` (see invalidFilters).
 */
export function compilePredicateList(
  surface: ResolvedSearch['surface'],
  filters: readonly Filter[],
  workspaceId: string,
  path: string,
  problems: FieldProblem[],
): CompiledPredicateList {
  return compileVocabularyPredicates(SURFACE_VOCABULARY[surface], filters, workspaceId, path, problems);
}

/**
 * compilePredicateList over any vocabulary, the semantic lane's (UTTERANCE_VOCABULARY) included: the
 * same rules, the same SQL. `filters` may carry their position in the request (`index`), so a problem
 * names the filter the caller sent even when the list is a selection of it.
 */
export function compileVocabularyPredicates(
  vocab: SurfaceVocabulary,
  filters: readonly (Filter & { index?: number })[],
  workspaceId: string,
  path: string,
  problems: FieldProblem[],
): CompiledPredicateList {
  const used = new Set<FieldInfo>();
  const window: TimeWindow = { lower: null, upper: null };
  const predicates: CompiledPredicate[] = [];
  filters.forEach((filter, i) => {
    const p = compilePredicate(vocab, filter, filter.index ?? i, problems, window, used, workspaceId, path);
    if (p) predicates.push(p);
  });
  return { sql: andPredicates(predicates), intent: predicates.map((p) => p.intent).join(' AND '), fields: used };
}

/**
 * The FROM and the gate's WHERE of a surface for a reader of its rows: `<table> t` with the joins the
 * given fields (and the vocabulary fields named in `reads`) need, and the tenant (plus, on
 * interactions, the excluded-interaction) predicates.
 */
export function surfaceSource(
  surface: ResolvedSearch['surface'],
  workspaceId: string,
  fields: Iterable<FieldInfo>,
  reads: readonly string[] = [],
): { from: SQL; scope: SQL } {
  const vocab = SURFACE_VOCABULARY[surface];
  const needed = new Set(fields);
  for (const name of reads) {
    const field = vocab.byName.get(name);
    if (!field) throw new Error(`surfaceSource: ${name} is not a field of ${surface}`);
    needed.add(field);
  }
  return {
    from: sql`${sql.raw(`${vocab.table} t`)} ${surfaceJoins(vocab, needed)}`,
    scope: surfaceScope(vocab, workspaceId, 'all'),
  };
}

/** The `400 invalid_argument` naming every problem (at least one). */
export const invalidFilters = (problems: FieldProblem[]): ApiError => invalid(problems);

export type { FilterOperator };
