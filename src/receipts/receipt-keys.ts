import type { Config } from '../config.ts';
import { receiptKeyId, receiptKeyOf, type ReceiptKey } from './receipt-key.ts';

/** A receipt key as /v1/receipt-keys lists it: anyone checks a receipt's signature against these. */
export interface ListedReceiptKey {
  id: string;
  /** Compressed secp256r1, hex. */
  publicKey: string;
  /** `active` signs new receipts; a `retired` key's receipts still verify. */
  status: 'active' | 'retired';
}

/** The deployment's receipt keys: the one that signs (if any) and those retired. */
interface ReceiptKeys {
  active: ReceiptKey | undefined;
  listed: ListedReceiptKey[];
}

const opened = new WeakMap<Config, ReceiptKeys>();

/** From NEOFLOW_RECEIPT_KEY and NEOFLOW_RECEIPT_KEYS_RETIRED, once a configuration. */
export function receiptKeysOf(config: Config): ReceiptKeys {
  let keys = opened.get(config);
  if (!keys) {
    keys = openReceiptKeys(config.secrets.receiptKey, config.secrets.retiredReceiptKeys);
    opened.set(config, keys);
  }
  return keys;
}

export function openReceiptKeys(privateKey: string | undefined, retired: string[]): ReceiptKeys {
  const active = privateKey === undefined ? undefined : receiptKeyOf(privateKey);
  const listed: ListedReceiptKey[] = active
    ? [{ id: active.id, publicKey: active.publicKey.toString('hex'), status: 'active' }]
    : [];
  for (const publicKey of retired) {
    if (listed.some((key) => key.publicKey === publicKey)) continue;
    listed.push({ id: receiptKeyId(Buffer.from(publicKey, 'hex')), publicKey, status: 'retired' });
  }
  return { active, listed };
}
