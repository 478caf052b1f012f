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

it("offers the API key (as a bearer token or X-API-Key) and a hook's own credentials in the Authorize dialog, never the operator's; groups operations by tag in order, and shows their summaries", async () => {
  const page = await browser.newPage();
  await page.goto(`${api.url}/docs`);
  const tags = page.locator('.opblock-tag[data-tag]');
  await tags.first().waitFor({ timeout: 30_000 });
  expect(await Promise.all((await tags.all()).map((tag) => tag.getAttribute('data-tag')))).toEqual([
    'Functions',
    'Executions',
    'Versions',
    'Storage',
    'Automations',
    'Secrets',
    'Signers',
    'Account',
    'Keys',
    'Console',
    'Audit',
    'Health',
    'Receipts',
    'OpenAPI',
    'Codec',
  ]);
  // Each operation under its tag, named by its summary beside its path.
  const invoke = page.locator('#operations-tag-Executions').locator('xpath=..').locator('.opblock-post', {
    hasText: '/v1/functions/{id}/invoke',
  });
  await expect.poll(() => invoke.locator('.opblock-summary-description').textContent()).toBe('Invoke a function');
  await page.locator('.auth-wrapper .authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  await dialog.waitFor({ timeout: 30_000 });
  const schemes = dialog.locator('.auth-container');
  // The document declares the key's two headers as alternatives, so a validating proxy takes both;
  // an inbound webhook's route takes its token (in either header) or its signature instead.
  expect(await schemes.count()).toBe(5);
  expect(await schemes.nth(0).textContent()).toContain('apiKey');
  expect(await schemes.nth(1).textContent()).toContain('X-API-Key');
  expect(await schemes.nth(2).textContent()).toContain('hookToken');
  expect(await schemes.nth(3).textContent()).toContain('X-Neoflow-Token');
  expect(await schemes.nth(4).textContent()).toContain('X-Signature');
  expect(await dialog.textContent()).not.toMatch(/operator/i);
  await page.close();
});

it("shows a create's request as the document's example, one the API accepts, not the schema's placeholders", async () => {
  const page = await browser.newPage();
  await page.goto(`${api.url}/docs`);
  const create = page.locator('#operations-Functions-postFunctions');
  await create.waitFor({ timeout: 30_000 });
  await create.locator('.opblock-summary').click();
  const body = create.locator('.opblock-section-request-body');
  await expect.poll(() => body.textContent()).toContain('"name": "neo-price"');
  expect(await body.textContent()).not.toContain('"code": "string"');
  await page.close();
});

it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
  'answers 404 to an unauthenticated GET /docs/assets/%s, a name only an object prototype knows',
  async (name) => {
    const answer = await fetch(`${api.url}/docs/assets/${name}`);
    expect(answer.status).toBe(404);
  },
);
