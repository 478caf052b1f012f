import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Router } from '@koa/router';
import type { Context } from 'koa';
import { apiRouter } from './router.ts';

/** What `npm run console:build` writes (console/vite.config.ts); the page and its hashed assets. */
const distDir = fileURLToPath(new URL('../../console/dist/', import.meta.url));

/**
 * Nothing but this origin, and no inline code of any kind: the page is one script and one
 * stylesheet, built files only. Pico CSS draws its icons from data: URLs, hence `img-src data:`.
 */
const consolePolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const types: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** An asset's name as Vite makes it: a name, a hash and an extension, never a path. */
const assetName = /^[\w-]+\.(js|css|svg)$/;

function secure(ctx: Context) {
  ctx.set('Content-Security-Policy', consolePolicy);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/**
 * `GET /console`: the web console (docs/console.md), served by the API itself from its build, so
 * that it needs no second server and fetches nothing at run time. Its pages are routed in the
 * browser (`#/…`), so one document serves them all.
 */
export function consolePage(): Router {
  const router = apiRouter('/console');
  const page = async (ctx: Context) => {
    secure(ctx);
    ctx.set('Cache-Control', 'no-cache');
    try {
      ctx.body = await readFile(`${distDir}index.html`);
      ctx.type = 'text/html; charset=utf-8';
    } catch {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The console is not built: run `npm run console:build` (npm start and npm test build it).\n';
    }
  };
  router.get('/', page);
  router.get('/assets/:name', async (ctx) => {
    secure(ctx);
    const extension = assetName.exec(ctx.params.name!)?.[1];
    if (!extension) return;
    const body = await readFile(`${distDir}assets/${ctx.params.name}`).catch(() => undefined);
    if (!body) return;
    // Named by their content's hash: a changed asset is a new name.
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = types[extension]!;
    ctx.body = body;
  });
  return router;
}
