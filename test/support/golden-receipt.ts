import { createHash } from 'node:crypto';
import type { ReceiptSubject } from '../../src/receipts/receipt-claims.ts';
import { receiptKeyOf } from '../../src/receipts/receipt-key.ts';

/** The golden receipt's inputs and outputs: test/unit/receipt-preimage.test.ts proves them, others reuse them. */
export const sha = (text: string) => createHash('sha256').update(text).digest('hex');

export const key = receiptKeyOf(sha('neoflow receipt golden key'));

export const subject: ReceiptSubject = {
  networkMagic: 894710606,
  executionId: 'exec_0123456789abcdefghijklmn',
  functionId: 'func_0123456789abcdefghijklmn',
  code: 'export default async (params: { x: number }) => ({ doubled: params.x * 2 });\n',
  config: {
    runtime: 'typescript',
    timeout: 30,
    environment: { MODE: 'prod' },
    secrets: ['API_KEY'],
    allowedHosts: ['api.example.com'],
    version: 3,
  },
  params: { x: 21 },
  status: 'completed',
  outcome: { doubled: 42 },
  logs: [{ level: 'info', message: 'doubling 21', timestamp: '2026-12-07T04:00:00.000Z' }],
  secretsRead: [{ name: 'API_KEY', version: 2 }],
  hostCalls: [{ method: 'getBlockCount', target: '', resultHash: sha('1234') }],
  startedAt: new Date('2026-12-07T04:00:00.000Z'),
  completedAt: new Date('2026-12-07T04:00:00.125Z'),
};

/** Computed once from `subject` and the key above; a change to the layout or a hash's input changes it. */
export const goldenPublicKey = '02cbb6082c71aed8f764bb60dfe70b51827196914b3b81f02f40a197974dd3485f';
export const goldenPreimage =
  '6e656f666c6f772f726563656970742f7631004e3354356c66900e77e685b52421b1817f756ff60bb462b44f2703a58f7324cbc47a0e4569fdf1a0135548c87451d853b587669d7f3f8f7de2b260adc3fe564770af50391a46fdcc1d9a951ff7ddbba89cce1af25736a2a7b52eb7bde09816b5892fc06657878279d3dee1b5f292e99e43a58ee5ad50a357c8ca12a3960d0b66389dc84c25b75005259488c2dd18a855c8126cbc7a27ea127ba157b4f052f2e48a30c4450127d4958085af3032ba46babb9e0b71690f9e2cc745ff7bb403a3d54e12152f8298b5c9e619767235c7e9ce1b6849a5c25caf9522e893ba88772fa6e9192cbe7af115045c13518ab15aa65e83ec1f4bd1dcd7129abec6b5dc92e53ca06d488e84a05338b7c87274479d77b1fdc4d67b70c3b61e28796102cc77f326245c1516f50092a84ea20100007d92a84ea201000002cbb6082c71aed8f764bb60dfe70b51827196914b3b81f02f40a197974dd3485f000000000000000000000000000000000000000000000000000000000000000000';
/** A signature of the golden preimage by the key, made once (ECDSA is randomised: a new one differs). */
export const goldenSignature =
  '363939dc5b08991bdfd612b2814b3c0e633c671271bad7900ecdaed3f74263b230209b61f04b35e325eb132f628bc43f88d5f688496de7d57c6318202f3e7187';
