import type { Router } from '@koa/router';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { idempotent } from '../api/idempotency.ts';
import { paginationOf } from '../wire/pagination.ts';
import { deletedMessage } from '../wire/response-schemas.ts';
import { signerSpend } from '../automations/budget/gas-spend.ts';
import type { Resources } from '../resources.ts';
import { networkFigures } from './signer-networks.ts';
import type { Signer } from './signer.entity.ts';
import { signerDetailsSchema, signerListSchema, signerView } from './signer.view.ts';
import { createSignerBody, listSignersQuery } from './signers.schemas.ts';
import { createSigner, deleteSigner, getSigner, listSigners, withPublicKey } from './signers.service.ts';

/** The signers area: an account's keys, by where they live; bare bodies like the account's, never key material. */
export function signersRoutes(resources: Resources): Router {
  const keyed = idempotent(resources);
  const { em, masterKeys } = resources;
  const shown = (signer: Signer) => withPublicKey(em(), masterKeys, signer).then(signerView);
  const details = async (signer: Signer) => ({
    ...(await shown(signer)),
    networks: await networkFigures(resources.networks.pools, signer.address, (network) =>
      signerSpend(em().fork(), signer.id, network),
    ),
  });
  return areaRouter('/v1/signers', [
    route({
      method: 'get',
      path: '/',
      summary: 'List signers',
      description:
        "Returns the account's signers, newest first: where each key lives, its address and public key, never key material.",
      tag: 'Signers',
      scope: 'signers:read',
      query: listSignersQuery,
      responses: { 200: signerListSchema },
      handle: async ({ accountId, query }) => {
        const { signers, total } = await listSigners(em(), accountId, query);
        const shownSigners = [];
        for (const signer of signers) shownSigners.push(await shown(signer));
        return bare({ signers: shownSigners, pagination: paginationOf(query, signers.length, total) });
      },
    }),
    route({
      method: 'post',
      path: '/',
      errors: ['conflict', 'signer_unavailable'],
      summary: 'Create a signer',
      description:
        'Adds a key, named uniquely in the account (409 `conflict` otherwise), that automations sign with (`action.signer`): ' +
        '`generated` (a new key Neoflow keeps sealed), `import` (`privateKey`, a WIF or 64 hex digits: write-only, sealed, never answered), ' +
        '`aws-kms` (`keyId`, `region`: a key of spec ECC_NIST_P256) or `pkcs11` (`tokenLabel` or `slotLabel`, and `keyLabel`: an EC P-256 key). ' +
        "A remote key is opened by a worker, never by the API: a key that is absent, of another curve or may not sign is a 400 naming the field; a backend or worker that does not answer within 15 s, 503 `signer_unavailable`. The address is derived from the key's public key. Safe to repeat under an `Idempotency-Key`.",
      tag: 'Signers',
      scope: 'signers:write',
      idempotency: keyed,
      body: createSignerBody,
      responses: { 201: signerDetailsSchema },
      handle: async ({ actor, body }) => {
        const deps = {
          em: em(),
          masterKeys,
          starter: { client: resources.temporal.client, taskQueue: resources.config.temporal.taskQueue },
        };
        return bare(await details(await createSigner(deps, actor, body)), 201);
      },
    }),
    route({
      method: 'get',
      path: '/:id',
      errors: ['not_found'],
      summary: 'Retrieve a signer',
      description:
        'Returns the signer with, per configured network, its GAS balance (`null` when no node answered within 2 s) and what its transactions there cost.',
      tag: 'Signers',
      scope: 'signers:read',
      responses: { 200: signerDetailsSchema },
      handle: async ({ accountId, params }) => bare(await details(await getSigner(em(), accountId, params.id))),
    }),
    route({
      method: 'delete',
      path: '/:id',
      errors: ['not_found', 'signer_in_use'],
      summary: 'Delete a signer',
      description:
        'Deletes the signer, and with it a sealed key Neoflow held (a remote key is left in its KMS or token). An automation that signs with it makes this a 409 `signer_in_use` listing them in `details.automations`.',
      tag: 'Signers',
      scope: 'signers:write',
      responses: { 200: deletedMessage },
      handle: async ({ actor, params }) => {
        await deleteSigner(em(), actor, params.id);
        return bare({ success: true, message: 'Signer permanently deleted.' });
      },
    }),
  ]);
}
