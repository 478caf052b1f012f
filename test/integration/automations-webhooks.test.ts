import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { automationsClient, gasTransferAction, settled, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';
import { neoflow } from '../support/cli.ts';
import { hooksReceived, httpRequests } from '../../src/metrics/metrics.ts';
import { newHookPath } from '../../src/automations/hooks/hook-credentials.ts';

// Inbound webhooks (issue 49): an outside system starts a run through the automation's own URL,
// with its token or an HMAC of the body, and no API key. One hook is limited to 25 requests an hour.
const hookRate = 25;
const running = apiWithWorkerForThisFile({ hostWorker: false, env: { NEOFLOW_HOOK_RATE: `${hookRate}/3600s` } });
const neo = () => createNeoRpc(inject('neoRpcUrl'));

let client: ReturnType<typeof automationsClient>;
let signerAddress: string;
beforeAll(async () => {
  const issued = await issueKey(running.api.database.orm);
  client = automationsClient(running.api.url, issued.key);
  signerAddress = issued.signer.address;
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signerAddress, 10n ** 9n);
});

const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);

/** POSTs `body` (bytes as given) to a hook URL with `headers`; no API key. */
async function deliver(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(`${running.api.url}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Loose };
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function webhookAutomation(action: Loose, trigger: Loose = { type: 'webhook', auth: { type: 'token' } }) {
  const created = await client.call('POST', '/automations', { name: 'hook', trigger, action });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
const noop = async () => ({ type: 'function', functionId: await client.deploy('module.exports = async () => 1;') });

const endedRuns = (id: string, count: number) =>
  until(
    () => client.runs(id),
    (runs) => runs.length >= count && settled(runs),
    60_000,
  );

describe('a token webhook', () => {
  it("starts a run whose function receives the body as params.trigger, answering 202 with the run's id", async () => {
    const functionId = await client.deploy(
      'module.exports = async ({ params }) => ({ amount: params.trigger.body.amount, type: params.trigger.type, agent: params.trigger.headers["user-agent"] });',
    );
    const created = await webhookAutomation({ type: 'function', functionId });
    expect(created.trigger).toEqual({
      type: 'webhook',
      auth: { type: 'token' },
      url: expect.stringMatching(/^\/v1\/hooks\/hk_[A-Za-z0-9_-]{32}$/),
      token: expect.stringMatching(/^nfh_/),
    });
    // The token is answered once: GET shows the URL alone.
    const shown = await client.call('GET', `/automations/${created.id}`);
    expect(shown.body.trigger).toEqual({ type: 'webhook', auth: { type: 'token' }, url: created.trigger.url });

    const answer = await deliver(created.trigger.url, '{"amount": 7}', {
      ...bearer(created.trigger.token),
      'user-agent': 'ci-job/1',
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      run: { id: expect.stringMatching(/^run_/), status: 'running', startedAt: expect.any(String) },
    });
    const [run] = await endedRuns(created.id, 1);
    expect(run, JSON.stringify(run?.error)).toMatchObject({
      id: answer.body.run.id,
      status: 'success',
      trigger: { type: 'webhook', body: { amount: 7 }, headers: { 'user-agent': 'ci-job/1' } },
    });
    expect(run!.trigger.headers).not.toHaveProperty('authorization');
    const execution = await client.call('GET', `/functions/${functionId}/executions/${run!.executionId}`);
    expect(execution.body.data.result).toEqual({ amount: 7, type: 'webhook', agent: 'ci-job/1' });
  }, 90_000);

  it('sends a contract transfer of {{trigger.body.amount}}', async () => {
    const recipient = freshAddress();
    const created = await webhookAutomation(gasTransferAction(signerAddress, recipient, '{{trigger.body.amount}}'));
    const answer = await deliver(created.trigger.url, '{"amount": 7}', { 'x-neoflow-token': created.trigger.token });
    expect(answer.status).toBe(202);
    const [run] = await endedRuns(created.id, 1);
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT' });
    expect(await gasOf(recipient)).toBe(7n);
  }, 90_000);

  it('sends a contract transfer of a header it receives, {{trigger.headers["x-amount"]}}; one it does not is refused', async () => {
    const recipient = freshAddress();
    const action = gasTransferAction(signerAddress, recipient, '{{trigger.headers["X-Amount"]}}');
    const unlisted = await client.call('POST', '/automations', {
      name: 'hook',
      trigger: { type: 'webhook', auth: { type: 'token' } },
      action,
    });
    expect(unlisted.status).toBe(400);
    expect(unlisted.body.error.details).toEqual({ field: 'action.args.2.value' });
    const created = await webhookAutomation(action, {
      type: 'webhook',
      auth: { type: 'token' },
      headers: ['X-Amount'],
    });
    const answer = await deliver(created.trigger.url, '{}', { ...bearer(created.trigger.token), 'x-amount': '3' });
    expect(answer.status).toBe(202);
    const [run] = await endedRuns(created.id, 1);
    expect(run).toMatchObject({ status: 'success', vmState: 'HALT' });
    expect(await gasOf(recipient)).toBe(3n);
  }, 90_000);

  it('answers the same 404 to an unknown path, no token and a wrong token, recording nothing', async () => {
    const created = await webhookAutomation(await noop());
    const counted = async () =>
      (await hooksReceived.get()).values.find((v) => v.labels.outcome === 'not_found')?.value ?? 0;
    const before = await counted();
    const refusals = await Promise.all([
      deliver('/v1/hooks/hk_unknownunknownunknownunknown12', '{}', bearer(created.trigger.token)),
      deliver(created.trigger.url, '{}'),
      deliver(created.trigger.url, '{}', bearer(`${created.trigger.token}x`)),
      deliver(created.trigger.url, '{}', { 'x-neoflow-token': 'nfh_wrong' }),
    ]);
    for (const refusal of refusals) {
      expect(refusal.status).toBe(404);
      expect(refusal.body).toEqual(refusals[0].body);
    }
    expect(await client.runs(created.id)).toEqual([]);
    // The API runs in this process: its counter of refused hooks is this one.
    expect((await counted()) - before).toBe(4);
  });

  it("answers a path of no hook's shape with the same 404 before reading its body (no 413 for an oversized one)", async () => {
    const known = await deliver('/v1/hooks/hk_unknownunknownunknownunknown12', '{}');
    const counted = async () =>
      (await hooksReceived.get()).values.find((v) => v.labels.outcome === 'not_found')?.value ?? 0;
    const before = await counted();
    const oversized = await deliver('/v1/hooks/made-up', JSON.stringify({ pad: 'x'.repeat(512 * 1024) }));
    expect(oversized.status).toBe(404);
    expect(oversized.body).toEqual(known.body);
    expect((await counted()) - before).toBe(1);
  });

  it('records nothing while paused (409), and refuses a rotated token at once', async () => {
    const created = await webhookAutomation(await noop());
    const { token, url } = created.trigger;
    await client.call('PATCH', `/automations/${created.id}`, { status: 'inactive' });
    const paused = await deliver(url, '{}', bearer(token));
    expect(paused.status).toBe(409);
    expect(await client.runs(created.id)).toEqual([]);

    await client.call('PATCH', `/automations/${created.id}`, { status: 'active' });
    const rotated = await client.call('POST', `/automations/${created.id}/hook-token`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ url, token: expect.stringMatching(/^nfh_/) });
    expect((await deliver(url, '{}', bearer(token))).status).toBe(404);
    expect((await deliver(url, '{}', bearer(rotated.body.token))).status).toBe(202);
    expect(await client.runs(created.id)).toHaveLength(1);
  });

  it('refuses a body over 256 KiB before reading it whole, and one that is not JSON', async () => {
    const created = await webhookAutomation(await noop());
    const auth = bearer(created.trigger.token);
    const large = await deliver(created.trigger.url, JSON.stringify({ pad: 'x'.repeat(256 * 1024) }), auth);
    expect(large.status).toBe(413);
    expect((await deliver(created.trigger.url, '{"amount": ', auth)).status).toBe(400);
    expect(await client.runs(created.id)).toEqual([]);
  });
});

describe('an HMAC webhook', () => {
  const secretValue = 'hook-signing-key-not-shown';
  const sign = (content: string) => createHmac('sha256', secretValue).update(content).digest('hex');

  it('accepts a body signed with the named secret, refuses one byte changed or a stale timestamp', async () => {
    expect((await client.call('POST', '/secrets', { name: 'HOOK_KEY', value: secretValue })).status).toBe(201);
    const trigger = {
      type: 'webhook',
      auth: { type: 'hmac', secret: 'HOOK_KEY', timestampHeader: 'X-Timestamp', toleranceSeconds: 60 },
    };
    const created = await webhookAutomation(await noop(), trigger);
    expect(created.trigger).not.toHaveProperty('token');
    const body = '{"amount": 7}';
    const signed = (content: string, at: number) => ({
      'x-timestamp': String(at),
      'x-signature': `sha256=${sign(`${at}.${content}`)}`,
    });
    const now = Math.floor(Date.now() / 1000);

    const accepted = await deliver(created.trigger.url, body, signed(body, now));
    expect(accepted.status).toBe(202);
    const flipped = await deliver(created.trigger.url, '{"amount": 8}', signed(body, now));
    expect(flipped.status).toBe(404);
    const stale = await deliver(created.trigger.url, body, signed(body, now - 120));
    expect(stale.status).toBe(404);
    expect(await client.runs(created.id)).toHaveLength(1);
    for (const answer of [created, accepted.body, flipped.body, stale.body]) {
      expect(JSON.stringify(answer)).not.toContain(secretValue);
    }
  });
});

describe('repeats and rates', () => {
  it('makes one run of 20 concurrent deliveries with the same Idempotency-Key, or the same dedup field', async () => {
    const created = await webhookAutomation(await noop(), {
      type: 'webhook',
      auth: { type: 'token' },
      dedupField: 'event.id',
    });
    const keyed = { ...bearer(created.trigger.token), 'idempotency-key': 'delivery-1' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(created.trigger.url, '{}', keyed)));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 202));
    expect(new Set(answers.map((answer) => answer.body.run.id as string)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);

    const event = JSON.stringify({ event: { id: 'evt_1' } });
    const byField = await Promise.all(
      [1, 2].map(() => deliver(created.trigger.url, event, bearer(created.trigger.token))),
    );
    expect(byField[0]!.body.run.id).toBe(byField[1]!.body.run.id);
    expect(await client.runs(created.id)).toHaveLength(2);
  });

  it("refuses a flood far beyond a hook's rate with 429 and Retry-After, records exactly the runs its rate allows, and serves another account meanwhile", async () => {
    const created = await webhookAutomation(await noop());
    const other = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
    const flood = 10 * hookRate;
    let flooding = true;
    const burst = Promise.all(
      Array.from({ length: flood }, () => deliver(created.trigger.url, '{}', bearer(created.trigger.token))),
    ).finally(() => (flooding = false));
    // The other account calls back to back for as long as the flood lasts (once at least).
    const served: number[] = [];
    do served.push((await other.call('GET', '/automations')).status);
    while (flooding);
    const answers = await burst;
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(hookRate);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited).toHaveLength(flood - hookRate);
    for (const answer of limited) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.body.error.code).toBe('rate_limit_exceeded');
    }
    expect(await client.runs(created.id)).toHaveLength(hookRate);
    expect(served.every((status) => status === 200)).toBe(true);
  });

  it('answers a delivery over the rate 429 before its body arrives', async () => {
    // Any path of a hook's shape has its bucket, a hook's or not: this one's is emptied by 404s.
    const url = `/v1/hooks/${newHookPath()}`;
    for (let sent = 0; sent < hookRate; sent++) expect((await deliver(url, '{}')).status).toBe(404);
    const request = httpRequest(`${running.api.url}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(200 * 1024) },
    });
    request.flushHeaders();
    // Not a byte of the body is sent: an answer proves the refusal did not wait to read it.
    const response = await new Promise<IncomingMessage>((resolveResponse, reject) => {
      request.once('response', resolveResponse);
      request.once('error', reject);
    });
    request.destroy();
    expect(response.statusCode).toBe(429);
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('answers a refusal over the rate as the route does: 429, Retry-After, the request id, the general envelope, counted under the route', async () => {
    const url = `/v1/hooks/${newHookPath()}`;
    for (let sent = 0; sent < hookRate; sent++) expect((await deliver(url, '{}')).status).toBe(404);
    const counted = async () => ({
      answers:
        (await httpRequests.get()).values.find(
          ({ labels }) => labels.route === '/v1/hooks/:path' && labels.status === '429' && labels.method === 'POST',
        )?.value ?? 0,
      refused: (await hooksReceived.get()).values.find(({ labels }) => labels.outcome === 'rate_limited')?.value ?? 0,
    });
    const before = await counted();
    const response = await fetch(`${running.api.url}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-refused-1' },
      body: '{}',
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-request-id')).toBe('req-refused-1');
    const wait = Number(response.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(await response.json()).toEqual({
      success: false,
      error: {
        code: 'rate_limit_exceeded',
        message: `Requests to this hook are over the rate of ${hookRate} per 3600 s; retry in ${wait} s.`,
        details: { limit: hookRate, windowSeconds: 3600, retryAfter: wait },
      },
    });
    expect(await counted()).toEqual({ answers: before.answers + 1, refused: before.refused + 1 });
    // Without an id of its own, the refusal carries a new one, as every answer does.
    const unnamed = await fetch(`${running.api.url}${url}`, { method: 'POST', body: '{}' });
    expect(unnamed.status).toBe(429);
    expect(unnamed.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('neoflow export and apply', () => {
  it("write a webhook's trigger without its URL or token, and apply it back as unchanged", async () => {
    const issued = await issueKey(running.api.database.orm);
    const owner = automationsClient(running.api.url, issued.key);
    const functionId = await owner.deploy('module.exports = async () => 1;');
    const trigger = { type: 'webhook', auth: { type: 'token' }, headers: ['X-Source'] };
    const created = await owner.call('POST', '/automations', {
      name: 'hook',
      trigger,
      action: { type: 'function', functionId },
    });
    expect(created.status).toBe(201);
    const env = { NEOFLOW_API_URL: running.api.url, NEOFLOW_API_KEY: issued.key };
    const exported = await neoflow(['export'], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toContain(created.body.trigger.token);
    expect(exported.stdout).not.toContain(created.body.trigger.url);
    const dir = await mkdtemp(join(tmpdir(), 'neoflow-hooks-'));
    try {
      await writeFile(join(dir, 'neoflow.yaml'), exported.stdout);
      const planned = await neoflow(['apply', '-f', join(dir, 'neoflow.yaml'), '--dry-run'], env);
      expect(planned.stdout).toContain('No changes');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
