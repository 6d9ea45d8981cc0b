import { z } from 'zod';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { pacingOf } from '../../platform/db/pacing.js';
import { yieldToEventLoop } from '../../platform/scheduler/yield.js';
import { nextMacrotask } from '../../platform/yielder.js';
import { definePipeline, NonRetryableError } from '../../queues/pipeline.js';
import { documentGroups, knowledgeNodes, knowledgeNodeVectors, storedFiles } from '../../schema/knowledge.js';
import type { Services } from '../services.js';
import { KNOWLEDGE_INGEST_KIND, setDocumentStatus } from './documents.js';
import { IngestLimitError, ParseAborted } from './ingest-limits.js';
import { DOCUMENT_FORMATS, parseDocument } from './parsers/index.js';

/** Nodes embedded per stage delivery: a hosted embedder's batch, and a stage well inside its deadline. */
export const EMBED_BATCH = 128;
/**
 * Nodes written per INSERT, each its own statement so the database answers others between two: at
 * most this many, and no more text than INSERT_TEXT_CHARS (an embedded database runs a statement on
 * this thread, so a statement's size is how long everything else waits: a statement of 16 KiB of
 * text and its full-text index entries stays a few ms; 64 KiB ones reached 100-800 ms on a loaded
 * machine, bench/ingest-responsiveness.ts).
 */
const INSERT_CHUNK = 64;
const INSERT_TEXT_CHARS = 16 * 1024;
/** A progress event while parsing every this many pages. */
const PAGES_PER_PROGRESS_EVENT = 10;

const IngestInput = z.object({ document_group_id: z.uuid() });
type IngestInput = z.infer<typeof IngestInput>;
const IngestState = z.object({
  nodes: z.number().int().default(0),
  embedded: z.number().int().default(0),
  /** The position of the last node the embed stage read: the next batch starts after it. */
  readThrough: z.number().int().default(-1),
});
type IngestState = z.infer<typeof IngestState>;

/**
 * A knowledge-bank document becomes knowledge on the engine: `parse` reads the
 * file from the store, parses it within the ingest limits (page by page for a PDF, with progress
 * events), writes its nodes a chunk per statement and commits their count; `embed` then embeds a
 * batch of nodes per delivery (the next in reading order; those without a vector of the services' embedder), with `ingest.progress`
 * events, until none is left and the document is `ready`. Every write is keyed (group, node_key[,
 * embedder]) and skips what exists, so a repeated delivery changes nothing (a batch's vectors go in a
 * few per statement before the stage commits; the commit is what moves past the batch); a stale one is dropped by
 * the engine. A document past a limit fails with the limit's code (not retried); a parse stopped by
 * the server stopping is retried when it starts again. Long loops yield to the event loop, and no
 * statement holds the database for more than one chunk, so other requests keep being answered.
 */
