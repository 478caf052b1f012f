import { z } from 'zod';
import { paginationQuery } from '../wire/pagination.ts';
import { queryFlag } from '../wire/query-forms.ts';

export const listVersionsQuery = z.strictObject(paginationQuery(10));

export const getVersionQuery = z.strictObject({
  include_code: queryFlag(),
});

/** A version number in a path; anything but 1, 2, … names no version (0 matches none). */
export const versionNumber = (text: string) => (/^[1-9]\d{0,8}$/.test(text) ? Number(text) : 0);

export type ListVersions = z.infer<typeof listVersionsQuery>;
