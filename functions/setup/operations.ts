import { z } from '@hono/zod-openapi';
import { ROLES } from '../../schema/tenancy.js';
import { roleAtLeast } from '../identity/scopes.js';
import { readQuota } from '../limits/quota.js';
import { defineOperation } from '../registry.js';
import { isoTimestamp } from '../schemas.js';

const QuotaSchema = z
  .object({
    limit: z.number().int(),
    used: z.number().int(),
    remaining: z.number().int(),
    resets_at: isoTimestamp(),
  })
  .openapi('MonthlyQuota');

export const SetupStatusSchema = z
  .object({
    workspace: z.object({
      id: z.uuid().openapi({ description: 'The workspace (business_id).' }),
      name: z.string(),
    }),
    caller: z.object({
      user_id: z.uuid(),
      email: z.string(),
      role: z.enum(ROLES),
      scopes: z.array(z.string()).openapi({ description: 'Scopes the presented credential carries.' }),
      bundle: z.string().nullable().openapi({ description: 'Permission bundle of an API key; null for tokens.' }),
    }),
    auth_method: z.enum(['api_key', 'oauth', 'identity_provider', 'console']),
    optimize: z.object({
      allowed: z.boolean().openapi({ description: 'Whether this caller can call POST /messages/optimize right now.' }),
      blocker: z
        .enum(['missing_scope', 'role_too_low', 'quota_exhausted'])
        .nullable()
        .openapi({ description: 'The first thing in the way, checked in this order; null when allowed.' }),
      quota: QuotaSchema.nullable().openapi({ description: 'The monthly optimizer quota; null when not metered.' }),
    }),
  })
  .openapi('SetupStatus');

export const setupStatus = defineOperation({
  id: 'setup.status',
  method: 'get',
  path: '/setup/status',
  summary: 'Who am I, in which workspace, and can I optimize messages',
  description: 'Read-only. Any valid credential may call it; it needs no scope.',
  tags: ['Setup'],
  scopes: [],
  minRole: 'viewer',
  stability: 'stable',
  visibility: 'public',
  mcp: { tool: 'connections', action: 'setup_status' },
  output: SetupStatusSchema,
  async handler(ctx) {
    const { caller, services } = ctx;
    const quota = await readQuota(services.db, caller.workspaceId, 'optimizer', services.clock.now());
    const blocker: 'missing_scope' | 'role_too_low' | 'quota_exhausted' | null = !caller.scopes.has('messages:execute')
      ? 'missing_scope'
      : !roleAtLeast(caller.role, 'editor')
        ? 'role_too_low'
        : quota && quota.remaining <= 0
          ? 'quota_exhausted'
          : null;
    return {
      workspace: { id: caller.workspaceId, name: caller.workspaceName },
      caller: {
        user_id: caller.userId,
        email: caller.email,
        role: caller.role,
        scopes: [...caller.scopes].sort(),
        bundle: caller.bundle,
      },
      auth_method: caller.authMethod,
      optimize: { allowed: blocker === null, blocker, quota },
    };
  },
});

export const setupOperations = [setupStatus];
