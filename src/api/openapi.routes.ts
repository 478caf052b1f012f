import { readFileSync } from 'node:fs';
import type { Router } from '@koa/router';
import { z } from 'zod';
import { openApiDocument } from './openapi.ts';
import { serverOf } from './openapi-info.ts';
import { areaRouter, bare, route } from './route-kit.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** The document of these routers, at this package's version, naming `server` as the API's. */
export const openApiDocumentOf = (areas: Router[], server: { url: string }) => openApiDocument(areas, version, server);

/**
 * `GET /v1/openapi.json`: the document of every area's routes, this one included, built once on
 * first request from the declarations the routers were made with; only its server is the
 * request's own, so that a client generated from it calls the origin it was fetched from.
 */
export function openApiRoutes(areas: () => Router[]): Router {
  let document: ReturnType<typeof openApiDocumentOf> | undefined;
  return areaRouter('/v1/openapi.json', [
    route({
      method: 'get',
      path: '/',
      summary: 'Retrieve the OpenAPI document',
      description:
        'This document, OpenAPI 3.1, whose server is the origin it was fetched from: generate a client from it, or ' +
        'read it rendered at `GET /docs`.',
      tag: 'OpenAPI',
      responses: { 200: z.looseObject({ openapi: z.literal('3.1.0') }) },
      handle: async ({ ctx }) => {
        document ??= openApiDocumentOf(areas(), { url: '/' });
        return bare({ ...document, servers: [serverOf(ctx.protocol, ctx.host)] });
      },
    }),
  ]);
}
