import { z } from 'zod';
import { isoTime, paginationSchema } from '../wire/response-schemas.ts';
import { budgetSchema } from '../chain/gas-budget.ts';
import { networkFiguresSchema } from './signer-networks.ts';
import { signerTypes, type Signer } from './signer.entity.ts';

/** What the API shows of a signer: where its key lives and its address, never key material. */
export const signerView = (signer: Signer) => ({
  id: signer.id,
  name: signer.name,
  type: signer.type,
  address: signer.address,
  scriptHash: signer.scriptHash,
  publicKey: signer.publicKey!,
  backend: signer.backend ?? null,
  budget: signer.budget ?? null,
  createdAt: signer.createdAt.toISOString(),
});

const backendSchema = z
  .union([
    z.strictObject({ keyId: z.string(), region: z.string().optional() }).meta({ id: 'AwsKmsBackend' }),
    z
      .strictObject({ tokenLabel: z.string().optional(), slotLabel: z.string().optional(), keyLabel: z.string() })
      .meta({ id: 'Pkcs11Backend' }),
  ])
  .nullable();

const signerSchema = z
  .strictObject({
    id: z.string(),
    /** How automations name it (`action.signer`), as its id does. */
    name: z.string(),
    type: z.enum(signerTypes),
    address: z.string(),
    /** `0x` and the big-endian hex that Neo tools show. */
    scriptHash: z.string(),
    /** Compressed secp256r1, hex: what its witnesses verify against. */
    publicKey: z.string(),
    /** Which remote key signs (aws-kms, pkcs11); null for a key Neoflow holds sealed. */
    backend: backendSchema,
    /** Its own daily/total GAS budget per network; null: the account's default budget holds. */
    budget: budgetSchema.nullable(),
    createdAt: isoTime,
  })
  .meta({ id: 'Signer' });

export const signerDetailsSchema = signerSchema
  .extend({
    /** Per configured network: its GAS there (null when no node answered within 2 s) and what its transactions there cost. */
    networks: z.array(networkFiguresSchema),
  })
  .meta({ id: 'SignerDetails' });

export const signerListSchema = z
  .strictObject({ signers: z.array(signerSchema), pagination: paginationSchema })
  .meta({ id: 'SignerPage' });
