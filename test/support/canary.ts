import type { Payload } from '@temporalio/common';
import { expect } from 'vitest';
import { EncryptionCodec } from '../../src/temporal/codec.ts';
import type { TestApi } from './api.ts';
import { testPayloadKey } from './temporal.ts';
import { rawHistory } from './worker.ts';

/**
 * Where a value that must never leak is looked for afterwards: what the process wrote, every row
 * of the file's database, and Temporal's histories with their payloads opened as an operator would.
 */

/** Tees the process's stdout and stderr into `into` until the answered function is called. */
export function captureOutput(into: string[]): () => void {
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  const tap = (write: typeof stdout) =>
    ((chunk: string | Uint8Array, ...rest: never[]) => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return write(chunk, ...rest);
    }) as typeof stdout;
  process.stdout.write = tap(stdout);
  process.stderr.write = tap(stderr);
  return () => {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  };
}

/** Every row of every table of the API's database, as text (bytea shows as hex). */
export async function databaseDump(api: TestApi): Promise<string> {
  const connection = api.database.orm.em.getConnection();
  const tables = await connection.execute<{ table_name: string }[]>(
    `select table_name from information_schema.tables where table_schema = 'public'`,
  );
  const rows: string[] = [];
  for (const { table_name: table } of tables) {
    const dump = await connection.execute<{ row: string }[]>(`select row_to_json(t)::text as row from "${table}" t`);
    rows.push(...dump.map((entry) => entry.row));
  }
  expect(rows.length).toBeGreaterThan(5);
  return rows.join('\n');
}

/** Every payload anywhere in the events: anything carrying an `encoding` in its metadata. */
export function payloadsIn(value: unknown): Payload[] {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return [];
  const payload = value as Payload;
  if (payload.metadata?.encoding) return [payload];
  return Object.values(value).flatMap(payloadsIn);
}

/** The payloads of the workflow's history, opened with the tests' payload key, as text. */
export async function decodedHistoryText(api: TestApi, workflowId: string): Promise<string> {
  const decoded = await new EncryptionCodec(testPayloadKey).decode(payloadsIn(await rawHistory(api, workflowId)));
  return decoded.map((payload) => Buffer.from(payload.data ?? []).toString('utf8')).join('\n');
}
