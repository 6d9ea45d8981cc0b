/**
 * What the evals feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export { gradeSide, improve, type LoopRound } from './improvement-loop.js';
export { parseMessage } from './rewrite.js';
export { factsLost, incompleteReason, isAsk, isVagueAsk } from './sentence-safety.js';
export { rewriteTask } from './tasks.js';
export { HYPE_WORDS, asksIn, averageSentenceWords, focusOf, questionCount, splitSubject, wordsOf } from './text.js';
