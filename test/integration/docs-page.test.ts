import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';

let api: TestApi;
let browser: Browser;
beforeAll(async () => {
  api = await startTestApi();
  browser = await launchChromium();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await api.close();
});

it('renders the API reference at /docs in a real browser, from this server alone, with the invoke operation', async () => {
  const page = await browser.newPage();
  const origin = new URL(api.url).origin;
  const elsewhere: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) elsewhere.push(request.url());
  });
  const answer = await page.goto(`${api.url}/docs`);
  expect(answer?.status()).toBe(200);
  expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
  const invoke = page.locator('.opblock-post', { hasText: '/v1/functions/{id}/invoke' });
  await invoke.first().waitFor({ timeout: 30_000 });
  await invoke.first().click();
  await expect.poll(() => page.locator('.opblock-post.is-open').textContent()).toContain('Idempotency-Key');
  expect(elsewhere).toEqual([]);
  await page.close();
});

it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
  'answers 404 to an unauthenticated GET /docs/assets/%s, a name only an object prototype knows',
  async (name) => {
    const answer = await fetch(`${api.url}/docs/assets/${name}`);
    expect(answer.status).toBe(404);
  },
);
