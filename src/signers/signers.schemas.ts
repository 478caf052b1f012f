import { z } from 'zod';
import { wallet } from '@cityofzion/neon-js';
import { budgetSchema } from '../chain/gas-budget.ts';
import { paginationQuery } from '../wire/pagination.ts';

const text = (max: number) =>
  z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/**
 * A signer's name, how automations name it (`action.signer`): never of an id's shape, so that a
 * name and an id cannot be read as each other.
 */
const signerName = z
  .string({ error: 'must be a string' })
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit',
  )
  .refine((name) => !name.startsWith('sgn_'), 'must not start with sgn_, which ids start with');

/** A WIF, or 32 bytes of hex (with or without 0x), as the WIF it is stored as; null when it is not a key of the curve. */
export function wifOf(privateKey: string): string | null {
  const hex = /^(0x)?([0-9a-fA-F]{64})$/.exec(privateKey)?.[2];
  if (hex === undefined && !wallet.isWIF(privateKey)) return null;
  try {
    // Out of [1, n-1], neon-js refuses to derive the public key.
    const account = new wallet.Account(hex?.toLowerCase() ?? privateKey);
    void account.publicKey;
    return account.WIF;
  } catch {
    return null;
  }
}

/** Write-only: its value is never answered, logged or put in a workflow; the message never quotes it. */
const privateKey = z
  .string({ error: 'must be a string' })
  // Bounded before it is decoded: a WIF is 52 characters, hex 66 with its 0x; base58 of a long text costs quadratic time.
  .max(128, { message: 'must be a WIF or 64 hexadecimal characters (0x optional) of a secp256r1 key', abort: true })
  .refine(
    (value) => wifOf(value) !== null,
    'must be a WIF or 64 hexadecimal characters (0x optional) of a secp256r1 key',
  );

const common = { name: signerName, budget: budgetSchema.optional() };

const generated = z.strictObject({ type: z.literal('generated'), ...common }).meta({ id: 'GeneratedSignerCreate' });

const imported = z
  .strictObject({ type: z.literal('import'), ...common, privateKey: privateKey.meta({ writeOnly: true }) })
  .meta({ id: 'ImportSignerCreate' });

const awsKms = z
  .strictObject({
    type: z.literal('aws-kms'),
    ...common,
    /** The key's id, ARN or alias; of spec ECC_NIST_P256 and usage SIGN_VERIFY. */
    keyId: text(2048),
    /** Without it, the worker's AWS_REGION. */
    region: z
      .string({ error: 'must be a string' })
      .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be an AWS region such as eu-west-1')
      .optional(),
  })
  .meta({ id: 'AwsKmsSignerCreate' });

const pkcs11 = z
  .strictObject({
    type: z.literal('pkcs11'),
    ...common,
    /** The token by its label, or by its slot's description (`slotLabel`): one of the two. */
    tokenLabel: text(32).optional(),
    slotLabel: text(64).optional(),
    /** The EC P-256 private key's CKA_LABEL in that token. */
    keyLabel: text(128),
  })
  .refine((body) => (body.tokenLabel === undefined) !== (body.slotLabel === undefined), {
    message: 'must name the token by tokenLabel or slotLabel, one of the two',
    path: ['tokenLabel'],
  })
  .meta({ id: 'Pkcs11SignerCreate' });

export const createSignerBody = z
  .discriminatedUnion('type', [generated, imported, awsKms, pkcs11], {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? 'must be generated, import, aws-kms or pkcs11'
        : 'must be an object whose type is generated, import, aws-kms or pkcs11',
  })
  .meta({ id: 'SignerCreate' });

export const listSignersQuery = z.strictObject(paginationQuery(20));

export type CreateSigner = z.infer<typeof createSignerBody>;
export type RemoteSignerCreate = Extract<CreateSigner, { type: 'aws-kms' | 'pkcs11' }>;
