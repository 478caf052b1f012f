import { Router } from '@koa/router';

/**
 * Every router of the API matches a path in its one spelling. A case-insensitive route would
 * answer `/v1/SECRETS`, which authentication, the area's error shape and the request log, all
 * reading the path as written, would not take for the secrets area.
 */
export const apiRouter = (prefix?: string) =>
  new Router({ ...(prefix === undefined ? {} : { prefix }), sensitive: true });
