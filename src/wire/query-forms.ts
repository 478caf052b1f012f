import { z } from 'zod';

/** What a query parameter stands for, as the OpenAPI document shows it. */
interface QueryForm {
  type: 'integer' | 'boolean';
  minimum?: number;
  maximum?: number;
  default?: number | boolean;
}

/**
 * A query string is text: `limit=10` is parsed from the text `10`, yet a client means the integer
 * 10. The document shows each such parameter by what it stands for (src/api/openapi-components.ts),
 * so generated clients take `limit: 10` and `include_code: true`; the server still parses the text.
 */
export const queryForms = z.registry<QueryForm>();

export function shownAs<T extends z.ZodType>(schema: T, form: QueryForm): T {
  queryForms.add(schema, form);
  return schema;
}

/** `true` or `false` in a query string, as a boolean: anything else is a 400. */
export const queryFlag = () =>
  shownAs(
    z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .transform((text) => text === 'true')
      .default(false),
    { type: 'boolean', default: false },
  );
