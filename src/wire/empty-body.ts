import { z } from 'zod';

/**
 * The body of a route that takes none (docs/api.md, "no body"): nothing, or `{}` as many clients
 * send; declared so that a generated client may send either, and a field is refused by name.
 */
export const emptyBody = z.strictObject({});
