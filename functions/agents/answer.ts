import { z } from '@hono/zod-openapi';
import { InterpretationSchema } from './understanding/interpretation.js';

/**
 * An agent's answer (agents.md, "The answer"): markdown text plus typed content blocks a client can
 * render and a reader can check. Every quote, table, metric and number in it is verified against the
 * workspace's data before it is committed (grounding.ts).
 */

/** A search request (the body of POST /search/query) whose result a table or metric was read from. */
export const BlockQuerySchema = z.record(z.string(), z.unknown()).openapi({
  description: 'The `search.query` request the cells were read from; the grounding verifier re-runs it and compares.',
});

export const QuoteSourceSchema = z
  .object({
    interaction_id: z.uuid(),
    /** The transcript turn quoted; null for an email (the quote is then from its body). */
    turn_id: z.uuid().nullable(),
    speaker: z.string().nullable(),
    occurred_at: z.string().nullable(),
    /** The account's name, null when the interaction has none. */
    account: z.string().nullable(),
    /** The name of the deal the interaction is linked to, null when none is; the verifier fills it from the warehouse. */
    deal: z.string().nullable().optional().openapi({
      description:
        'The name of the deal the quoted interaction is linked to, null when it is linked to none. Filled by the grounding verifier from the warehouse (a model need not give it; a wrong one is corrected).',
    }),
    /** Which side of the conversation spoke the words: the workspace's own people or the customer. */
    side: z.enum(['external', 'internal']).nullable().optional().openapi({
      description:
        "The side of the conversation the quoted words are from (`external`: the customer's; `internal`: the workspace's own people), read by the grounding verifier from the turn (an email: from its direction).",
    }),
  })
  .strict()
  .openapi({
    description:
      "Where a quote comes from. The grounding verifier reads the interaction's account, deal and date and the turn's speaker and side from the warehouse and writes them here, whatever the model wrote (each correction is counted in `grounding.quotes.relabeled`).",
  });

/** Where a quote from an uploaded document comes from: the document (group) and the node quoted. */
export const DocumentQuoteSourceSchema = z
  .object({
    document_group_id: z.uuid(),
    node_key: z.string().min(1).max(40),
    /** The document's title (the verifier checks it is this document's). */
    document_title: z.string().min(1).max(300),
  })
  .strict();

/** Where a memory quote comes from: a remembered text of this workspace (the remember operation's evidenceId). */
export const MemoryQuoteSourceSchema = z.object({ memory_id: z.uuid() }).strict();

const blockBodies = {
  text: z.object({ kind: z.literal('text'), markdown: z.string().min(1).max(20_000) }).strict(),
  callout: z
    .object({
      kind: z.literal('callout'),
      tone: z.enum(['info', 'warning', 'success']),
      markdown: z.string().min(1).max(4_000),
    })
    .strict(),
  citation: z
    .object({
      kind: z.literal('citation'),
      cite: z.enum(['utterance', 'query', 'doc', 'url']),
      ref: z.string().min(1).max(2_000),
      label: z.string().min(1).max(300),
      snippet: z.string().max(1_000).nullable(),
    })
    .strict(),
  quote: z
    .object({
      kind: z.literal('quote'),
      /** Verbatim words from the cited turn (or email body). */
      text: z.string().min(1).max(2_000),
      source: QuoteSourceSchema,
      /** How the quote bears on the answer's point. */
      stance: z.enum(['supports', 'contradicts', 'context']),
    })
    .strict(),
  /** A verbatim quote from a knowledge-bank node (functions/knowledge), checked against that node. */
  document_quote: z
    .object({
      kind: z.literal('document_quote'),
      text: z.string().min(1).max(2_000),
      source: DocumentQuoteSourceSchema,
      stance: z.enum(['supports', 'contradicts', 'context']),
    })
    .strict(),
  /** A verbatim quote from the workspace's memory (functions/memory), checked against that remembered text. */
  memory_quote: z
    .object({
      kind: z.literal('memory_quote'),
      text: z.string().min(1).max(2_000),
      source: MemoryQuoteSourceSchema,
      stance: z.enum(['supports', 'contradicts', 'context']),
    })
    .strict(),
  table: z
    .object({
      kind: z.literal('table'),
      title: z.string().max(300).nullable(),
      columns: z
        .array(z.object({ key: z.string().min(1).max(100), label: z.string().min(1).max(200) }).strict())
        .min(1)
        .max(20),
      data: z.array(z.record(z.string(), z.unknown())).max(200),
      query: BlockQuerySchema,
    })
    .strict(),
  metric: z
    .object({
      kind: z.literal('metric'),
      label: z.string().min(1).max(200),
      value: z.union([z.number(), z.string()]).nullable(),
      /** Which column of the query's first result row holds the value. */
      column: z.string().min(1).max(100),
      query: BlockQuerySchema,
    })
    .strict(),
  theme_finding: z
    .object({
      kind: z.literal('theme_finding'),
      theme_id: z.uuid(),
      label: z.string().min(1).max(300),
      insight: z.string().min(1).max(2_000),
      member_count: z.number().int().min(0),
    })
    .strict(),
};

