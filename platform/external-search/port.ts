/**
 * External search as a port: the market half of an enrichment brief (web pages about a company, a
 * person, a topic). One adapter speaks to any HTTP search API configured by variables (http.ts);
 * with none configured the port says so instead of pretending (`not_configured`). Tests run a local
 * fake server: nothing here ever calls the internet on its own.
 */
export interface ExternalSearchResult {
  title: string;
  url: string;
  snippet: string;
}

export type ExternalSearchOutcome =
  | { status: 'ok'; provider: string; results: ExternalSearchResult[] }
  | { status: 'not_configured'; provider: null; results: [] }
  | { status: 'failed'; provider: string; detail: string; results: [] };

export interface ExternalSearch {
  /** The configured provider's host, or null when none is configured. */
  readonly provider: string | null;
  search(query: string, options: { limit: number; signal?: AbortSignal }): Promise<ExternalSearchOutcome>;
}

export const unconfiguredExternalSearch: ExternalSearch = {
  provider: null,
  async search() {
    return { status: 'not_configured', provider: null, results: [] };
  },
};
