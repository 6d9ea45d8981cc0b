import { z } from '@hono/zod-openapi';
import { parseIsoDate } from '../../platform/validation.js';
import { BlockDraftSchema } from '../agents/index.js';
import { defineOperation, type ObjectSchema, type Operation, type OperationContext } from '../registry.js';

/**
 * An analysis: one kind of answer (talk ratio, feature requests, ...) as a registry operation, so REST,
 * OpenAPI, MCP (the `analyze` tool) and every agent's tools get it at once, and the local model and a
 * hosted one answer from the same computation. It returns blocks the grounding verifier checks: each
 * table or metric cites either the `search.query` request its cells came from or this operation itself
 * (`{operation, input, result}`, re-run as the caller and compared with `results[result]`), so a model
 * that copies a block into its answer cannot change a cell unnoticed.
 */

/** A day of the calendar written YYYY-MM-DD (2026-02-30 is not one). */
const Day = z.string().refine((v) => parseIsoDate(v) !== null, 'a date that exists, written YYYY-MM-DD');

/** The period an analysis reads, `to` exclusive; absent, all of the data. */
export const AnalysisPeriodSchema = z
  .object({
    from: Day.openapi({ example: '2026-07-01' }),
    to: Day.openapi({ example: '2026-10-01', description: 'Exclusive.' }),
  })
  .strict()
  .refine((p) => parseIsoDate(p.from) === null || parseIsoDate(p.to) === null || p.from < p.to, {
    message: 'from must be before to',
    path: ['to'],
  })
  .openapi('AnalysisPeriod');
export type AnalysisPeriod = z.infer<typeof AnalysisPeriodSchema>;

/** Rows of one result of an analysis: what a table shows and a citation re-reads. */
const ResultRowsSchema = z.array(z.record(z.string(), z.unknown()));

export const AnalysisOutputSchema = z
  .object({
    analysis: z.string().openapi({ description: 'Which analysis ran, e.g. `talk_ratio`.' }),
    read_as: z
      .string()
      .openapi({ description: 'What the analysis applied, in words: the records, the period, the grouping.' }),
    summary: z.array(z.string()).openapi({
      description:
        'Sentences that state the answer first. Every number in them is a cell of one of the blocks, so an answer quoting them stays verifiable.',
    }),
    blocks: z.array(BlockDraftSchema).openapi({
      description:
        'Tables, metrics and quotes to show as they are. A table or metric cites the `search.query` request it was read from, or this operation (`{operation, input, result}`): the grounding verifier re-runs it as the caller and compares the cells.',
    }),
    results: z.record(z.string(), ResultRowsSchema).openapi({
      description: 'Every result the blocks were built from, by name; a block citing this operation names one.',
    }),
    empty_reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why the analysis found nothing, in words; null when it found something.' }),
  })
  .strict()
  .openapi('AnalysisResult');
export type AnalysisOutput = z.infer<typeof AnalysisOutputSchema>;

/** What a table or metric of an analysis cites when its cells are the analysis's own rows. */
export interface AnalysisCitation {
  operation: string;
  input: Record<string, unknown>;
  result: string;
}

export interface AnalysisSpec<B extends ObjectSchema> {
  /** snake_case: the operation is `analyses.<name>`, the MCP action `<name>`. */
  name: string;
  /** The REST path under /analyses/. */
  path: string;
  summary: string;
  description: string;
  body: B;
  example: z.input<B>;
  run(ctx: OperationContext, input: z.output<B>, cite: (result: string) => AnalysisCitation): Promise<AnalysisOutput>;
}

/** The operation of an analysis: a read-only POST every viewer may call, counted as a search. */
export function defineAnalysis<B extends ObjectSchema>(spec: AnalysisSpec<B>): Operation {
  const id = `analyses.${spec.name}`;
  return defineOperation({
    id,
    method: 'post',
    path: `/analyses/${spec.path}`,
    tags: ['Analyses'],
    scopes: ['data:read'],
    minRole: 'viewer',
    stability: 'beta',
    visibility: 'public',
    summary: spec.summary,
    description: spec.description,
    mcp: { tool: 'analyze', action: spec.name },
    body: spec.body,
    example: spec.example as never,
    output: AnalysisOutputSchema,
    rateLimit: { limit: 30, windowSeconds: 60 },
    quota: 'search',
    readOnly: true,
    handler: (ctx, input) =>
      spec.run(ctx, input as z.output<B>, (result) => ({
        operation: id,
        input: input as Record<string, unknown>,
        result,
      })),
  });
}
