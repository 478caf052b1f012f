import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { areaRouter, bare, checkDeclaredAnswers, route } from '../../src/api/route-kit.ts';

const answer = { value: 1 as unknown, status: 200 };
let url: string;
let close: () => void;

beforeAll(async () => {
  const router = areaRouter('/v1/probe', [
    route({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a probe',
      description: 'A route declared for this test.',
      tag: 'Health',
      responses: { 200: z.strictObject({ id: z.string(), value: z.number() }) },
      handle: async ({ params }) => bare({ id: params.id, value: answer.value }, answer.status),
    }),
  ]);
  const app = new Koa();
  app.silent = true;
  app.use(checkDeclaredAnswers);
  app.use(router.routes());
  const handle = app.callback();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/probe/p1`;
  close = () => server.close();
});
afterAll(() => close());

describe('answers checked against their declaration', () => {
  it('lets an answer through that matches its status’s schema', async () => {
    Object.assign(answer, { value: 1, status: 200 });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 'p1', value: 1 });
  });

  it('fails an answer whose body its schema refuses', async () => {
    Object.assign(answer, { value: 'one', status: 200 });
    expect((await fetch(url)).status).toBe(500);
  });

  it('fails an answer with a status the route does not declare', async () => {
    Object.assign(answer, { value: 1, status: 201 });
    expect((await fetch(url)).status).toBe(500);
  });
});
