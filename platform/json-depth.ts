import { ApiError } from './errors.js';

/**
 * The deepest nesting of arrays and objects a request body may have. No operation's input is
 * deeper than a handful of levels; 64 leaves room for free-form JSON fields (an agent's config, a
 * webhook's payload) while keeping every later walk over the value, and any recursion a library
 * does on it, far from the call stack's limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`. One pass over the characters,
 * before anything parses it: brackets inside strings do not count. Malformed text is not judged
 * here (the parser refuses it in its own words); only its depth is.
 */
export function jsonTextTooDeep(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether a decoded value nests arrays and objects deeper than `limit` (the outermost object is
 * level 1, as in jsonTextTooDeep). For input that arrives already decoded (an agent's tool call):
 * an explicit stack, each node visited once, and it stops at the first level past the limit.
 */
export function valueTooDeep(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop() as { value: unknown; depth: number };
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value))
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth });
  }
  return false;
}

/** The `400 invalid_argument` for a body nested past the limit; `field` names where (default `body`). */
export function tooDeepError(field = 'body'): ApiError {
  return new ApiError(
    'invalid_argument',
    `Invalid request: ${field} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
    {
      field,
      reason: 'too_deep',
      max_depth: MAX_JSON_DEPTH,
      fields: [{ field, problem: `nests more than ${MAX_JSON_DEPTH} levels deep`, code: 'too_deep' }],
    },
  );
}

/** Refuse caller-sent JSON text nested past the limit with tooDeepError; call it before parsing the text. */
export function assertJsonTextDepth(text: string, field = 'body'): void {
  if (jsonTextTooDeep(text)) throw tooDeepError(field);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
