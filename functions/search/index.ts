/**
 * What the search feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export {
  compileFilterSearch,
  compilePredicateList,
  invalidFilters,
  surfaceSource,
  type CompiledPredicateList,
} from './filter-compiler.js';
export {
  type AskedPeriod,
  asksForQuiet,
  isDefaultQuiet,
  parseAskedPeriod,
  periodBoundsCloseDates,
  periodWords,
  QUIET_DAYS,
  RECENT_DAYS,
} from './asked-period.js';
export { probeFreshness } from './freshness.js';
export { DetailCoverageSchema, type DetailCoverage } from './response.js';
export { planLocally } from './fuzzy-plan.js';
export { FilterSchema, SearchRequestSchema } from './request.js';
export { resolveSearch } from './validate.js';
export { searchWithin } from './operations.js';
export { customerVoice, interactionInScope } from './scope-predicates.js';
export {
  collectFromConversationSlices,
  forEachConversationSlice,
  type ConversationSlice,
  type SliceKey,
} from './conversation-slices.js';
export { runFuzzyLane } from './fuzzy-lane.js';
export { phrasesSpelling, type TopicAcronym, TopicTerms, type TopicTermsOptions, topicTerms } from './topic-terms.js';
export type { LaneOutcome, ResolvedSearch } from './lane.js';
export { runSemanticLane } from './semantic-lane.js';
export { readThemes, searchThemes, type ThemeMatch } from './semantic-themes.js';
