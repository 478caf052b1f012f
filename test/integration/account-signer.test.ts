import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Account } from '../../src/auth/account.entity.ts';
import { createKey } from '../../src/auth/keys.service.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { openSigner } from '../../src/signers/default-signer.ts';
import { Signer } from '../../src/signers/signer.entity.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { ensureValidatorWallet } from '../../src/stack/neo-devnet-config.ts';
import { freePort } from '../../src/net/ports.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { neoflow } from '../support/cli.ts';
import { issueKey, keysCliEnv, testMasters, uniqueAccountName } from '../support/keys.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const neo = () => createNeoRpc(inject('neoRpcUrl'));
const accountOf = async (key: string) =>
  (await (await fetch(`${api.url}/v1/account`, { headers: { 'X-API-Key': key } })).json()) as {
    signer: { address: string; scriptHash: string; gasBalance: string | null } | null;
  };

describe('account signers', () => {
  it('gives a new account a signer, shown by GET /v1/account, whose sealed WIF opens to its address', async () => {
    const { key, accountId } = await issueKey(api.database.orm);
    const { signer } = await accountOf(key);
    expect(signer).toEqual({
      address: expect.stringMatching(/^N[1-9A-HJ-NP-Za-km-z]{33}$/),
      scriptHash: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      // Read from the chain: a new signer holds none.
      gasBalance: '0',
    });
    const opened = new wallet.Account(await openSigner(api.database.orm.em.fork(), testMasters, accountId));
    expect(opened.address).toBe(signer!.address);
    expect(`0x${opened.scriptHash}`).toBe(signer!.scriptHash);
  });

  it('keeps one signer per account across keys', async () => {
    const first = await issueKey(api.database.orm);
    const second = await issueKey(api.database.orm, ['*'], first.account);
    expect(second.signer).toEqual(first.signer);
    expect((await accountOf(second.key)).signer).toEqual({ ...first.signer, gasBalance: '0' });
  });

  it('binds a sealed key to its account: moved into another account, it no longer opens', async () => {
    const [mine, theirs] = [await issueKey(api.database.orm), await issueKey(api.database.orm)];
    const em = api.database.orm.em.fork();
    const [row, other] = await Promise.all([
      em.findOneOrFail(Signer, { account: mine.accountId }),
      em.findOneOrFail(Signer, { account: theirs.accountId }),
    ]);
    Object.assign(other, { ciphertext: row.ciphertext, wrappedKey: row.wrappedKey, masterKeyId: row.masterKeyId });
    await em.flush();
    await expect(openSigner(api.database.orm.em.fork(), testMasters, theirs.accountId)).rejects.toThrow();
  });

  it('creates nothing, account included, when the new signer cannot be funded', async () => {
    const account = uniqueAccountName('unfunded');
    const onNewSigner = () => Promise.reject(new Error('the chain is down'));
    const creating = createKey(api.database.orm.em.fork(), testMasters, account, ['*'], { onNewSigner });
    await expect(creating).rejects.toThrow('the chain is down');
    expect(await api.database.orm.em.fork().count(Account, { name: account })).toBe(0);
  });

  it('holds exactly 100 GAS once funded from the dev wallet, read through getBalance', async () => {
    const { signer } = await issueKey(api.database.orm);
    expect(await neo().getBalance(signer.address, 'GAS')).toEqual({ asset: 'GAS', amount: '0', decimals: 8 });
    await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signer.address, 10_000_000_000n);
    expect(await neo().getBalance(signer.address, 'GAS')).toEqual({
      asset: 'GAS',
      amount: '10000000000',
      decimals: 8,
    });
    expect(await neo().getBalance(signer.address, 'NEO')).toEqual({ asset: 'NEO', amount: '0', decimals: 0 });
  });

  it('refuses a balance of a contract that is not deployed, and of a bad address', async () => {
    const { signer } = await issueKey(api.database.orm);
    await expect(neo().getBalance(signer.address, `0x${'ab'.repeat(20)}`)).rejects.toThrow(
      /^0xabab\w+ is not a NEP-17 token on this chain: /,
    );
    await expect(neo().getBalance('ALq7AWrhAueN6mJNqk6FHJjnsEoPRytLdW', 'GAS')).rejects.toThrow(
      /is not a Neo N3 address/,
    );
  });
});

describe('`neoflow keys create` beside a dev chain that is not running', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'neoflow-signer-'));
    await mkdir(join(dataDir, 'neo'));
    await ensureValidatorWallet(join(dataDir, 'neo'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('fails with one line naming NEOFLOW_NEO_RPC_PORT and creates nothing', async () => {
    // NEO_RPC_URL unset and a devnet wallet in the data dir: the CLI takes the dev chain to be there.
    const env = { ...keysCliEnv(api.database.url), NEO_RPC_URL: '', NEOFLOW_DATA_DIR: dataDir };
    const account = uniqueAccountName('unfunded');
    const result = await neoflow(['keys', 'create', '--account', account], {
      ...env,
      NEOFLOW_NEO_RPC_PORT: String(await freePort()),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^neoflow: cannot connect to the service named by NEOFLOW_NEO_RPC_PORT .*\n$/);
    expect((await neoflow(['keys', 'list', '--account', account], env)).stdout).toBe(
      `no keys for account ${account}\n`,
    );
  });
});
