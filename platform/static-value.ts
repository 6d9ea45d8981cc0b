/**
 * Values computed once and never changed (a catalog, a vocabulary): deeply frozen, so code that
 * meets one may keep work done on it by identity (its schema check, its JSON) without the risk
 * of serving a stale copy of something a caller mutated.
 */
const serialized = new WeakMap<object, string>();

/** Freeze a plain value and everything it holds; returns it for chaining. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Whether a value is an object frozen with deepFreeze (or a frozen primitive-free object). */
export function isStatic(value: unknown): value is object {
  return value !== null && typeof value === 'object' && Object.isFrozen(value);
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
