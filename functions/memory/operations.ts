import { z } from '@hono/zod-openapi';
import { ApiError } from '../../platform/errors.js';
import { MEMORY_SOURCES } from '../../schema/memory.js';
import { defineOperation, type OperationContext } from '../registry.js';
import { rememberEvidence } from './store.js';

/** The limits of remember (spec, Limits: `text` 4000 chars, `company_name` 200). */
export const REMEMBER_LIMITS = { text: 4000, companyName: 200 } as const;

export const RememberBody = z
  .object({
    text: z
      .string()
      .min(1)
      .max(REMEMBER_LIMITS.text)
      .openapi({ description: 'The evidence to remember (1–4000 characters).' }),
    source: z
      .enum(MEMORY_SOURCES)
      .default('web')
      .openapi({ description: 'Where the evidence came from (default web).' }),
    company_name: z.string().max(REMEMBER_LIMITS.companyName).optional().openapi({
      description: 'The company it is about; linked to the account of that exact name (case aside) when one exists.',
    }),
  })
  .strict();

export const RememberResponseSchema = z
  .object({
    evidenceId: z.uuid(),
    totalEvidenceCount: z
      .number()
      .int()
      .openapi({ description: "The workspace's remembered evidence after this call." }),
    persisted: z.boolean().openapi({
      description:
        'Whether this call durably stored the evidence: true when a new row was committed; false when the same text (trimmed, exact) was already remembered in this workspace, so nothing was stored and `evidenceId` is the earlier row.',
    }),
    accountId: z.uuid().nullable().openapi({
      description: 'The account the company name matched (an addition to the spec shape); null when none.',
    }),
  })
  .openapi('RememberResponse');

/**
 * A routine fire writes memory only when its config says `write_memory: true` (spec, Routine
 * config); any other run acts as its member, whose scopes already decided.
 */
function refuseUnlessMemoryAllowed(ctx: OperationContext): void {
  const routine = (ctx.run?.input as { routine?: { write_memory?: boolean } | null } | undefined)?.routine;
  if (routine && routine.write_memory !== true) {
    throw new ApiError('forbidden', 'This routine was started with write_memory: false: it may not write memory.', {
      reason: 'memory_disabled',
    });
  }
}

export const rememberOperation = defineOperation({
  id: 'memory.remember',
  example: { text: 'Acme renews in March and wants SSO before then.', company_name: 'Acme' },
  method: 'post',
  path: '/memory',
  summary: 'Remember a piece of evidence for the agents and ask to recall',
  description:
    'Path chosen here (the spec gives only the schema). Stores the text with its source and company, embedded by the configured embedder for recall by meaning (and searchable by its words); ' +
    'a company that names an account of the workspace is linked to it. Agents recall memory with `context.substrate_query` and `context.search`, and `context.ask` searches it. ' +
    'The same text remembered twice is stored once: the second call answers `persisted: false` with the first id. A routine fire may write memory only with `write_memory: true`.',
  tags: ['Memory'],
  scopes: ['context:write'],
  minRole: 'editor',
  stability: 'beta',
  visibility: 'public',
  mcp: { tool: 'memory', action: 'remember' },
  body: RememberBody,
  output: RememberResponseSchema,
  async handler(ctx, input) {
    refuseUnlessMemoryAllowed(ctx);
    const { services, caller } = ctx;
    const text = input.text.trim();
    if (!text) {
      throw new ApiError('invalid_argument', 'Invalid request: text: must not be only whitespace', {
        fields: [{ field: 'text', problem: 'must not be only whitespace', code: 'too_small' }],
      });
    }
    const embedding = await services.embedder
      .embed([text], { signal: ctx.signal })
      .then(([vector]) =>
        vector && vector.length === services.embedder.dimensions ? { embedder: services.embedder.id, vector } : null,
      )
      .catch((error: unknown) => {
        // Remembering must not fail because the embedder did: the row is then recalled by its words only.
        services.log.warn('memory: the text could not be embedded', {
          embedder: services.embedder.id,
          error: error instanceof Error ? error.message : String(error),
        });
        return null;
      });
    const outcome = await rememberEvidence(services.db, {
      workspaceId: caller.workspaceId,
      text,
      source: input.source,
      companyName: input.company_name ?? null,
      createdBy: caller.userId,
      runId: ctx.run?.id ?? null,
      origin: ctx.origin,
      embedding,
      now: services.clock.now(),
    });
    return {
      evidenceId: outcome.evidenceId,
      totalEvidenceCount: outcome.totalEvidenceCount,
      persisted: outcome.persisted,
      accountId: outcome.accountId,
    };
  },
});

export const memoryOperations = [rememberOperation];
