import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wallet } from '@cityofzion/neon-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/receipts/canonical-json.ts';
import { receiptKeyOf } from '../../src/receipts/receipt-key.ts';
import { neoflow } from '../support/cli.ts';
import { keysCliEnv } from '../support/keys.ts';
import { killStackForThisFile } from '../support/kill-stack.ts';
import { until } from '../support/polling.ts';
import { testReceiptKey } from '../support/temporal.ts';
import { closeServer } from '../support/close-server.ts';

const stack = killStackForThisFile('receipt-takeover', 'worker');
const receiptKey = receiptKeyOf(testReceiptKey);

/**
 * A loopback origin whose answers the test gives one at a time: each request waits until
 * `answer` is called, so a run's code stays in its fetch for as long as the test needs.
 */
interface Gate {
  url: string;
  /** Requests not answered yet. */
  held(): number;
  /** Answers the oldest held request with `value`. */
  answer(value: unknown): void;
  close(): Promise<void>;
}

async function openGate(): Promise<Gate> {
  const held = new Set<ServerResponse>();
  const server = createServer((_request, response) => {
    held.add(response);
    // A request whose process died is no longer held.
    response.on('close', () => held.delete(response));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/answer`,
    held: () => held.size,
    answer: (value) => {
      const [oldest] = held;
      held.delete(oldest!);
      oldest!.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    },
    close: () => closeServer(server),
  };
}

let gate: Gate;
beforeAll(async () => {
  gate = await openGate();
});
afterAll(() => gate.close());

/** The number of requests held, once one is (a run's code waiting in its fetch), or after 90 s. */
const oneRequestHeld = () =>
  until(
    async () => gate.held(),
    (held) => held === 1,
    90_000,
    50,
  );

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Statements storing an execution's end that wait on a row lock: one per process that ran it.
 * Read outside the locker's transaction, where PostgreSQL would answer the activity it saw first.
 */
async function endsWaiting(): Promise<number> {
  const [row] = await stack.database.orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query like '%update "executions" set "status"%'`,
    );
  return row!.n;
}

describe('fault: kill -9 of the worker whose end of a run is on its way to the database', () => {
  it("a run taken over by another worker is signed once: the row keeps the first end to land, the dead worker's, and its receipt alone", async () => {
    const created = await stack.call('POST', '/functions', {
      name: 'answers-what-the-gate-says',
      runtime: 'node18',
      timeout: 60,
      allowedHosts: ['127.0.0.1'],
      code: 'module.exports = async (context) => (await context.services.http.fetch(context.params.url)).json();',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const functionId = created.body.data.id as string;
    const invoked = await stack.call('POST', `/functions/${functionId}/invoke`, {
      async: true,
      params: { url: gate.url },
    });
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(202);
    const executionId = invoked.body.data.execution.id as string;

    const locker = new pg.Client({ connectionString: stack.database.url });
    await locker.connect();
    try {
      // The first worker's code waits in its fetch; the row is locked before the code gets its answer.
      expect(await oneRequestHeld()).toBe(1);
      await locker.query('begin');
      await locker.query(`select 1 from "executions" where "id" = $1 for update`, [executionId]);
      gate.answer({ answer: 'first worker' });
      // Its end, signed, waits on the lock: the statement is in PostgreSQL when the process dies.
      expect(await until(endsWaiting, (n) => n === 1, 60_000, 50)).toBe(1);
      await stack.kill(stack.processes[0]!);
      await stack.start();

      // Once the dead worker's workflow task times out, the second worker runs the code again.
      expect(await oneRequestHeld()).toBe(1);
      gate.answer({ answer: 'second worker' });
      // Two ends, each signed by the process that ran the code, wait: the dead worker's statement
      // lives on in its backend, which does not look for its client while it waits
      // (client_connection_check_interval is off, PostgreSQL's default).
      expect(await until(endsWaiting, (n) => n === 2, 60_000, 50)).toBe(2);
      await locker.query('commit');
    } finally {
      await locker.end();
    }

    const outcome = await stack.api.services.temporal.client.workflow.getHandle(executionId).result();
    expect(outcome.status).toBe('completed');
    const details = (await stack.call('GET', `/functions/${functionId}/executions/${executionId}`)).body.data;
    // The dead worker's end was first in line for the row: it is the one kept, the second refused.
    expect(details).toMatchObject({ status: 'completed', result: { answer: 'first worker' } });

    const stored = await stack.database.orm.em
      .fork()
      .getConnection()
      .execute<{ n: number }[]>(`select count(*)::int as n from execution_receipts where execution_id = ?`, [
        executionId,
      ]);
    expect(stored[0]!.n).toBe(1);
    const receipt = (await stack.call('GET', `/functions/${functionId}/executions/${executionId}/receipt`)).body.data;
    expect(wallet.verify(receipt.preimage, receipt.signature, receiptKey.publicKey.toString('hex'))).toBe(true);
    expect(receipt).toMatchObject({
      status: 'completed',
      outcomeHash: sha(canonicalJson(details.result)),
      completedAt: Date.parse(details.completedAt),
    });
    // The project's verifier rebuilds every hash from the row as stored: they are the receipt's.
    const verified = await neoflow(['receipts', 'verify', executionId], {
      ...keysCliEnv(stack.database.url),
      NEOFLOW_RECEIPT_KEY: testReceiptKey,
    });
    expect(verified, verified.stdout + verified.stderr).toMatchObject({ code: 0 });
  }, 240_000);
});
