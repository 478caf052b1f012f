import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { automationsClient, gasTransferAction, type Loose } from '../support/automations.ts';
import { launchChromium } from '../support/browser.ts';
import { createKeyWithCli } from '../support/cli.ts';
import { uniqueAccountName } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { endedRun, firedRun } from '../support/sent-transaction.ts';

/**
 * The console (issue 48) in Debian's Chromium against the stack `neoflow up` brings up: what
 * account A's key shows and does, what a viewer's cannot, and the page's own safety (cookie,
 * policy, cross-site changes), accessibility (axe-core, A and AA) and narrow screens.
 */
const { apiUrl, env } = inject('stack');
const consoleUrl = `${apiUrl}/console`;
const screenshots = new URL('../../docs/console/', import.meta.url);
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser;
let keyA: string;
let viewerKey: string;
let a: ReturnType<typeof automationsClient>;
const ids: { failing: string; failedRun: string; sending: string; sentRun: Loose; bName: string } = {} as never;
/** A secret's value and a channel's credential of A: neither may reach the browser. */
const canary = `console-canary-${randomBytes(12).toString('hex')}`;

/** GAS fractions as the console writes them: 8 decimals. */
const gas = (fractions: string) =>
  `${(BigInt(fractions) / 100_000_000n).toString()}.${(BigInt(fractions) % 100_000_000n).toString().padStart(8, '0')} GAS`;

beforeAll(async () => {
  if (!existsSync(new URL('../../console/dist/index.html', import.meta.url))) {
    throw new Error('The console is not built: run `npm run console:build` (npm test builds it).');
  }
  keyA = await createKeyWithCli(env, uniqueAccountName('console-a'));
  const keyB = await createKeyWithCli(env, uniqueAccountName('console-b'));
  a = automationsClient(apiUrl, keyA);
  const b = automationsClient(apiUrl, keyB);
  const viewer = await a.call('POST', '/keys', { name: 'console viewer', role: 'viewer' });
  expect(viewer.status, JSON.stringify(viewer.body)).toBe(201);
  viewerKey = viewer.body.key as string;

  const yearly = { type: 'schedule', cron: '@yearly' };
  const throwing = await a.deploy(
    "module.exports = async () => { throw new RangeError('the price feed is 600 s old'); };",
  );
  const secret = await a.call('POST', '/secrets', { name: 'CONSOLE_CANARY', value: canary });
  expect(secret.status, JSON.stringify(secret.body)).toBe(201);
  ids.failing = await a.create({
    name: 'A: rebalance when stale',
    status: 'inactive',
    trigger: yearly,
    action: { type: 'function', functionId: throwing },
    // Told only on a recovery, which never comes: its URL is a credential the console must not see.
    notify: [{ on: ['recovery'], channel: { type: 'slack', url: `https://hooks.example.com/services/T0/${canary}` } }],
  });
  const { signer } = (await a.call('GET', '/account')).body as { signer: { address: string } };
  ids.sending = await a.create({
    name: 'A: pay the keeper',
    status: 'inactive',
    trigger: yearly,
    action: gasTransferAction(signer.address, '0x0000000000000000000000000000000000000001', '12345'),
  });
  ids.bName = `B: never shown to A ${Date.now()}`;
  await b.create({
    name: ids.bName,
    status: 'inactive',
    trigger: yearly,
    action: { type: 'function', functionId: await b.deploy('module.exports = async () => 1;') },
  });
  const [failed, sent] = await Promise.all([firedRun(a.call, ids.failing), firedRun(a.call, ids.sending)]);
  expect(failed.status).toBe('failure');
  expect(sent).toMatchObject({ status: 'success', vmState: 'HALT' });
  ids.failedRun = failed.id as string;
  ids.sentRun = sent;
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
});

/** A browser context logged in with `key` through the login form, in a zone that is not UTC. */
async function loggedIn(key: string, width = 1280): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, timezoneId: 'Asia/Tokyo' });
  const page = await context.newPage();
  await page.goto(consoleUrl);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Automations' }).waitFor();
  return { context, page };
}

const pages = () => ({
  automations: `${consoleUrl}#/`,
  automation: `${consoleUrl}#/automations/${ids.failing}`,
  run: `${consoleUrl}#/automations/${ids.sending}/runs/${ids.sentRun.id as string}`,
  failedRun: `${consoleUrl}#/automations/${ids.failing}/runs/${ids.failedRun}`,
  functions: `${consoleUrl}#/functions`,
  signers: `${consoleUrl}#/signers`,
  approvals: `${consoleUrl}#/approvals`,
});

