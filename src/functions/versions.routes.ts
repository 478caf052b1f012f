import type { Router } from '@koa/router';
import { emptyBody } from '../wire/empty-body.ts';
import { dataEnvelope, dataPageEnvelope } from '../wire/response-schemas.ts';
import { areaRouter, data, dataPage, route } from '../api/route-kit.ts';
import type { Resources } from '../resources.ts';
import { functionDetails, functionSchema } from './function.view.ts';
import { getFunction } from './functions.service.ts';
import { versionSchema, versionView } from './version.view.ts';
import { getVersionQuery, listVersionsQuery, versionNumber } from './versions.schemas.ts';
import { getVersion, listVersions, promoteVersion } from './versions.service.ts';

/** A function's immutable versions, and the promote that makes one of them current again. */
export function versionsRoutes(resources: Resources): Router {
  const { em } = resources;
  return areaRouter('/v1/functions', [
    route({
      method: 'get',
      path: '/:id/versions',
      errors: ['function_not_found'],
      summary: 'List versions',
      description:
        "Returns the function's versions, newest first (`limit` defaults to 10): each one's settings, its code's SHA-256 and the key that made it; `current` marks the one that runs.",
      tag: 'Versions',
      scope: 'functions:read',
      query: listVersionsQuery,
      responses: { 200: dataPageEnvelope(versionSchema, 'FunctionVersionPage') },
      handle: async ({ accountId, params, query }) => {
        const fn = await getFunction(em(), accountId, params.id);
        const [versions, total] = await listVersions(em(), fn, query);
        return dataPage(
          versions.map((version) => versionView(version, fn.version)),
          query,
          total,
        );
      },
    }),
    route({
      method: 'get',
      path: '/:id/versions/:version',
      errors: ['function_not_found', 'version_not_found'],
      summary: 'Retrieve a version',
      description:
        'Returns one version of the function; `include_code=true` adds its code. A number the function has no version of answers 404 `version_not_found`.',
      tag: 'Versions',
      scope: 'functions:read',
      query: getVersionQuery,
      responses: { 200: dataEnvelope(versionSchema) },
      handle: async ({ accountId, params, query }) => {
        const fn = await getFunction(em(), accountId, params.id);
        const withCode = query.include_code;
        const version = await getVersion(em(), fn, versionNumber(params.version), withCode);
        return data(versionView(version, fn.version, withCode));
      },
    }),
    route({
      method: 'post',
      path: '/:id/versions/:version/promote',
      errors: ['function_not_found', 'version_not_found'],
      summary: 'Promote a version',
      description:
        'Makes the version current again, its code and settings with it (a rollback), and returns the function. It makes no new version; promoting the current one changes nothing.',
      tag: 'Versions',
      scope: 'functions:write',
      body: emptyBody,
      bodyOptional: true,
      responses: { 200: dataEnvelope(functionSchema) },
      handle: async ({ actor, params }) => {
        const fn = await promoteVersion(em(), actor, params.id, versionNumber(params.version));
        return data(await functionDetails(em(), fn));
      },
    }),
  ]);
}
