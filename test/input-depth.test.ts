import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../functions/identity/caller.js';
import { SCOPES } from '../functions/identity/scopes.js';
import { OAUTH_PATHS } from '../functions/oauth/metadata.js';
import { invokeOperation, type InvocationScope } from '../functions/invoke.js';
import { canonicalJson } from '../platform/canonical-json.js';
import { ManualClock } from '../platform/clock.js';
import { isApiError } from '../platform/errors.js';
import { jsonTextTooDeep, MAX_JSON_DEPTH, valueTooDeep } from '../platform/json-depth.js';
import { findUnstorableText } from '../platform/storable-text.js';
import { createHarness, type Harness, type SeededWorkspace } from './support/harness.js';

/**
 * A request body nested deeper than MAX_JSON_DEPTH is refused with `400 invalid_argument`
 * (`details.reason: too_deep`) before anything walks it, on every transport; and the walks over
 * caller input cost one step per value, whatever the depth.
 */

const MAX_BODY_BYTES = 1_048_576;

/** `{"name": [[[…]]]}` nested `depth` levels in all (the outer object counts). */
const nestedBody = (depth: number): string => `{"name":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

/** The deepest body that still fits in the 1 MiB limit. */
const MIB_OF_NESTING = nestedBody(Math.floor((MAX_BODY_BYTES - 10) / 2));

/** A chain `[[…[leaf]…]]` of `depth` arrays, and of objects `{a:{a:…}}` below it, built without recursion. */
function chain(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

describe('jsonTextTooDeep and valueTooDeep', () => {
  it('allow exactly MAX_JSON_DEPTH levels and refuse one more, arrays and objects alike', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(jsonTextTooDeep(nestedBody(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(nestedBody(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(valueTooDeep(JSON.parse(nestedBody(MAX_JSON_DEPTH)))).toBe(false);
    expect(valueTooDeep(JSON.parse(nestedBody(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(valueTooDeep(chain(MAX_JSON_DEPTH, 'x'))).toBe(false);
    expect(valueTooDeep(chain(MAX_JSON_DEPTH + 1, 'x'))).toBe(true);
    expect(jsonTextTooDeep(JSON.stringify(chain(MAX_JSON_DEPTH + 1, 'x')))).toBe(true);
  });

  it('do not count brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ text: `\\"${'['.repeat(500)}"{` });
    expect(jsonTextTooDeep(inString)).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify({ a: '\\', b: chain(MAX_JSON_DEPTH, 1) }))).toBe(true);
    expect(valueTooDeep({ text: '['.repeat(500) })).toBe(false);
    expect(valueTooDeep(null)).toBe(false);
    expect(valueTooDeep('text')).toBe(false);
  });
});

/**
 * Counts the array elements copied by spread, `slice` and `concat` while installed: the ways a walk
 * would copy a path per value. A path copied at every level costs depth²/2 copies on a chain.
 */
function countArrayCopies(): { readonly copies: number; restore(): void } {
  const proto = Array.prototype as unknown as Record<PropertyKey, unknown>;
  const originals = { iterator: proto[Symbol.iterator], slice: proto.slice, concat: proto.concat };
  const state = { copies: 0 };
  const values = originals.iterator as (this: unknown[]) => IterableIterator<unknown>;
  proto[Symbol.iterator] = function (this: unknown[]) {
    const inner = values.call(this);
    return {
      next() {
        const step = inner.next();
        if (!step.done) state.copies++;
        return step;
      },
      [Symbol.iterator]() {
        return this;
      },
    };
  };
  proto.slice = function (this: unknown[], ...args: unknown[]) {
    const out = (originals.slice as (...a: unknown[]) => unknown[]).apply(this, args);
    state.copies += out.length;
    return out;
  };
  proto.concat = function (this: unknown[], ...args: unknown[]) {
    const out = (originals.concat as (...a: unknown[]) => unknown[]).apply(this, args);
    state.copies += out.length;
    return out;
  };
  return {
    get copies() {
      return state.copies;
    },
    restore() {
      proto[Symbol.iterator] = originals.iterator;
      proto.slice = originals.slice;
      proto.concat = originals.concat;
    },
  };
}

describe('findUnstorableText is linear in the size of its input', () => {
  let counter: ReturnType<typeof countArrayCopies> | undefined;
  afterEach(() => counter?.restore());

  it('copies O(depth) array elements on a chain of depth N, with a problem at the bottom, not O(N²)', () => {
    const depth = 4_000;
    const value = chain(depth, 'bad\u0000text');
    counter = countArrayCopies();
    const problems = findUnstorableText(value, ['body']);
    const copies = counter.copies;
    counter.restore();
    expect(problems).toHaveLength(1);
    // The problem still names its field in full: body, then one key per level.
    expect(problems[0]?.field.split('.')).toHaveLength(depth + 1);
    expect(problems[0]?.field).toMatch(/^body\.a\.0\.a\.0(\.a\.0)+$/);
    // A path per level would be depth²/2 = 8,000,000 copies; one path for the one problem is about depth.
    expect(copies).toBeLessThanOrEqual(4 * depth);
  });

  it('canonicalJson writes the same text as before on nested input, without recursion', () => {
    expect(canonicalJson({ b: [1, { d: undefined, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null}]}');
    expect(canonicalJson([undefined, [], {}])).toBe('[null,[],{}]');
    // A chain far deeper than the call stack allows, and longer than any body the API accepts.
    let deep: unknown = { b: 1, a: 2 };
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(canonicalJson(deep)).toBe(`${'['.repeat(200_000)}{"a":2,"b":1}${']'.repeat(200_000)}`);
  });
});

describe('a body nested past the limit is 400 too_deep, on every transport', () => {
  const clock = new ManualClock('2026-11-27T12:00:00.000Z');
  let h: Harness;
  let ws: SeededWorkspace;
  let bearer: string;

  beforeAll(async () => {
    h = await createHarness({ clock });
    ws = await h.seedWorkspace();
    bearer = await ws.tokenFor(ws.admin, SCOPES);
  });
  afterAll(async () => h?.close());

  const expectTooDeep = (body: any, field = 'body') => {
    expect(body?.error?.code, JSON.stringify(body).slice(0, 300)).toBe('invalid_argument');
    expect(body.error.details).toMatchObject({ field, reason: 'too_deep', max_depth: MAX_JSON_DEPTH });
  };

  it('REST: one level past the limit, and 1 MiB of nesting', async () => {
    for (const body of [nestedBody(MAX_JSON_DEPTH + 1), MIB_OF_NESTING]) {
      const res = await h.request('POST', '/agents', { bearer, body });
      expect(res.status).toBe(400);
      expectTooDeep(res.body);
    }
    // At the limit the body is judged by the operation's schema as usual.
    const atLimit = await h.request('POST', '/agents', { bearer, body: nestedBody(MAX_JSON_DEPTH) });
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.error.details.reason).toBeUndefined();
  });

  it('MCP: the JSON-RPC message of a tool call nested past the limit, up to 1 MiB', async () => {
    const envelope = (args: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agents","arguments":{"action":"create_agent","name":${args}}}}`;
    const room = Math.floor((MAX_BODY_BYTES - envelope('').length) / 2);
    for (const args of [
      `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`,
      `${'['.repeat(room)}${']'.repeat(room)}`,
    ]) {
      const text = envelope(args);
      expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(MAX_BODY_BYTES);
      const res = await h.request('POST', '/mcp', {
        bearer,
        headers: { accept: 'application/json, text/event-stream' },
        body: text,
      });
      expect(res.status).toBe(400);
      expectTooDeep(res.body);
    }
  });

  it("in-process: an agent's tool call with arguments nested past the limit", async () => {
    const caller: Caller = {
      workspaceId: ws.id,
      workspaceName: ws.name,
      userId: ws.admin.userId,
      email: ws.admin.email,
      role: 'admin',
      scopes: new Set(SCOPES),
      authMethod: 'oauth',
      credentialId: 'input-depth-test',
      bundle: null,
    };
    const scope: InvocationScope = {
      registry: h.registry,
      services: h.services,
      caller,
      correlationId: 'input-depth-test',
      signal: new AbortController().signal,
      origin: 'run',
    };
    const refused = await invokeOperation(scope, 'agents.create', { name: chain(100_000, 'x') }).catch(
      (e: unknown) => e,
    );
    expect(isApiError(refused) && refused.toEnvelope()).toBeTruthy();
    if (isApiError(refused)) expectTooDeep(refused.toEnvelope());
  });

  it('routes outside the registry (OAuth registration, console forms): refused before the handler parses', async () => {
    const register = await h.fetch(OAUTH_PATHS.register, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: MIB_OF_NESTING,
    });
    expect(register.status).toBe(400);
    const registerBody = (await register.json()) as { error: string; error_description: string };
    expect(registerBody.error).toBe('invalid_request');
    expect(registerBody.error_description).toContain(`more than ${MAX_JSON_DEPTH} levels deep`);

    const consolePost = await h.fetch('/console/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: h.services.config.publicUrl },
      body: MIB_OF_NESTING,
    });
    expect(consolePost.status).toBe(400);
    expect(await consolePost.text()).toContain(`more than ${MAX_JSON_DEPTH} levels deep`);
  });
});
