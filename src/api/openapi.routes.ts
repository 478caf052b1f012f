import { readFileSync } from 'node:fs';
import type { Router } from '@koa/router';
import { z } from 'zod';
import { openApiDocument } from './openapi.ts';
import { areaRouter, bare, route } from './route-kit.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** The document of these routers, at this package's version. */
export const openApiDocumentOf = (areas: Router[]) => openApiDocument(areas, version);

/**
 * `GET /v1/openapi.json`: the document of every area's routes, this one included, built once on
 * first request from the declarations the routers were made with.
 */
export function openApiRoutes(areas: () => Router[]): Router {
  let document: unknown;
  return areaRouter('/v1/openapi.json', [
    route({
      method: 'get',
      path: '/',
      responses: { 200: z.looseObject({ openapi: z.literal('3.1.0') }) },
      handle: async () => bare((document ??= openApiDocumentOf(areas()))),
    }),
  ]);
}
