/**
 * A run's message can carry the caller's background after the question (`POST /research` with
 * `context`: "For the Q4 pricing review."). The model reads both; what was asked — the topic the
 * quotes must be about, the period they must fall in, the names linked — is read from the question
 * alone, or "Q4" in the background would bound every quote and "review" would join the topic.
 */
const CONTEXT_MARK = '\n\nContext: ';

/** The message a run is given: the question, then the caller's context when there is one. */
export const withCallerContext = (question: string, context: string | undefined): string =>
  context ? `${question}${CONTEXT_MARK}${context}` : question;

/** The question a message asks, without the caller's context. */
export function askedQuestion(message: string): string {
  const at = message.indexOf(CONTEXT_MARK);
  return at === -1 ? message : message.slice(0, at);
}
