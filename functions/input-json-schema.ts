import { z } from '@hono/zod-openapi';
import type { Operation } from './registry.js';

/** JSON Schema of an operation's whole input (path, query and body fields in one object). */
export function inputJsonSchema(op: Operation): { properties: Record<string, unknown>; required: string[] } {
  const shape = { ...(op.params?.shape ?? {}), ...(op.query?.shape ?? {}), ...(op.body?.shape ?? {}) };
  const json = z.toJSONSchema(z.object(shape), { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return { properties: json.properties ?? {}, required: json.required ?? [] };
}
