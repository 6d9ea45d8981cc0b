import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../functions/http/env.js';
import { UPLOAD_EXAMPLE } from '../functions/http/openapi.js';
import { createHarness, type Harness } from './support/harness.js';

/**
 * Every request body in the OpenAPI document comes with an example, and every example is a body its
 * operation accepts: parsed by the operation's own zod schema, so a renamed or tightened field makes
 * this fail instead of leaving a stale example in the reference.
 */
let h: Harness;
let paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, Media> } }>>;
interface Media {
  example?: unknown;
}

beforeAll(async () => {
  h = await createHarness();
  paths = ((await (await h.fetch(`${API_PREFIX}/openapi.json`)).json()) as { paths: typeof paths }).paths;
});
afterAll(async () => h.close());

const withBodies = () =>
  Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => op.requestBody)
      .map(([method, op]) => ({ label: `${method.toUpperCase()} ${path} (${op.operationId})`, op })),
  );

describe('request examples in the OpenAPI document', () => {
  it('every operation with a request body has an example its own schema accepts', () => {
    const bodies = withBodies();
    expect(bodies.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const { label, op } of bodies) {
      const declared = h.services.registry.get(op.operationId);
      if (!declared?.body) {
        problems.push(`${label}: a request body in the document but none declared`);
        continue;
      }
      const json = op.requestBody?.content['application/json'];
      const multipart = op.requestBody?.content['multipart/form-data'];
      if (declared.upload) {
        // REST sends the file as a multipart part; the document shows the part, a file picker in the reference.
        if (JSON.stringify(multipart?.example) !== JSON.stringify({ [declared.upload.field]: UPLOAD_EXAMPLE }))
          problems.push(`${label}: the multipart example does not name the field ${declared.upload.field}`);
        continue;
      }
      if (json?.example === undefined) {
        problems.push(`${label}: no example`);
        continue;
      }
      const parsed = declared.body.safeParse(json.example);
      if (!parsed.success) problems.push(`${label}: ${parsed.error.message}`);
    }
    expect(problems).toEqual([]);
  });

  it("every declared example, console operations' and uploads' JSON (MCP) form included, parses with its body", () => {
    const problems: string[] = [];
    for (const op of h.services.registry.all()) {
      if (!op.body) continue;
      if (!op.example) problems.push(`${op.id}: no example`);
      else if (!op.body.safeParse(op.example).success) problems.push(`${op.id}: its example is refused`);
    }
    expect(problems).toEqual([]);
  });

  it('an example that breaks its schema is caught (the check can fail)', () => {
    const create = h.services.registry.get('webhooks.create');
    expect(create?.body?.safeParse({ ...create.example, events: ['no.such.event'] }).success).toBe(false);
  });
});
