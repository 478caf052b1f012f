import type { Config } from '../config.ts';
import { createKey, listKeys, revokeKey } from '../auth/keys.service.ts';
import { parseScopes, scopes } from '../auth/scopes.ts';
import { formatRate } from '../ratelimit/decision.ts';
import { parseRate, type Rate } from '../ratelimit/rate.ts';
import { masterKeysOf } from '../crypto/master-keys.ts';
import { devChainFunder, devFundingGas, type DevFunder } from '../stack/dev-funder.ts';
import { withCliOrm } from './database.ts';
import type { Options } from './options.ts';

const allScopes = scopes.filter((scope) => scope !== '*').join(',');

export async function keysCommand(config: Config, [action, keyId]: string[], options: Options) {
  switch (action) {
    case 'create':
      return createKeyCommand(config, required(options.account, '--account <name>'), options);
    case 'list':
      return listKeysCommand(config, required(options.account, '--account <name>'));
    case 'revoke':
      return revokeKeyCommand(config, required(keyId, '<keyId>'));
    default:
      throw new Error('usage: neoflow keys create|list|revoke (see neoflow --help)');
  }
}

async function createKeyCommand(config: Config, account: string, options: Options) {
  const keyScopes = parseScopes(options.scopes ?? allScopes);
  const rate = options.rate === undefined ? undefined : rateOption(options.rate);
  const masters = masterKeysOf(config);
  const fund = await devChainFunder(config);
  const created = await withCliOrm(config, (orm) =>
    createKey(orm.em.fork(), masters, account, keyScopes, {
      rate,
      onNewSigner: fund && ((signer) => fundSigner(fund, signer.address)),
    }),
  );
  process.stdout.write(
    `account ${account} (${created.accountId}), signer ${created.signer.address}\n` +
      `key id ${created.keyId}, scopes ${keyScopes.join(',')}, rate ${describeRate(rate ?? null, config)}\n`,
  );
  process.stdout.write('the key is shown once; store it now:\n');
  process.stdout.write(`${created.key}\n`);
}

async function listKeysCommand(config: Config, account: string) {
  const keys = await withCliOrm(config, (orm) => listKeys(orm.em.fork(), account));
  for (const key of keys) {
    const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
    const created = key.createdAt.toISOString();
    const rate = describeRate(key.rate, config);
    process.stdout.write(
      `${key.id}  ${key.hint}  ${state}  created ${created}  rate ${rate}  ${key.scopes.join(',')}\n`,
    );
  }
  if (keys.length === 0) process.stdout.write(`no keys for account ${account}\n`);
}

async function revokeKeyCommand(config: Config, id: string) {
  if (!(await withCliOrm(config, (orm) => revokeKey(orm.em.fork(), id)))) throw new Error(`no key with id ${id}`);
  process.stdout.write(`revoked ${id}\n`);
}

/** One progress line, finished once the transfer is in a block (about a second on the dev chain). */
async function fundSigner(fund: DevFunder, address: string) {
  process.stdout.write(`funding signer ${address} with ${devFundingGas} GAS from the dev wallet... `);
  const started = performance.now();
  const hash = await fund(address);
  process.stdout.write(`done in ${((performance.now() - started) / 1000).toFixed(1)} s, transaction ${hash}\n`);
}

function rateOption(text: string): Rate {
  const rate = parseRate(text);
  if (!rate) throw new Error(`invalid --rate "${text}": must be <requests>/<seconds>s, such as 100/10s`);
  return rate;
}

/** A key without its own rate follows NEOFLOW_RATE_LIMIT, which may change; the list says so. */
function describeRate(rate: Rate | null, config: Config): string {
  return rate ? formatRate(rate) : `${formatRate(config.rateLimit)} (default)`;
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`missing ${what}`);
  return value;
}