export const knowledgeIngestPipeline = definePipeline<Services, IngestInput, IngestState>({
  kind: KNOWLEDGE_INGEST_KIND,
  input: IngestInput,
  state: IngestState,
  deadlineMs: 300_000,
  stages: {
    async parse({ run, input, services, emit, signal }) {
      const [doc] = await services.db
        .select({ format: documentGroups.format, status: documentGroups.status, key: storedFiles.storageKey })
        .from(documentGroups)
        .innerJoin(storedFiles, eq(storedFiles.id, documentGroups.fileId))
        .where(and(eq(documentGroups.workspaceId, run.workspaceId), eq(documentGroups.id, input.document_group_id)));
      if (!doc) throw new NonRetryableError('not_found', 'The document was deleted before it was parsed.');
      const format = z.enum(DOCUMENT_FORMATS).safeParse(doc.format);
      if (!format.success) throw new NonRetryableError('unsupported_format', `Cannot parse ${doc.format}.`);
      const bytes = await services.files.get(doc.key);
      if (!bytes) throw new NonRetryableError('file_missing', 'The file is no longer in the file store.');
      let nodes;
      try {
        // The bytes read are this stage's alone: the parser takes them without a copy.
        nodes = await parseDocument(
          format.data,
          bytes,
          async (page, pages) => {
            if (page % PAGES_PER_PROGRESS_EVENT === 0 || page === pages)
              await emit([{ type: 'ingest.progress', data: { phase: 'parse', pages_done: page, pages } }]);
          },
          { handOver: true, signal, ...(services.docxToHtml ? { docxToHtml: services.docxToHtml } : {}) },
        );
      } catch (error) {
        if (error instanceof IngestLimitError) throw new NonRetryableError(error.code, error.message);
        if (error instanceof ParseAborted)
          throw new ApiError('service_unavailable', 'The parse was stopped before it ended; it runs again.');
        throw new NonRetryableError(
          'unparseable',
          `The ${format.data} file could not be parsed: ${error instanceof Error ? error.message : String(error)}`.slice(
            0,
            500,
          ),
        );
      }
      if (nodes.length === 0)
        throw new NonRetryableError('empty_document', 'The document holds no text to make knowledge of.');
      // A chunk per statement, not all in the commit's transaction: one transaction of tens of
      // thousands of rows would hold the (embedded, single-connection) database from every other
      // request. Keyed and skipping what exists, a repeated delivery writes nothing twice.
      for (let i = 0; i < nodes.length; ) {
        if (signal.aborted)
          throw new ApiError(
            'service_unavailable',
            'The parse was stopped before its nodes were written; it runs again.',
          );
        let end = i;
        for (let chars = 0; end < nodes.length && end - i < INSERT_CHUNK && chars < INSERT_TEXT_CHARS; end++)
          chars += nodes[end]?.text.length ?? 0;
        const chunk = nodes.slice(i, end);
        i = end;
        await services.db
          .insert(knowledgeNodes)
          .values(
            chunk.map((n) => ({
              workspaceId: run.workspaceId,
              documentGroupId: input.document_group_id,
              nodeKey: n.nodeKey,
              kind: n.kind,
              position: n.position,
              page: n.page,
              heading: n.heading,
              text: n.text,
            })),
          )
          .onConflictDoNothing();
        await nextMacrotask();
      }
      return {
        state: { nodes: nodes.length },
        events: [{ type: 'ingest.parsed', data: { nodes: nodes.length } }],
        effects: async ({ tx, now }) => {
          await tx
            .update(documentGroups)
            .set({ nodeCount: nodes.length, updatedAt: now })
            .where(eq(documentGroups.id, input.document_group_id));
        },
        next: 'embed',
      };
    },

    async embed({ run, input, state, services, signal }) {
      const embedder = services.embedder;
      // The next batch of nodes in reading order after the last one read, and whether each has a
      // vector already: one index range of EMBED_BATCH rows, whatever the document's size. (Asked as
      // "the first nodes without a vector", Postgres reads and sorts the whole document's nodes,
      // text and all, once per batch: seconds of a held database for a 50 MB text.)
      const read = await services.db
        .select({
          nodeKey: knowledgeNodes.nodeKey,
          text: knowledgeNodes.text,
          position: knowledgeNodes.position,
          // Named in full: drizzle writes a one-table select's columns unqualified, and inside the
          // subquery those would read the vector's own columns.
          embedded: sql<boolean>`exists (select 1 from knowledge_node_vectors v where v.document_group_id = knowledge_nodes.document_group_id
                 and v.node_key = knowledge_nodes.node_key and v.embedder = ${embedder.id})`,
        })
        .from(knowledgeNodes)
        .where(
          and(
            eq(knowledgeNodes.workspaceId, run.workspaceId),
            eq(knowledgeNodes.documentGroupId, input.document_group_id),
            gt(knowledgeNodes.position, state.readThrough),
          ),
        )
        .orderBy(asc(knowledgeNodes.position))
        .limit(EMBED_BATCH);
      if (read.length === 0) {
        return {
          events: [{ type: 'ingest.completed', data: { nodes: state.nodes, embedded: state.embedded } }],
          effects: async ({ tx, now }) => setDocumentStatus(tx, input.document_group_id, { status: 'ready', at: now }),
          complete: true,
        };
      }
      const readThrough = read.at(-1)!.position;
      // A repeated delivery finds the vectors it wrote before it stopped: it embeds only the rest.
      const pending = read.filter((n) => !n.embedded);
      const vectors =
        pending.length > 0
          ? await embedder.embed(
              pending.map((p) => p.text),
              { signal },
            )
          : [];
      // The vectors go in a few per statement with the loop turning between two: one statement of a
      // whole batch and its HNSW index updates held an embedded database, and every other request,
      // for 0.6-1.9 s under load (the pacing: platform/db/pacing.ts). Each statement is keyed (group,
      // node, embedder) and skips what exists, and none moves the stage on: until the commit below
      // advances readThrough, a stop between two leaves the batch to be read again, and the retry
      // embeds what is still without a vector.
      const perInsert = pacingOf(services.db).vectorsPerInsert;
      for (let from = 0; from < pending.length; from += perInsert) {
        if (from > 0) await yieldToEventLoop();
        await services.db
          .insert(knowledgeNodeVectors)
          .values(
            pending.slice(from, from + perInsert).map((p, i) => ({
              workspaceId: run.workspaceId,
              documentGroupId: input.document_group_id,
              nodeKey: p.nodeKey,
              embedder: embedder.id,
              embedding: vectors[from + i] ?? [],
            })),
          )
          .onConflictDoNothing();
      }
      // Every node read now has a vector, whichever delivery wrote it.
      const embedded = state.embedded + read.length;
      return {
        state: { embedded, readThrough },
        events: [{ type: 'ingest.progress', data: { phase: 'embed', embedded, nodes: state.nodes } }],
        effects: async ({ tx, now }) => {
          await tx
            .update(documentGroups)
            .set({ embeddedCount: embedded, updatedAt: now })
            .where(eq(documentGroups.id, input.document_group_id));
        },
        next: 'embed',
      };
    },
  },
  async onTerminal(run, { tx, now }) {
    if (run.status === 'complete') return;
    const id = IngestInput.safeParse(run.input);
    if (!id.success) return;
    await setDocumentStatus(tx, id.data.document_group_id, {
      status: 'failed',
      error: run.error?.message ?? `The ingest run ended ${run.status}.`,
      at: now,
    });
  },
});
