import { CONST } from '@cityofzion/neon-js';
import { expect } from 'vitest';
import type { TestApi } from './api.ts';
import { testApi } from './http.ts';

export const gasHash = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;

/** The call of a GAS transfer of `amount` fractions, as a contract action or a function's decision holds it. */
export const gasTransferCall = (from: string, to: string, amount: string) => ({
  scriptHash: gasHash,
  operation: 'transfer',
  args: [
    { type: 'Hash160', value: from },
    { type: 'Hash160', value: to },
    { type: 'Integer', value: amount },
    { type: 'Any', value: null },
  ],
});

/** A contract action sending `amount` GAS fractions from the account's signer. */
export const gasTransferAction = (from: string, to: string, amount: string) => ({
  type: 'contract',
  ...gasTransferCall(from, to, amount),
});

/** A price trigger on `url` (a price server of the tests), NEO above 10 USD, read every second. */
export const neoAboveTen = (url: string) => ({
  type: 'price',
  asset: 'NEO',
  condition: 'above',
  value: '10',
  currency: 'USD',
  source: { url, path: 'data.price' },
  pollInterval: 1,
});

/** Bodies of the automations area are bare: tests read them loosely. */
export type Loose = Record<string, any>;

/** What GET of an automation that sends shows of its GAS before it spent any, with no budget in force. */
export const unbudgetedGas = {
  budget: null,
  budgetFrom: null,
  spentToday: '0',
  spentTotal: '0',
  reserved: '0',
  leftToday: null,
  leftTotal: null,
};

/** Calls of one account's key, and the automations' helpers built on them. */
export function automationsClient(baseUrl: string, key: string) {
  const send = testApi(baseUrl, key);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await send(method, path, body);
    return { status: response.status, body: response.body as Loose };
  };
  return {
    call,
    async deploy(code: string): Promise<string> {
      const name = `fn-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
      const created = await call('POST', '/functions', { name, code, runtime: 'node18' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.data.id as string;
    },
    async create(body: Record<string, unknown>): Promise<string> {
      const created = await call('POST', '/automations', body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    },
    async runs(id: string): Promise<Loose[]> {
      const listed = await call('GET', `/automations/${id}/runs?limit=100`);
      expect(listed.status).toBe(200);
      return listed.body.runs as Loose[];
    },
  };
}

export const settled = (runs: Loose[]) => runs.every((run) => run.status !== 'running');

/** The fire keys of `automationId`'s runs as recorded, sorted. */
export async function fireKeysOf(api: TestApi, automationId: string): Promise<string[]> {
  const rows = await api.database.orm.em
    .fork()
    .getConnection()
    .execute<{ fire_key: string }[]>('select "fire_key" from "automation_runs" where "automation_id" = ?', [
      automationId,
    ]);
  return rows.map((row) => row.fire_key).sort();
}
