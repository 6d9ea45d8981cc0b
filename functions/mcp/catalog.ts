import { inputJsonSchema } from '../input-json-schema.js';
import type { Operation, OperationRegistry } from '../registry.js';

export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[] };
  /** action → operation */
  actions: Map<string, Operation>;
}

export interface McpResource {
  /** A fixed URI or a template with {placeholders}. */
  uri: string;
  op: Operation;
  isTemplate: boolean;
  pattern: RegExp;
  placeholders: string[];
}

/**
 * Tools and resources generated from the registry (published operations only). A tool groups the
 * operations that share its name; its `action` argument picks one, and its other properties are
 * the union of the actions' fields, each saying which actions take it. Validation is per action.
 */
export function buildMcpCatalog(registry: OperationRegistry): { tools: McpTool[]; resources: McpResource[] } {
  const byTool = new Map<string, Operation[]>();
  for (const op of registry.published()) {
    if (!op.mcp) continue;
    byTool.set(op.mcp.tool, [...(byTool.get(op.mcp.tool) ?? []), op]);
  }
  const tools: McpTool[] = [];
  for (const [name, ops] of byTool) {
    const properties: Record<string, unknown> = {};
    const usedBy = new Map<string, string[]>();
    for (const op of ops) {
      const schema = inputJsonSchema(op);
      for (const [key, value] of Object.entries(schema.properties)) {
        properties[key] ??= value;
        const required = schema.required.includes(key) ? ' (required)' : '';
        usedBy.set(key, [...(usedBy.get(key) ?? []), `${op.mcp?.action}${required}`]);
      }
    }
    for (const [key, actions] of usedBy) {
      const base = properties[key] as { description?: string };
      properties[key] = {
        ...base,
        description: `${base.description ? `${base.description} ` : ''}Used by: ${actions.join(', ')}.`,
      };
    }
    const actions = new Map(ops.map((op) => [op.mcp?.action ?? op.id, op]));
    tools.push({
      name,
      description: [
        `Actions of the ${name} tool (pass one as "action"):`,
        ...ops.map((op) => {
          const scopes = op.scopes.length ? op.scopes.join(', ') : 'none';
          return `- ${op.mcp?.action}: ${op.summary} [scopes: ${scopes}; role: ${op.minRole}+; ${op.stability}]`;
        }),
      ].join('\n'),
      inputSchema: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: [...actions.keys()], description: 'Which action to run.' },
          ...properties,
        },
        required: ['action'],
      },
      actions,
    });
  }
  const resources: McpResource[] = [];
  for (const op of registry.published()) {
    for (const uri of [op.mcp?.resource, ...(op.mcp?.resourceAliases ?? [])]) {
      if (!uri) continue;
      const placeholders = [...uri.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
      const pattern = new RegExp(
        `^${uri
          .split(/\{\w+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('([^/]+)')}$`,
      );
      resources.push({ uri, op, isTemplate: placeholders.length > 0, pattern, placeholders });
    }
  }
  return { tools, resources };
}
