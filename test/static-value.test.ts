import { describe, expect, it } from 'vitest';
import { deepFreeze, isStatic, staticJson } from '../platform/static-value.js';

/** Static values let the REST layer keep an output's schema check and JSON by identity: only deepFreeze may make one. */
describe('static values', () => {
  it('freezes everything a value holds, a shallowly frozen part included', () => {
    const inner = Object.freeze({ list: [{ name: 'a' }] });
    const value = deepFreeze({ inner, top: [1, 2] });
    expect(Object.isFrozen(value.top)).toBe(true);
    expect(Object.isFrozen(inner.list)).toBe(true);
    expect(Object.isFrozen(inner.list[0])).toBe(true);
    expect(() => {
      (inner.list[0] as { name: string }).name = 'b';
    }).toThrow(TypeError);
  });

  it('counts only values made static by deepFreeze, not a shallow Object.freeze', () => {
    expect(isStatic(deepFreeze({ a: 1 }))).toBe(true);
    expect(isStatic(Object.freeze({ a: { b: 1 } }))).toBe(false);
    expect(isStatic({ a: 1 })).toBe(false);
    expect(isStatic(null)).toBe(false);
  });

  it('serializes a static value once and serves the same text', () => {
    const value = deepFreeze({ kinds: ['call', 'email'] });
    expect(staticJson(value)).toBe('{"kinds":["call","email"]}');
    expect(staticJson(value)).toBe(staticJson(value));
  });
});
