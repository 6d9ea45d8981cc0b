/**
 * Which sentences of an answer claim that something is absent (the absence rule, grounding-absence.ts,
 * holds each to its backing). A sentence claims it when it says, of the records, that none of something
 * is there:
 *
 * - a universal negative: "no one mentioned", "nobody", "none of", "there are no", "never brought up",
 *   "not a single", "no sign of", "zero";
 * - a negative quantifier as the subject of its clause: "No customer mentioned Pipewell", "No
 *   competitors were named", "Not one contact brought it up", "Nothing was said about it";
 * - a negative quantifier as the object of having: "Acme has no champion", "the deal had no calls",
 *   and lacking one: "Acme lacks a champion";
 * - a negated verb over every case: "did not come up in any call", "has not been raised by anyone".
 *
 * A verdict on the question is not such a claim, whatever its words: a sentence whose verb says what the
 * evidence concludes (settles, proves, decides, answers, tells…) and whose object is the question itself
 * (it, this, that, the question, either way, why, whether…) — "Nothing in the data settles it yet",
 * "No record proves it either way" — says how far the answer goes, and asserts no record is missing. With
 * a person as its subject ("Nobody answered it", "No customer confirmed that") it says what people did,
 * and is a claim about the records again.
 */

const UNIVERSAL =
  /\b(?:no[- ]one|nobody|none of|none (?:was|were|is|are|came|come)|there (?:are|were|is|was|have been|has been) no|never (?:once )?(?:mentioned|brought|raised|named|said|talked|came|comes|asked|spoke|discussed)|not (?:a single|once|one (?:of|person|customer|buyer|contact))|no (?:mentions?|sign|record|trace) of|zero)\b/i;
/**
 * A negative quantifier as the subject of its clause: the clause opens the sentence (after a list
 * marker or bold), or follows a semicolon, a dash or ", and"/", but". "No" as an adverb ("no longer",
 * "no more than", "no matter") quantifies nothing.
 */
const NEGATIVE_SUBJECT =
  /(?:^|[;—–]\s*|,\s*(?:and|but)\s+)(?:[-*]\s+|\d+\.\s+)?(?:\*\*|__)?(?:no(?!\s+(?:longer|later|earlier|sooner|more|less|fewer|matter|doubt|wonder|way)\b)\s+[a-z]|not (?:one|a single)\b|nothing\b)/i;
/**
 * A negative quantifier as the object of a verb of having or holding: "Acme has no champion", "the
 * deal had no calls", "the CRM lists no renewal". Again "no" as an adverb ("has no more than")
 * quantifies nothing.
 */
const NEGATIVE_OBJECT =
  /\b(?:ha(?:s|ve|d|ving)|holds?|held|contains?|contained|includes?|included|shows?|showed|lists?|listed|carr(?:y|ies|ied))\s+(?:no(?!\s+(?:longer|later|earlier|sooner|more|less|fewer|matter|doubt|wonder|way|idea)\b)|zero)\s+[a-z]|\black(?:s|ed|ing)?\s+(?:an?|any)\s+[a-z]/i;
/** A negated verb with a word of any: the negation is over every case, a claim that none holds. */
const NEGATED_ANY = /(?:\bnot\b|\bnever\b|n't\b)[^.;:!?]{0,80}?\b(?:any(?:one|body|thing|where)?|ever|at all)\b/i;

/** A verb of concluding, in any form: what evidence does to a question. */
const CONCLUDES =
  /\b(?:settle[sd]?|(?:dis)?prove[sdn]?|decide[sd]?|resolve[sd]?|answer(?:s|ed)?|establish(?:es|ed)?|determine[sd]?|confirm(?:s|ed)?|tell(?:s)?|told|show(?:s|ed|n)?|explain(?:s|ed)?|rule[sd]? out)\b/i;
/**
 * The question itself as the verb's object: a pronoun ending its clause (with "yet", "either way" and the
 * like after it), "the question", or an indirect question ("why they left", "whether they renew").
 */
const THE_QUESTION =
  /^\s*(?:(?:us|me|you)\s+)?(?:(?:it|this|that|the (?:question|matter|case))(?:\s+(?:yet|either way|one way or the other|for (?:now|sure|certain)|so far|conclusively|definitively|at this point))*\s*(?:[.,;:!?]|$)|(?:why|whether|how|if)\b)/i;
/** A person (or people) as what the negative quantifies: what they did is in the records. */
const PERSON_SUBJECT =
  /\b(?:nobody|no[- ]one|anyone|anybody)\b|\b(?:no|not one|not a single|none of the)\s+(?:\w+\s+)?(?:customers?|buyers?|contacts?|people|persons?|reps?|champions?|prospects?|clients?|users?|stakeholders?)\b/i;

/** Whether a sentence is a verdict on the question (what the data settles), not a claim about records. */
function judgesTheQuestion(claim: string): boolean {
  if (PERSON_SUBJECT.test(claim)) return false;
  for (const verb of claim.matchAll(new RegExp(CONCLUDES.source, 'gi')))
    if (THE_QUESTION.test(claim.slice(verb.index + verb[0].length))) return true;
  return false;
}

/** Whether a sentence (its glosses in parentheses already set aside) claims that something is absent. */
export const claimsAbsence = (claim: string): boolean =>
  (UNIVERSAL.test(claim) || NEGATIVE_SUBJECT.test(claim) || NEGATIVE_OBJECT.test(claim) || NEGATED_ANY.test(claim)) &&
  !judgesTheQuestion(claim);

/** A sentence that bounds itself by its own search ("I found no…", "in a transcript I can quote"). */
export const BOUNDED =
  /\b(?:I|we) (?:found|could(?: not|n't)? find|can(?:not|'t)? find|did(?: not|n't) find|do(?: not|n't) see|saw)\b|\bI can quote\b|\bsearch(?:es)? (?:found|returned)\b/i;
