import { createECDH } from 'node:crypto';
import { listOf, optionalText } from './config-settings.ts';

/** How NEOFLOW_RECEIPT_KEY and NEOFLOW_RECEIPT_KEYS_RETIRED are read (src/config.ts lists them). */

/** A receipt key's private scalar, 64 hex digits (`neoflow receipts key`). */
export const optionalReceiptKey = optionalText.refine(
  (value) => value === undefined || /^[0-9a-fA-F]{64}$/.test(value),
  {
    message: 'must be 64 hex digits (`neoflow receipts key` makes one)',
  },
);

/** A fresh key's private scalar, as NEOFLOW_RECEIPT_KEY holds it: always one of the curve. */
export function newReceiptPrivateKey(): string {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return ecdh.getPrivateKey('hex').padStart(64, '0');
}

/** Compressed secp256r1 public keys, comma-separated. */
export const publicKeyList = optionalText
  .refine((value) => value === undefined || listOf(value).every((key) => /^0[23][0-9a-fA-F]{64}$/.test(key)), {
    message: 'must be comma-separated compressed public keys (66 hex digits each, as /v1/receipt-keys lists them)',
  })
  .transform((value) => (value === undefined ? [] : listOf(value).map((key) => key.toLowerCase())));