/** A block as a model writes it (no id yet). */
export const BlockDraftSchema = z.discriminatedUnion('kind', [
  blockBodies.text,
  blockBodies.callout,
  blockBodies.citation,
  blockBodies.quote,
  blockBodies.document_quote,
  blockBodies.memory_quote,
  blockBodies.table,
  blockBodies.metric,
  blockBodies.theme_finding,
]);
export type BlockDraft = z.infer<typeof BlockDraftSchema>;

/** A block as stored and returned: the run gives each an id (`b1`, `b2`, ...) in answer order. */
export const ContentBlockSchema = z
  .discriminatedUnion('kind', [
    blockBodies.text.extend({ id: z.string() }),
    blockBodies.callout.extend({ id: z.string() }),
    blockBodies.citation.extend({ id: z.string() }),
    blockBodies.quote.extend({ id: z.string() }),
    blockBodies.document_quote.extend({ id: z.string() }),
    blockBodies.memory_quote.extend({ id: z.string() }),
    blockBodies.table.extend({ id: z.string() }),
    blockBodies.metric.extend({ id: z.string() }),
    blockBodies.theme_finding.extend({ id: z.string() }),
  ])
  .openapi('AnswerBlock');
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** The arguments of the `final_answer` tool: what a model hands in as its answer. */
export const AnswerDraftSchema = z
  .object({
    text: z.string().min(1).max(40_000),
    content_blocks: z.array(BlockDraftSchema).max(60).default([]),
    follow_ups: z.array(z.string().min(1).max(300)).max(4).default([]),
    /** How the model read the question (optional: a model that reads it says so, and the answer shows it). */
    interpretation: InterpretationSchema.optional(),
  })
  .strict();
export type AnswerDraft = z.infer<typeof AnswerDraftSchema>;

/**
 * The checks `verified` certifies, by name (agents.md, "Grounding is checked, not hoped for"); each
 * answer's `grounding.checks[]` lists the ones it was held to, in this order.
 */
export const GROUNDING_CHECKS = {
  verbatim: 'Every quote is word for word in the turn, email, document node or memory it cites, in this workspace.',
  recomputed:
    "Every table's and metric's query is re-run as the caller and returns the same cells; every theme finding and cited utterance exists; every number in the prose is a cell, a query value or inside a verified quote.",
  attributed:
    "Every quote carries its interaction's account, deal and date and its turn's speaker and side as the warehouse has them (a correction is made, not failed).",
  'period-bounded':
    'A period the question names bounds every quote and every count, or the answer says it does not (quotes outside it are left out).',
  'on-topic':
    'Every quote is about what the question asks (one that is not is left out; the answer says so, and stays true).',
  'absence-backed':
    'A claim that something is absent (“no one mentioned”, “none of”, “there are no”, “No customer mentioned…”, “did not come up in any call”) is backed in the same answer: a metric of 0 or a table with no rows on that subject, a row of its own verified table that states it or holds nothing for that field, a query citation, or a search of this run that found nothing for it (then cited). A verdict on the question (“Nothing in the data settles it yet.”) is no such claim. An unbacked one is removed.',
  'parts-answered':
    "Every part of a question the answer's interpretation reads as several (`interpretation.parts`) has a section of the answer of its own, or is declined in words that name it; a part left over fails the check and is named in a warning callout. An answer that reports no parts is not held to it.",
  'prose-quotes':
    'Every quotation in the prose (words given as what someone said, in any marks: “…”, ‘…’, «…», „…“, a blockquote line, or a list line giving a person’s words after their name) is the text of a quote block of the same answer; one that is not is removed.',
  finished:
    'Nothing unfinished reaches the reader: no placeholder (a value masked by letters, “XX%”, “$X,XXX”, “N accounts”, or a slot, “[Account Name]”, “<company>”), no section that is empty or only says it has nothing, no line about quotes or a table the answer does not hold, no total smaller than one of its own parts, no total of 0 beside a breakdown whose labels count more than 0 of the same thing.',
} as const;
export type GroundingCheckName = keyof typeof GROUNDING_CHECKS;
const CHECK_NAMES = Object.keys(GROUNDING_CHECKS) as [GroundingCheckName, ...GroundingCheckName[]];

