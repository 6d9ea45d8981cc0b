import { sql, type SQL } from 'drizzle-orm';
import type { FieldProblem } from '../../platform/validation.js';
import { allSurfaceVocabularies, UTTERANCE_VOCABULARY } from './fields.js';
import { compileVocabularyPredicates, invalidFilters, surfaceJoins } from './filter-compiler.js';
import type { Filter } from './request.js';

/**
 * The semantic lane's filters, compiled by the filter lane's own compiler against
 * UTTERANCE_VOCABULARY: the interactions surface's fields (read of the utterance's interaction) and
 * the utterance's `side` and `speaker`. A field that only another surface has (a deal's `amount`, a
 * qualification's `criterion`) cannot apply to an utterance: it is named in `ignored_params` as
 * `filters.<i>`, and the rest still apply. A field no surface has, a wrong operator or value is the
 * filter lane's `400 invalid_argument`, naming `filters.<i>.field|op|value`.
 */
export interface SemanticFilter {
  /** The predicates ANDed over `u` (the utterance), `t` (its interaction), `a` and `d`. */
  where: SQL;
  /** The joins of `a` and `d` the predicates read, to follow `interactions t`. */
  joins: SQL;
  /** The predicates' record of intent, for compiled.sql. */
  intent: string;
}

export interface CompiledSemanticFilters {
  /** Null when no filter applies. */
  filter: SemanticFilter | null;
  /** `filters.<i>` for each filter that cannot apply to an utterance. */
  ignored: string[];
}

/** Field names of the other surfaces that the utterance vocabulary lacks: a filter on one is ignored, not refused. */
const OTHER_SURFACE_FIELDS: ReadonlySet<string> = new Set(
  allSurfaceVocabularies()
    .flatMap((v) => v.fields.map((f) => f.name))
    .filter((name) => !UTTERANCE_VOCABULARY.byName.has(name)),
);

/** Throws `400 invalid_argument` for a filter the compiler refuses; see the interface above. */
export function compileSemanticFilters(filters: readonly Filter[], workspaceId: string): CompiledSemanticFilters {
  const ignored: string[] = [];
  const applying: (Filter & { index: number })[] = [];
  filters.forEach((filter, index) => {
    if (OTHER_SURFACE_FIELDS.has(filter.field)) ignored.push(`filters.${index}`);
    else applying.push({ ...filter, index });
  });
  const problems: FieldProblem[] = [];
  const compiled = compileVocabularyPredicates(UTTERANCE_VOCABULARY, applying, workspaceId, 'filters', problems);
  if (problems.length > 0) throw invalidFilters(problems);
  if (!compiled.sql) return { filter: null, ignored };
  return {
    filter: {
      where: compiled.sql,
      joins: surfaceJoins(UTTERANCE_VOCABULARY, compiled.fields),
      intent: compiled.intent,
    },
    ignored,
  };
}

/**
 * The workspace's external utterances of one embedder that the filter keeps, as a FROM and WHERE
 * (aliases `u`, `t` and the filter's joins); the caller selects from it.
 */
export function filteredUtterances(filter: SemanticFilter, workspaceId: string, embedderId: string): SQL {
  return sql`from utterances u
    join interactions t on t.id = u.interaction_id and t.workspace_id = ${workspaceId} ${filter.joins}
    where u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder = ${embedderId} and (${filter.where})`;
}
