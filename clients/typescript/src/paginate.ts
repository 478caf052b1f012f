import type { Pagination } from './generated/types.gen.ts';

/** The items of a page: its one array-valued field (`data`, `secrets`, `automations`, `runs`…). */
export type ItemOf<Page> = {
  [Field in keyof Page]-?: NonNullable<Page[Field]> extends ReadonlyArray<infer Item> ? Item : never;
}[keyof Page];

/** A generated list operation: it takes `{client, path?, query?}` and answers a page. */
type ListOperation = (options: never) => Promise<{ data?: unknown }>;

/** The page a list operation answers. */
export type PageOf<List extends ListOperation> = NonNullable<Awaited<ReturnType<List>>['data']>;

/**
 * Every item of a list, page after page: calls `list` (a generated list operation) with the
 * options given, then again from the next offset while `pagination.hasMore`. The page size is the
 * options' `query.limit` (the API's default otherwise). Items created or deleted meanwhile may
 * shift a page: the API's lists are offset-based.
 */
export async function* paginate<List extends ListOperation>(
  list: List,
  options: Parameters<List>[0],
): AsyncGenerator<ItemOf<PageOf<List>>, void, undefined> {
  const given = options as { query?: { offset?: number } };
  const send = list as unknown as (options: object) => Promise<{ data: { pagination: Pagination } }>;
  let offset = given.query?.offset ?? 0;
  for (;;) {
    const { data: page } = await send({ ...given, query: { ...given.query, offset } });
    const items = itemsOf(page) as ItemOf<PageOf<List>>[];
    yield* items;
    if (!page.pagination.hasMore || items.length === 0) return;
    offset += items.length;
  }
}

function itemsOf(page: object): unknown[] {
  const arrays = Object.values(page).filter((value) => Array.isArray(value));
  if (arrays.length !== 1) throw new Error(`a page holds ${arrays.length} lists of items, not one`);
  return arrays[0] as unknown[];
}
