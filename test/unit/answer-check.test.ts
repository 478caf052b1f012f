import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../src/errors.ts';
import { errorHandler } from '../../src/api/error-handler.ts';
import { requestId } from '../../src/api/request-id.ts';
import { areaRouter, bare, route } from '../../src/api/route-kit.ts';
import { createLogger } from '../../src/log.ts';
import { offlineAreas } from '../../src/app/openapi-document.ts';
import { answerCheck, answerDrifts } from '../support/answer-check.ts';

const answer: { value: unknown; failWith?: ErrorCode } = { value: 1 };
let url: string;
let close: () => void;

beforeAll(async () => {
  const router = areaRouter('/v1/probe', [
    route({
      method: 'get',
      path: '/',
      summary: 'Retrieve a probe',
      description: 'A route declared for this test.',
      tag: 'Health',
      errors: ['not_found'],
      responses: { 200: z.strictObject({ id: z.string(), value: z.unknown() }) },
      handle: async () => {
        if (answer.failWith) throw new AppError(answer.failWith, 'As the test asks.');
        return bare({ id: 'p1', value: answer.value });
      },
    }),
  ]);
  const app = new Koa();
  app.silent = true;
  app.use(answerCheck(offlineAreas([router]).areas));
  app.use(requestId);
  app.use(errorHandler(createLogger('answer-check-test', 'error')));
  app.use(router.routes());
  app.use(router.allowedMethods());
  const handle = app.callback();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/probe`;
  close = () => server.close();
});
afterAll(() => {
  // The drifts this file made on purpose: the integration files' afterAll fails on any left.
  answerDrifts.length = 0;
  close();
});

const driftsAfter = async (request: () => Promise<Response>) => {
  answerDrifts.length = 0;
  const response = await request();
  return { status: response.status, drifts: [...answerDrifts] };
};

describe('live answers checked against the OpenAPI document', () => {
  it('lets through a success and an error code the operation declares, with their headers', async () => {
    Object.assign(answer, { value: 1, failWith: undefined });
    expect(await driftsAfter(() => fetch(url))).toEqual({ status: 200, drifts: [] });
    Object.assign(answer, { failWith: 'not_found' });
    expect(await driftsAfter(() => fetch(url))).toEqual({ status: 404, drifts: [] });
    expect(await driftsAfter(() => fetch(url, { method: 'DELETE' }))).toEqual({ status: 405, drifts: [] });
  });

  it('records and fails an error code the operation does not declare, answered by the error handler', async () => {
    Object.assign(answer, { failWith: 'function_not_found' });
    const { status, drifts } = await driftsAfter(() => fetch(url));
    expect(status).toBe(500);
    expect(drifts).toEqual([expect.stringContaining('GET /v1/probe answered 404 unlike the document')]);
  });

  it('records and fails a status the operation does not declare', async () => {
    Object.assign(answer, { failWith: 'conflict' });
    const { drifts } = await driftsAfter(() => fetch(url));
    expect(drifts).toEqual([expect.stringContaining('answered 409, a status the document does not declare')]);
  });

  it('records and fails a success body the document refuses', async () => {
    Object.assign(answer, { value: undefined, failWith: undefined });
    const { drifts } = await driftsAfter(() => fetch(url));
    expect(drifts).toEqual([expect.stringContaining("must have required property 'value'")]);
  });
});
