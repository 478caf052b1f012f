import { fileURLToPath } from 'node:url';
import { sc, u } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { canonicalBytes } from '../../src/receipts/canonical-json.ts';
import { receiptKeyOf, signReceipt } from '../../src/receipts/receipt-key.ts';
import { receiptFields, receiptPreimage } from '../../src/receipts/receipt-preimage.ts';
import { callContract, compileContract, deployContract, fundedSender } from '../support/contracts.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { testReceiptKey } from '../support/temporal.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

const running = apiWithWorkerForThisFile();
const neo = () => running.api.services.neo;

let call: ApiCall;
beforeAll(async () => {
  const { key } = await issueKey(running.api.database.orm);
  call = testApi(running.api.url, key);
});

const priceCode = "export default async () => ({ pair: 'NEO/GAS', price: 4217 });\n";
const otherCode = "export default async () => ({ pair: 'NEO/GAS', price: 9999 });\n";

interface Fulfilment {
  preimage: Buffer;
  signature: Buffer;
  result: Buffer;
  codeHash: string;
}

/** Deploys `code`, invokes it, and answers what a caller hands the contract: its receipt and result. */
async function runWithReceipt(name: string, code: string): Promise<Fulfilment> {
  const created = await call('POST', '/functions', { name, code, runtime: 'typescript' });
  const functionId = created.body.data!.id as string;
  const invoked = await call('POST', `/functions/${functionId}/invoke`, {});
  expect(invoked.status).toBe(200);
  const executionId = invoked.body.data!.execution.id as string;
  const receipt = (await call('GET', `/functions/${functionId}/executions/${executionId}/receipt`)).body.data!;
  return {
    preimage: Buffer.from(receipt.preimage as string, 'hex'),
    signature: Buffer.from(receipt.signature as string, 'hex'),
    result: canonicalBytes(invoked.body.data!.result),
    codeHash: receipt.codeHash as string,
  };
}

const byteArray = (bytes: Buffer) => ({ type: 'ByteArray', value: bytes.toString('base64') });
const param = (bytes: Buffer) => sc.ContractParam.byteArray(u.HexString.fromHex(bytes.toString('hex'), true));

describe('the example receipt consumer contract (examples/receipt-consumer)', () => {
  it('accepts a result with its receipt once; refuses a flipped bit, other code, another network and a replay', async () => {
    const [accepted, other, contract, deployer, magic] = await Promise.all([
      runWithReceipt('price', priceCode),
      runWithReceipt('other-price', otherCode),
      compileContract(
        inject('neoGoPath'),
        'receipt-consumer',
        'receipt-consumer',
        fileURLToPath(new URL('../../examples/receipt-consumer/', import.meta.url)),
      ),
      fundedSender(inject('neoRpcUrl'), inject('devWallet'), 50n),
      neo().getNetworkMagic(),
    ]);
    const key = receiptKeyOf(testReceiptKey);
    const consumer = await deployContract(
      neo(),
      deployer,
      contract,
      sc.ContractParam.array(
        param(key.publicKey),
        param(Buffer.from(accepted.codeHash, 'hex')),
        sc.ContractParam.integer(magic),
      ),
    );
    const fulfil = (attempt: Pick<Fulfilment, 'preimage' | 'signature' | 'result'>) =>
      neo().invokeFunction(consumer, 'fulfil', [
        byteArray(attempt.preimage),
        byteArray(attempt.signature),
        byteArray(attempt.result),
      ]);
    const refusal = async (attempt: Pick<Fulfilment, 'preimage' | 'signature' | 'result'>) => {
      const invocation = await fulfil(attempt);
      expect(invocation.state).toBe('FAULT');
      return invocation.exception;
    };

    // One bit of the outcome hash flipped: the signature no longer covers the preimage.
    const flipped = Buffer.from(accepted.preimage);
    flipped[200]! ^= 0x01;
    expect(await refusal({ ...accepted, preimage: flipped })).toContain('bad signature');
    // A real receipt, by the same key, of another function's code.
    expect(await refusal(other)).toContain('other code');
    // A receipt this deployment signed for another network.
    const elsewhere = receiptPreimage({ ...receiptFields(accepted.preimage), networkMagic: (magic + 1) >>> 0 });
    expect(await refusal({ ...accepted, preimage: elsewhere, signature: signReceipt(key, elsewhere) })).toContain(
      'another network',
    );
    // The receipt with a result that is not the one it signed.
    expect(await refusal({ ...accepted, result: Buffer.from('{"pair":"NEO/GAS","price":1}') })).toContain(
      'not the receipt',
    );

    await callContract(neo(), deployer, consumer, 'fulfil', [
      param(accepted.preimage),
      param(accepted.signature),
      param(accepted.result),
    ]);
    const stored = await neo().invokeFunction(consumer, 'result', []);
    expect(Buffer.from(stored.stack[0]!.value as string, 'base64').toString()).toBe('{"pair":"NEO/GAS","price":4217}');
    // The same receipt again, once its result was accepted.
    expect(await refusal(accepted)).toContain('replayed');
  }, 120_000);
});
