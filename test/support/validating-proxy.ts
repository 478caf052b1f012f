import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

/**
 * A validating proxy as an operator would put before the API: built from an OpenAPI document
 * alone (a maintained validator's request and security checks, no knowledge of Neoflow), it
 * forwards to `upstream` only the requests the document allows, and answers the others itself
 * with the validator's status.
 */
export async function startValidatingProxy(document: object, upstream: string) {
  const app = express();
  app.use(express.json());
  app.use(
    OpenApiValidator.middleware({ apiSpec: document as never, validateRequests: true, validateResponses: false }),
  );
  app.use(async (request: Request, response: Response) => {
    const headers = new Headers();
    for (const name of ['authorization', 'x-api-key', 'content-type']) {
      const value = request.get(name);
      if (value) headers.set(name, value);
    }
    const hasBody = !['GET', 'HEAD'].includes(request.method) && request.body !== undefined;
    const answer = await fetch(`${upstream}${request.originalUrl}`, {
      method: request.method,
      headers,
      ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
    });
    response
      .status(answer.status)
      .type('application/json')
      .send(await answer.text());
  });
  app.use((error: { status?: number; message: string }, _request: Request, response: Response, _next: NextFunction) => {
    response.status(error.status ?? 500).json({ proxy: true, message: error.message });
  });
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
