import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Router } from '@koa/router';
import { apiRouter } from './router.ts';

/** Swagger UI's own build, from the npm registry, served by Neoflow itself: no CDN. */
const assetsDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** A map, not an object: a name from the URL such as `constructor` or `__proto__` is no asset. */
const assets = new Map([
  ['swagger-ui.css', { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' }],
]);

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Neoflow API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="api"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/start.js"></script>
  </body>
</html>
`;

/** Kept out of the page so that the page's policy allows no inline script at all. */
const start = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#api', deepLinking: true });\n`;

/** Nothing but this origin; Swagger UI sets inline styles and draws icons from data: URLs. */
const policy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** `GET /docs`: the API reference, rendered from `/v1/openapi.json` in the browser. */
export function docsPage(): Router {
  const router = apiRouter('/docs');
  router.get('/', (ctx) => {
    ctx.set('Content-Security-Policy', policy);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  router.get('/start.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = start;
  });
  router.get('/assets/:name', async (ctx) => {
    const asset = assets.get(ctx.params.name!);
    if (!asset) return;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = asset.type;
    ctx.body = await readFile(join(assetsDir, asset.file));
  });
  return router;
}
