import type { WarehouseSurface } from '../../schema/warehouse-settings.js';
import type { PlannedPage } from './crm-ingest.js';

/**
 * What a sync needs from a source, whatever the provider: its streams in dependency order, and
 * one page of a stream from the cursor saved after the previous page. Fetching (and embedding) is
 * done when the page is read; `write` runs inside the stage's commit, with the cursor saved beside
 * it, so a page is either wholly in the warehouse with its cursor moved on, or not at all.
 */
export interface FetchedPage extends PlannedPage {
  /** Saved for the stream in the same commit as the write. */
  cursor: unknown;
  /** The stream has no more pages in this sync. */
  done: boolean;
}

export interface SyncSource {
  /** `source` of the warehouse rows it writes (and of its source_freshness rows). */
  source: string;
  streams: readonly string[];
  /** The surface a stream's newest event dates (source freshness), or null. */
  surfaceOf(stream: string): WarehouseSurface | null;
  fetch(stream: string, saved: unknown, now: Date, signal: AbortSignal): Promise<FetchedPage>;
}
