/**
 * Page-and-total listings (`GET /webhooks`, `/routines`, `/chats`, ...): one page of the rows and the
 * count of everything the page is a page of. Both queries are built by the caller over the same
 * FROM and WHERE (drizzle builders run only when awaited), so the total always describes the
 * listing; they run one after the other on the same connection or transaction.
 */
export interface Page {
  limit: number;
  offset: number;
}

export interface PageOfRows<Row> {
  rows: Row[];
  total: number;
}

/** A listing query not yet limited: drizzle's select builders have this shape. */
interface Pageable<Row> {
  limit(limit: number): { offset(offset: number): PromiseLike<Row[]> };
}

export async function pageWithTotal<Row>(
  listing: Pageable<Row>,
  counting: PromiseLike<readonly { n: number }[]>,
  page: Page,
): Promise<PageOfRows<Row>> {
  const rows = await listing.limit(page.limit).offset(page.offset);
  const [counted] = await counting;
  return { rows, total: Number(counted?.n ?? 0) };
}