/** Opens a page as a new document and answers its response's policy headers. */
async function open(page: Page, url: string) {
  // From another document: a URL that differs in its fragment alone would not load a new one.
  await page.goto('about:blank');
  const response = await page.goto(url);
  await page.waitForSelector('main h1, main p');
  // Not waitForFunction: it evaluates a string in the page, which the page's policy forbids.
  await page.waitForSelector('[aria-busy="true"]', { state: 'detached' });
  return response!.headers();
}

describe('the console, logged in with account A', () => {
  let context: BrowserContext;
  let page: Page;
  const answers: string[] = [];
  beforeAll(async () => {
    ({ context, page } = await loggedIn(keyA));
    page.on('response', (response) => {
      void response
        .text()
        .then((text) => answers.push(text))
        .catch(() => undefined);
    });
  });
  afterAll(() => context.close());

  it("lists A's automations with their trigger in words, and none of B's", async () => {
    await open(page, pages().automations);
    const table = page.getByRole('region', { name: 'Automations' });
    await table.getByText('A: rebalance when stale').waitFor();
    await expect(table.getByText('A: pay the keeper').count()).resolves.toBe(1);
    await expect(page.getByText(ids.bName).count()).resolves.toBe(0);
    await expect(table.getByText('every year (@yearly)').count()).resolves.toBe(2);
    await page.screenshot({ path: new URL('automations.png', screenshots).pathname, fullPage: true });
  });

  it("shows a throwing function's error name and message on its run's page", async () => {
    await open(page, pages().failedRun);
    await expect(page.locator('.error-name').textContent()).resolves.toBe('RangeError');
    await expect(page.locator('.error-message').textContent()).resolves.toBe('the price feed is 600 s old');
  });

  it('retries from the run page: the new run appears on the automation page without a reload, with retryOf', async () => {
    await open(page, pages().failedRun);
    await page.evaluate('window.sameDocument = true');
    await page.getByRole('button', { name: 'Retry' }).click();
    const retried = page.getByText(`(retry of ${ids.failedRun})`);
    await retried.waitFor({ timeout: 30_000 });
    expect(await page.evaluate<boolean>('window.sameDocument === true')).toBe(true);
    const runs = await a.runs(ids.failing);
    expect(runs[0]).toMatchObject({ retryOf: ids.failedRun });
    await endedRun(a.call, ids.failing, runs[0]!.id as string);
    await page.locator('.status-running').waitFor({ state: 'detached', timeout: 30_000 });
    await page.screenshot({ path: new URL('automation.png', screenshots).pathname, fullPage: true });
  });

  it("shows a contract run's txHash and fees equal to the chain's", async () => {
    const txHash = ids.sentRun.txHash as string;
    const onChain = await createNeoRpc(`http://127.0.0.1:${env.NEOFLOW_NEO_RPC_PORT}`).getTransaction(txHash);
    await open(page, pages().run);
    await expect(page.locator('.tx-hash [title]').first().getAttribute('title')).resolves.toBe(txHash);
    await expect(page.locator('.system-fee').textContent()).resolves.toBe(gas(onChain.sysfee));
    await expect(page.locator('.network-fee').textContent()).resolves.toBe(gas(onChain.netfee));
    // Times in the browser's zone (Tokyo here), the UTC value on hover.
    const started = page.locator('time').first();
    expect(await started.getAttribute('title')).toMatch(/ UTC$/);
    expect(await started.textContent()).toMatch(/GMT\+9|JST/);
    await page.screenshot({ path: new URL('run.png', screenshots).pathname, fullPage: true });
  });

  it('sets the session in an HttpOnly, SameSite=Strict cookie for the whole origin; no answer holds the key, a secret or a credential', async () => {
    const cookies = await context.cookies(apiUrl);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'neoflow_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookies[0]!.value).not.toBe(keyA);
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((text) => text.includes(keyA) || text.includes(canary))).toEqual([]);
    const stored = await page.evaluate<unknown[]>('[localStorage.length, sessionStorage.length, document.cookie]');
    expect(stored).toEqual([0, 0, '']);
  });

  it('answers every page with the policy, and axe-core finds no A or AA violation on the main pages', async () => {
    const source = await axeSource;
    for (const [name, url] of Object.entries(pages())) {
      const headers = await open(page, url);
      expect(headers['content-security-policy'], name).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
      expect(headers['content-security-policy'], name).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(headers['x-frame-options'], name).toBe('DENY');
      if (!['automations', 'automation', 'run', 'failedRun', 'approvals'].includes(name)) continue;
      // Evaluated by the browser's debugger, which the page's policy does not govern.
      await page.evaluate(source);
      const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
      const violations = await page.evaluate<string[]>(
        `axe.run({ runOnly: { type: 'tag', values: ${JSON.stringify(tags)} } })
          .then((result) => result.violations.map((violation) => violation.id + ' (' + violation.nodes.length + ')'))`,
      );
      expect(violations, name).toEqual([]);
    }
  });

  it('scrolls no page sideways at 375 px', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [name, url] of Object.entries(pages())) {
      await open(page, url);
      const [scrollWidth, clientWidth] = await page.evaluate<[number, number]>(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      );
      expect(scrollWidth, name).toBeLessThanOrEqual(clientWidth);
    }
  });

  it('refuses a cross-site POST: a form on another site fires nothing', async () => {
    const before = (await a.runs(ids.sending)).length;
    const other = await context.newPage();
    // Another site (localhost is not 127.0.0.1's site): its form posts to the API with the browser's cookies.
    await other.goto(`${apiUrl.replace('127.0.0.1', 'localhost')}/v1/health`);
    const status = await other.evaluate(async (target) => {
      const response = await fetch(target, { method: 'POST', credentials: 'include', mode: 'no-cors' });
      return response.type;
    }, `${apiUrl}/v1/automations/${ids.sending}/trigger`);
    expect(status).toBe('opaque');
    await other.close();
    // The same forgery with the cookie attached by hand (a browser ignoring SameSite) lacks the console's header.
    const [cookie] = await context.cookies(apiUrl);
    const forged = await fetch(`${apiUrl}/v1/automations/${ids.sending}/trigger`, {
      method: 'POST',
      headers: { Cookie: `neoflow_session=${cookie!.value}`, Origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(403);
    expect((await a.runs(ids.sending)).length).toBe(before);
  });
});

describe('the console, logged in with a viewer key of A', () => {
  it('shows no Retry button, and the API refuses a forged retry from that session with 403', async () => {
    const { context, page } = await loggedIn(viewerKey);
    try {
      await open(page, pages().failedRun);
      await page.locator('.error-name').waitFor();
      await expect(page.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Fire now' }).count()).resolves.toBe(0);
      const status = await page.evaluate(
        async (path) =>
          (await fetch(path, { method: 'POST', headers: { 'X-Neoflow-Console': '1' }, credentials: 'same-origin' }))
            .status,
        `/v1/automations/${ids.failing}/runs/${ids.failedRun}/retry`,
      );
      expect(status).toBe(403);
    } finally {
      await context.close();
    }
  });
});

describe('the console, logged in with an approver key of A', () => {
  it('approves a pending run from the approvals page; the run then shows its transaction, and the audit log the approval', async () => {
    const { signer } = (await a.call('GET', '/account')).body as { signer: { address: string } };
    const paying = await a.create({
      name: 'A: pay once approved',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: {
        ...gasTransferAction(signer.address, '0x0000000000000000000000000000000000000002', '4321'),
        approval: { required: 1, timeout: '1h' },
      },
    });
    const fired = await a.call('POST', `/automations/${paying}/trigger`);
    expect(fired.status, JSON.stringify(fired.body)).toBe(202);
    const runId = fired.body.run.id as string;
    const waiting = await until(
      async () => (await a.call('GET', `/automations/${paying}/runs/${runId}`)).body,
      (run) => run.approval?.status === 'pending' || run.status !== 'running',
      60_000,
    );
    expect(waiting.approval?.status).toBe('pending');

    const approver = await a.call('POST', '/keys', { name: 'console approver', role: 'approver' });
    expect(approver.status, JSON.stringify(approver.body)).toBe(201);
    const { context, page } = await loggedIn(approver.body.key as string);
    try {
      await open(page, pages().approvals);
      const row = page.getByRole('row').filter({ hasText: runId });
      await row.waitFor();
      // The page with a run waiting, its buttons included.
      await page.evaluate(await axeSource);
      const violations = await page.evaluate<string[]>(
        `axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } })
          .then((result) => result.violations.map((violation) => violation.id))`,
      );
      expect(violations).toEqual([]);
      await row.getByRole('button', { name: 'Approve' }).click();
      await row.waitFor({ state: 'detached' });

      const sent = await endedRun(a.call, paying, runId);
      expect(sent).toMatchObject({ status: 'success', vmState: 'HALT', txHash: expect.stringMatching(/^0x/) });
      await open(page, `${consoleUrl}#/automations/${paying}/runs/${runId}`);
      await expect(page.locator('.tx-hash [title]').first().getAttribute('title')).resolves.toBe(sent.txHash);
      await expect(page.getByRole('article', { name: 'Approval' }).textContent()).resolves.toContain('approved');
    } finally {
      await context.close();
    }

    const owner = await loggedIn(keyA);
    try {
      await open(owner.page, `${consoleUrl}#/audit`);
      const approval = owner.page.getByRole('row').filter({ hasText: 'run.approve' }).filter({ hasText: runId });
      await expect(approval.textContent()).resolves.toContain('console approver · approver');
    } finally {
      await owner.context.close();
    }
  });
});
