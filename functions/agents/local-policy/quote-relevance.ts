import { type QuestionTopic, RELEVANCE_THRESHOLD, relevanceScore } from '../relevance.js';
import { bestExcerpt, type QuoteCandidate } from './evidence.js';

/**
 * Whether the verifier keeps a candidate as a quote on the topic, judged as it judges (relevance.ts):
 * the excerpt that would be quoted, scored against the question's topic. A spoken turn on the topic
 * often says it in another form of the word ("technologically" for "technology"), in a word alike
 * ("cost" for "price") or in words near in meaning, which a plain word match misses.
 */
export function keptAsOnTopic(topic: QuestionTopic, excerptTopic: string): (c: QuoteCandidate) => boolean {
  return (c) => relevanceScore(topic, bestExcerpt(c.text, excerptTopic)) >= RELEVANCE_THRESHOLD;
}
