import { z } from 'zod';

/**
 * Where a CRM stream's incremental read stands, for HubSpot and Salesforce alike: records modified
 * at or after `since`, at the provider's continuation `token` within that query, and the newest
 * modification this read has seen (`high`). A read that ends leaves the next sync to start from
 * `high`. The recency window (`crm_recency`) is pushed down by moving a query's `since` up to the
 * cutoff, but never while a query is being paged: its token belongs to the query it started with.
 *
 * Each provider writes instants its own way (HubSpot: epoch ms as a string; Salesforce: the ISO
 * timestamp as its API wrote it) and names the token its own way in the saved cursor (`after`,
 * `next`), so cursors saved before this helper existed read the same.
 */
export interface CrmReadPosition {
  since: string | null;
  token: string | null;
  high: string | null;
}

export interface CrmCursorFormat {
  /** The saved cursor's key for the continuation token. */
  tokenKey: 'after' | 'next';
  /** Epoch ms of an instant as the provider writes it (NaN when unreadable). */
  parse(instant: string): number;
  /** An instant as the provider writes it. */
  write(at: Date): string;
}

/** A saved cursor, its token read from the provider's key. */
const Saved = z.object({
  since: z.string().nullable(),
  token: z.string().nullable(),
  high: z.string().nullable().default(null),
});

export function crmCursor(format: CrmCursorFormat) {
  const nothingRead: CrmReadPosition = { since: null, token: null, high: null };
  return {
    /** Where this page's query starts: the saved position, its `since` moved up to the cutoff when a new query begins. */
    start(saved: unknown, cutoff: Date | null): CrmReadPosition {
      const stored: Record<string, unknown> = typeof saved === 'object' && saved !== null ? { ...saved } : {};
      const prior = Saved.safeParse({ since: stored.since, token: stored[format.tokenKey], high: stored.high });
      const at: CrmReadPosition = prior.success ? prior.data : nothingRead;
      const pushDown = cutoff && !at.token && (!at.since || format.parse(at.since) < cutoff.getTime());
      return { ...at, since: pushDown ? format.write(cutoff) : at.since };
    },
    /**
     * The cursor to save after a page: the query's next page (`next`, the provider's; a new `since`
     * when it restarts the query), or, when the stream is read to its end, the newest modification
     * seen as the next sync's `since`. `modified`: the page's modification instants as the provider writes them.
     */
    after(
      start: CrmReadPosition,
      next: { since: string | null; token: string | null } | null,
      modified: readonly string[],
    ): Record<string, string | null> {
      const high = modified.reduce<string | null>(
        (h, m) => (!h || format.parse(m) > format.parse(h) ? m : h),
        start.high,
      );
      return next
        ? { since: next.since, [format.tokenKey]: next.token, high }
        : { since: high ?? start.since, [format.tokenKey]: null, high: null };
    },
  };
}
