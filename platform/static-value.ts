/**
 * Values computed once and never changed (a catalog, a vocabulary): deeply frozen, so code that
 * meets one may keep work done on it by identity (its schema check, its JSON) without the risk
 * of serving a stale copy of something a caller mutated.
 */
const serialized = new WeakMap<object, string>();
const staticValues = new WeakSet<object>();

/** Freeze a plain value and everything it holds, and mark it static; returns it for chaining. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    freezeAll(value);
    staticValues.add(value);
  }
  return value;
}

function freezeAll(value: object, seen = new Set<object>()): void {
  if (seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  for (const inner of Object.values(value)) if (inner !== null && typeof inner === 'object') freezeAll(inner, seen);
}

/** Whether a value was made static by deepFreeze (a shallow Object.freeze does not count). */
export function isStatic(value: unknown): value is object {
  return value !== null && typeof value === 'object' && staticValues.has(value);
}

/** JSON.stringify, kept per static value: the second request serves the first one's text. */
export function staticJson(value: object): string {
  let text = serialized.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    serialized.set(value, text);
  }
  return text;
}
