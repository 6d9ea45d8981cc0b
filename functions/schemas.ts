import { z } from '@hono/zod-openapi';

/**
 * Small zod building blocks shared by operation declarations. Query-string values arrive as strings
 * over REST and as JSON values over MCP; these accept both.
 */

const intBetween = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** An integer query value with a default (always present in the handler's input). */
export const queryInt = (options: { min: number; max: number; default: number }) =>
  intBetween(options.min, options.max).default(options.default);

/** An optional integer query value. */
export const optionalQueryInt = (options: { min: number; max: number }) =>
  intBetween(options.min, options.max).optional();

export const queryBool = () =>
  z
    .preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v), z.boolean())
    .optional();

export const uuidParam = (name: string) =>
  z.uuid().openapi({ param: { name, in: 'path' }, example: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f' });

/** Paging (spec, Limits: default 50, max 200, offset default 0). */
export const pagingQuery = {
  limit: queryInt({ min: 1, max: 200, default: 50 }).openapi({ description: 'Page size (max 200).' }),
  offset: queryInt({ min: 0, max: 1_000_000, default: 0 }).openapi({ description: 'Rows to skip.' }),
};

/**
 * A list the REST surface does not page (the agent roster, the eval catalog) still takes `limit`, the
 * first rows only: MCP list resources (`agent://list?limit=5`) read the same query fields as REST.
 */
export const listLimitQuery = {
  limit: optionalQueryInt({ min: 1, max: 200 }).openapi({
    description: 'At most this many, in list order (max 200); `total` counts them all.',
  }),
};

export const isoTimestamp = () => z.string().openapi({ format: 'date-time', example: '2026-11-23T09:30:00.000Z' });

/** The spec's `DeletedResponse`: one component, shared by every delete. */
export const DeletedResponseSchema = z.object({ deleted: z.boolean() }).openapi('DeletedResponse');
