import { z } from '@hono/zod-openapi';

/**
 * How a question was read: one typed structure between a question and its answer, for every model
 * (agents.md, "The reader"). The local reader (reader.ts) composes it from the spans of the
 * question; a hosted model may fill the same structure. It travels with the answer, so a misreading
 * is visible at a glance ("Read as: ...") and testable without parsing prose.
 */

export const ANALYSES = [
  /** Rows of a surface, filtered, grouped, ordered, counted or summed: "biggest open deal", "calls last month". */
  'records',
  /** The share of closed deals that were won, optionally by a grouping. */
  'win_rate',
  /** Open deals' amounts weighted by their probability. */
  'weighted_pipeline',
  /** Deals whose buyers said the project is paused, on hold or pushed out. */
  'slipped',
  /** What customers say about a topic. */
  'voice',
  'account_brief',
  'account_topic',
  'account_changes',
  'qualification',
  'quiet',
  'losses',
  'competitors',
  'compare',
  'churn',
  /** Each rep's share of the speaking time on calls and meetings (the `analyses.talk_ratio` operation). */
  'talk_ratio',
  /** What customers and prospects ask the product to do, by accounts asking (the `analyses.feature_requests` operation). */
  'feature_requests',
  /** Open renewals, which look at risk and why (the `analyses.renewal_risk` operation). */
  'renewal_risk',
  /** Champions who left or changed, and what happened after (the `analyses.champion_changes` operation). */
  'champion_changes',
  /** One account's conversations, deals and qualification changes in order (the `analyses.account_history` operation). */
  'account_history',
  'general',
  /** Nothing the data holds answers it: `unexplained` and `absent` say why. */
  'not_understood',
] as const;
export type Analysis = (typeof ANALYSES)[number];

const FilterSchema = z
  .object({
    field: z.string().min(1).max(100),
    op: z.enum(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'contains']),
    value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]),
    /** The words of the question the filter was read from (null when it was inherited or implied). */
    from_words: z.string().max(300).nullable(),
  })
  .strict();
export type InterpretedFilter = z.infer<typeof FilterSchema>;

const PeriodSchema = z
  .object({
    from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    /** Exclusive. */
    to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    /** The date field the period bounds: when the deal closes, when it was created, when a conversation happened. */
    field: z.string().min(1).max(100),
    phrase: z.string().max(200),
  })
  .strict();
export type InterpretedPeriod = z.infer<typeof PeriodSchema>;

export const InterpretationSchema = z
  .object({
    analysis: z.enum(ANALYSES),
    /** The records the question is about: deals, interactions (calls, meetings, emails), accounts. */
    subject: z.enum(['deals', 'interactions', 'accounts', 'quotes']).nullable(),
    measure: z
      .object({
        fn: z.enum(['list', 'count', 'sum', 'avg', 'share', 'max', 'min']),
        field: z.string().max(100).nullable(),
      })
      .strict(),
    filters: z.array(FilterSchema).max(30),
    period: PeriodSchema.nullable(),
    group_by: z.string().max(100).nullable(),
    order: z
      .object({ field: z.string().max(100), dir: z.enum(['asc', 'desc']) })
      .strict()
      .nullable(),
    limit: z.number().int().min(1).max(1000).nullable(),
    /** Fields the question asks to see for each row ("who owns it and when does it close"). */
    show: z.array(z.string().max(100)).max(20),
    compare_to: PeriodSchema.nullable(),
    topic: z.string().max(300).nullable(),
    names: z
      .object({
        accounts: z.array(z.string().max(300)).max(50),
        deals: z.array(z.string().max(300)).max(50),
        people: z.array(z.string().max(300)).max(50),
        competitors: z.array(z.string().max(300)).max(50),
      })
      .strict(),
    /** The questions of a multi-part ask, each read on its own (empty for a one-part ask). */
    parts: z.array(z.string().max(1000)).max(10),
    /** What was carried over from earlier in the thread ("period", "filters", "analysis"). */
    inherited: z.array(z.string().max(100)).max(20),
    /** Content words of the question the reader could not place: never searched in silence. */
    unexplained: z.array(z.string().max(100)).max(50),
    /**
     * Words the reader's lexicon does not hold, read as a lexicon phrase they share a meaning with in
     * WordNet ("begging" as "request"), so a reading through another word than the one written is visible.
     */
    near_words: z
      .array(z.object({ word: z.string().max(100), as: z.string().max(100) }).strict())
      .max(20)
      .default([]),
    /** Subjects asked about that the data does not hold (e.g. "NPS", "campaign source"). */
    absent: z.array(z.string().max(200)).max(10),
    /** 0–1: the share of the question's content words the reading placed. */
    confidence: z.number().min(0).max(1),
  })
  .strict()
  .openapi('Interpretation', {
    description:
      'How the question was read: the analysis, the records, the measure, filters, the period with the date field it bounds, grouping, order and limit, the names linked against the workspace, what was inherited from the thread, the words read through a near word and the words that were not understood.',
  });
export type Interpretation = z.infer<typeof InterpretationSchema>;
