import { z } from 'zod';
import { paginationQuery } from '../wire/pagination.ts';
import { executionStatuses } from '../shared/outcomes.ts';

export const invokeBody = z
  .strictObject({
    params: z.record(z.string(), z.unknown(), { error: 'must be an object' }).default({}),
    async: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .meta({ id: 'InvokeRequest' });

const isoDate = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
  .transform((text) => new Date(text));

export const listExecutionsQuery = z.strictObject({
  ...paginationQuery(10),
  status: z.enum(executionStatuses, { error: 'must be completed, failed or running' }).optional(),
  start_date: isoDate.optional(),
  end_date: isoDate.optional(),
});

export type ListExecutions = z.infer<typeof listExecutionsQuery>;

/** A retry runs the version its execution ran, or with `version=latest` the current one. */
export const retryQuery = z.strictObject({
  version: z.enum(['latest'], { error: 'must be latest' }).optional(),
});
