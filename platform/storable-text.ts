import { ApiError } from './errors.js';
import type { FieldProblem } from './validation.js';

/**
 * Text Postgres cannot store: a NUL character (text columns refuse byte 0) and an unpaired UTF-16
 * surrogate (JSON.stringify writes it as a `\udfff` escape that jsonb refuses, and UTF-8 has no
 * encoding for it). Either one reaching a statement fails it, and the request would answer 500; so
 * every operation's input is checked for both before anything else reads it (functions/invoke.ts).
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** At most this many problems are listed: one is enough to fix the request, a few show the pattern. */
const MAX_PROBLEMS = 20;

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableTextProblem(text: string): Pick<FieldProblem, 'problem' | 'code'> | undefined {
  const match = UNSTORABLE.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000'
    ? { code: 'nul_character', problem: 'contains a NUL character (U+0000), which cannot be stored' }
    : {
        code: 'unpaired_surrogate',
        problem: 'contains an unpaired UTF-16 surrogate (not valid Unicode text), which cannot be stored',
      };
}

/**
 * Every string in a decoded input (values and object keys, at any depth) that cannot be stored, named
 * by its dotted path as validation errors name fields (`inputs.message`, `filters.0.value`).
 */
export function findUnstorableText(value: unknown, path: readonly string[] = []): FieldProblem[] {
  const problems: FieldProblem[] = [];
  // An explicit stack, not recursion: a 1 MiB body can nest deeper than the call stack allows. Each
  // node points at its parent instead of carrying its own copy of the path, so the walk costs one
  // step per value whatever the depth; a path is spelled out only for the few problems reported.
  const stack: WalkNode[] = [{ value, parent: undefined, key: '' }];
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const next = stack.pop() as WalkNode;
    if (typeof next.value === 'string') {
      const found = unstorableTextProblem(next.value);
      if (found) problems.push({ field: fieldOf(path, next), ...found });
    } else if (Array.isArray(next.value)) {
      for (let i = next.value.length - 1; i >= 0; i--)
        stack.push({ value: next.value[i], parent: next, key: String(i) });
    } else if (typeof next.value === 'object' && next.value !== null) {
      const entries = Object.entries(next.value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        const keyProblem = unstorableTextProblem(key);
        if (keyProblem) {
          // The key itself is the bad text: name it with the bad characters made visible.
          problems.push({
            field: fieldOf(path, { value: child, parent: next, key: printable(key) }),
            code: keyProblem.code,
            problem: `field name ${keyProblem.problem}`,
          });
        } else {
          stack.push({ value: child, parent: next, key });
        }
      }
    }
  }
  return problems;
}

/** A value met on the walk, with the key it has in its parent (the root has no parent and no key). */
interface WalkNode {
  value: unknown;
  parent: WalkNode | undefined;
  key: string;
}

/** The dotted field name of a node: `path`, then the keys from the root down to it. */
function fieldOf(path: readonly string[], node: WalkNode): string {
  const keys: string[] = [];
  for (let at: WalkNode | undefined = node; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  keys.reverse();
  if (path.length === 0) return keys.join('.');
  return keys.length === 0 ? path.join('.') : `${path.join('.')}.${keys.join('.')}`;
}

/** Refuse an input holding unstorable text with `400 invalid_argument` naming each field. */
export function assertStorableText(value: unknown, path: readonly string[] = []): void {
  const problems = findUnstorableText(value, path);
  const first = problems[0];
  if (!first) return;
  throw new ApiError(
    'invalid_argument',
    `Invalid request: ${first.field ? `${first.field}: ` : ''}${first.problem}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
    { fields: problems },
  );
}

/** A string with NULs and lone surrogates written as `\uXXXX`, safe to store and to show. */
export function printable(text: string): string {
  return text.replace(
    /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
