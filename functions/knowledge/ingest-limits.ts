import { yielder } from '../../platform/yielder.js';

const MiB = 1024 * 1024;

/**
 * What one document may cost to parse, whatever its upload size: a small file can inflate (a zip
 * or PDF flate bomb) or split into more nodes than anyone could use. Past a limit the document
 * fails with the limit's code and the limit in its message; the run ends there.
 */
export const INGEST_LIMITS = {
  /**
   * Bytes a document's compressed parts may inflate to: every entry of a DOCX (its zip's declared
   * sizes are checked before anything is inflated, the actual sizes while inflating) and every
   * flate stream of a PDF. A 50 MB upload of images and text stays well under it.
   */
  maxDecompressedBytes: 128 * MiB,
  /**
   * Bytes of XML a DOCX's parts may inflate to (the parts mammoth reads): mammoth holds about 90
   * bytes of memory and spends about 1 s per MB of it, and 8 MiB is several thousand pages of text.
   */
  maxMarkupBytes: 8 * MiB,
  /** Characters of text one document may yield (what its nodes hold). */
  maxTextChars: 64 * MiB,
  /** Nodes one document may make (sections, paragraphs, table rows). */
  maxNodes: 50_000,
  /** Pages of a PDF. */
  maxPdfPages: 10_000,
  /** Wall-clock time parsing may take, checked between steps (pages, chunks of text). */
  maxParseMs: 60_000,
} as const;

export type IngestLimits = { [K in keyof typeof INGEST_LIMITS]: number };

export type IngestLimitCode =
  | 'decompressed_size_exceeded'
  | 'document_too_large'
  | 'too_many_nodes'
  | 'parse_time_exceeded';

/** A document past one of its limits: it fails with this code and message, and is not retried. */
export class IngestLimitError extends Error {
  override name = 'IngestLimitError';
  constructor(
    readonly code: IngestLimitCode,
    message: string,
    readonly limit: number,
  ) {
    super(message);
  }
}

/** The parse stopped because the process is stopping or the run was canceled (not the document's fault). */
export class ParseAborted extends Error {
  override name = 'ParseAborted';
}

/** A byte limit as people read it: `128 MiB`, `0.5 MiB`. */
export const mib = (bytes: number) => `${Number((bytes / MiB).toFixed(2))} MiB`;

export const decompressedSizeExceeded = (limits: IngestLimits, what: string) =>
  new IngestLimitError(
    'decompressed_size_exceeded',
    `The document's ${what} inflate to more than ${mib(limits.maxDecompressedBytes)}, the most one document may (a compression bomb or an unusually large file).`,
    limits.maxDecompressedBytes,
  );

/**
 * One document's parse: counts its nodes and text against the limits, watches the clock, and lets
 * the event loop run between steps (`step`). Parsers call `step` between pages or chunks of text and
 * hand their nodes to `add`, which refuses the one past the limit, so a bomb is stopped while it
 * parses, never after it has been held whole.
 */
export class ParseBudget {
  readonly limits: IngestLimits;
  readonly #signal: AbortSignal | undefined;
  readonly #started = performance.now();
  readonly #yield = yielder();
  #nodes = 0;
  #chars = 0;

  constructor(options: { signal?: AbortSignal | undefined; limits?: Partial<IngestLimits> | undefined } = {}) {
    this.limits = { ...INGEST_LIMITS, ...options.limits };
    this.#signal = options.signal;
  }

  /** Between steps: throws once aborted or out of time, and yields to the event loop when the slice ran long. */
  async step(): Promise<void> {
    this.check();
    await this.#yield();
    this.check();
  }

  /** Throws once aborted or out of time. */
  check(): void {
    if (this.#signal?.aborted)
      throw new ParseAborted('The parse was stopped (the server is stopping or the run ended).');
    if (performance.now() - this.#started > this.limits.maxParseMs) throw this.#outOfTime();
  }

  #outOfTime(): IngestLimitError {
    return new IngestLimitError(
      'parse_time_exceeded',
      `Parsing the document took more than ${this.limits.maxParseMs / 1000} s, the most one document may.`,
      this.limits.maxParseMs,
    );
  }

  /** The time left to parse (ms). */
  remainingMs(): number {
    return Math.max(0, this.limits.maxParseMs - (performance.now() - this.#started));
  }

  /** Characters of text read so far (before they become nodes). */
  addText(chars: number): void {
    this.#chars += chars;
    if (this.#chars > this.limits.maxTextChars)
      throw new IngestLimitError(
        'document_too_large',
        `The document holds more than ${this.limits.maxTextChars.toLocaleString('en-US')} characters of text, the most one document may.`,
        this.limits.maxTextChars,
      );
  }

  /** Append nodes to `into`, refusing the one past the limit. */
  add<T>(into: T[], nodes: readonly T[]): void {
    this.#nodes += nodes.length;
    if (this.#nodes > this.limits.maxNodes)
      throw new IngestLimitError(
        'too_many_nodes',
        `The document splits into more than ${this.limits.maxNodes.toLocaleString('en-US')} sections, paragraphs and table rows, the most one document may: split it into smaller documents.`,
        this.limits.maxNodes,
      );
    for (const node of nodes) into.push(node);
  }

  /**
   * Await `work` for no longer than the time left: past it (or once aborted) this throws, and the
   * work is left to finish on its own (the caller cancels it if it can).
   */
  async race<T>(work: Promise<T>): Promise<T> {
    this.check();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      const fail = () => reject(this.#signal?.aborted ? new ParseAborted('The parse was stopped.') : this.#outOfTime());
      timer = setTimeout(fail, this.remainingMs() + 1);
      onAbort = fail;
      this.#signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort) this.#signal?.removeEventListener('abort', onAbort);
    }
  }
}