export const GroundingCheckSchema = z
  .object({
    name: z.enum(CHECK_NAMES).openapi({
      description: `The check: ${Object.entries(GROUNDING_CHECKS)
        .map(([name, what]) => `\`${name}\`: ${what}`)
        .join(' ')}`,
    }),
    passed: z.boolean(),
    /** What the check took out of the answer (blocks, prose lines), when it took anything. */
    removed: z.number().int().min(0).optional(),
    /** Why it failed, or what it did, in words. */
    detail: z.string().optional(),
  })
  .strict()
  .openapi('GroundingCheck');
export type GroundingCheck = z.infer<typeof GroundingCheckSchema>;

export const GroundingReportSchema = z
  .object({
    /** True when every check in `checks` passed. */
    verified: z.boolean().openapi({
      description:
        'True only when every check in `checks` passed. A check that removed something it was built to remove without failing (an off-topic quote, a corrected label, a section left empty by a removal) leaves it true.',
    }),
    checks: z.array(GroundingCheckSchema).default([]).openapi({
      description:
        'Each check the answer was held to, with its result and what it removed: what `verified` certifies. Empty in answers written before the checks were listed.',
    }),
    quotes: z.object({
      checked: z.number().int(),
      verified: z.number().int(),
      removed: z.number().int(),
      /** Verbatim quotes left out because they are about something other than the question's topic (0 in answers written before the check). */
      off_topic: z.number().int().default(0),
      relabeled: z.number().int().default(0).openapi({
        description:
          "Verified quotes whose attribution the verifier corrected from the warehouse: an account, deal, date, speaker or side that was missing or not the quoted interaction's or turn's (the prose lines quoting them corrected too). 0 in answers written before the check.",
      }),
    }),
    tables: z.object({ checked: z.number().int(), verified: z.number().int(), removed: z.number().int() }),
    metrics: z.object({ checked: z.number().int(), verified: z.number().int(), removed: z.number().int() }),
    themes: z.object({ checked: z.number().int(), verified: z.number().int(), removed: z.number().int() }),
    numbers: z.object({
      checked: z.number().int(),
      /** Numbers in the prose that no cell or query parameter of this answer backs, as written. */
      unverified: z.array(z.string()),
    }),
    /** Why each removed block was removed. */
    problems: z.array(z.string()),
  })
  .strict()
  .openapi('GroundingReport');
export type GroundingReport = z.infer<typeof GroundingReportSchema>;

export const AnswerSchema = z
  .object({
    text: z.string(),
    content_blocks: z.array(ContentBlockSchema),
    follow_ups: z.array(z.string()),
    /** True when the run ended before it could finish (turn budget, usage limit, canceled). */
    partial: z.boolean(),
    partial_reason: z.enum(['turn_limit', 'usage_limit']).nullable(),
    grounding: GroundingReportSchema,
    interpretation: InterpretationSchema.nullable().optional().openapi({
      description:
        'How the question was read, when the model reported it: the analysis, records, measure, filters, period (with the date field it bounds), grouping, order, limit, names, what was inherited from the thread and the words not understood.',
    }),
  })
  .openapi('Answer');
export type Answer = z.infer<typeof AnswerSchema>;
