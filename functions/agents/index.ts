/**
 * What the agents feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export { AnswerSchema, BlockDraftSchema, ContentBlockSchema, GroundingReportSchema } from './answer.js';
export { numbersIn, verifyAnswer } from './grounding.js';
export { rerunCitedQuery } from './cited-query.js';
export { competitorNames, competitorsNamedIn } from './understanding/competitors.js';
export { loadRequestTagger, REQUEST_CUE_SQL, requestObjectOf } from './understanding/request-language.js';
export { narrowedHeads } from './understanding/topic-heads.js';
export { bestExcerpt, sameStatement, semanticTurnsOf, sentencesOf } from './local-policy/evidence.js';
export { WRITE_IN_OPTION } from './pauses.js';
export {
  isOnTopic,
  namesInQuestion,
  RELEVANCE_THRESHOLD,
  relevanceScore,
  termsHeld,
  topicAskedOf,
  topicOf as topicOfQuestion,
} from './relevance.js';
export { findAgent } from './repository.js';
export {
  AGENT_KINDS,
  AgentRunInputSchema,
  AgentRunStateSchema,
  DEPTHS,
  headlessFireOf,
  ON_QUESTION,
  RESEARCH_KIND,
  TRIGGERS,
} from './run-state.js';
export { MAX_ACTIVE_AGENT_RUNS, runUrls, startAgentRun, type AgentRunHandles } from './start.js';
export { chatMessagesOf, getChatOrThrow } from './threads.js';
export { askedQuestion, withCallerContext } from './asked-question.js';
