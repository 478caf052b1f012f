import type { Router } from '@koa/router';
import { z } from 'zod';
import { areaRouter, data, route } from '../api/route-kit.ts';
import type { Config } from '../config.ts';
import { dataEnvelope } from '../wire/response-schemas.ts';
import { receiptKeysOf } from './receipt-keys.ts';

const receiptKeySchema = z
  .strictObject({
    id: z.string().describe("The first 16 hex digits of SHA-256 of the public key: a receipt's `keyId`."),
    publicKey: z.string().describe('Compressed secp256r1, hex: what a contract registers.'),
    status: z
      .enum(['active', 'retired'])
      .describe('`active` signs new receipts; a retired key only verifies old ones.'),
  })
  .meta({ id: 'ReceiptKey' });

/**
 * GET /v1/receipt-keys needs no key: anyone checking a receipt (a user, an auditor, a contract's
 * deployer) reads the deployment's keys here. Retired keys stay listed so old receipts verify.
 */
export function receiptKeysRoutes(config: Config): Router {
  return areaRouter('/v1/receipt-keys', [
    route({
      method: 'get',
      path: '/',
      summary: 'List receipt keys',
      description:
        'The public keys that sign this deployment\'s execution receipts: the active one and those retired (NEOFLOW_RECEIPT_KEYS_RETIRED), whose receipts still verify. No key needed. docs/security.md, "Receipts".',
      tag: 'Receipts',
      responses: { 200: dataEnvelope(z.array(receiptKeySchema)) },
      handle: async () => data(receiptKeysOf(config).listed),
    }),
  ]);
}
