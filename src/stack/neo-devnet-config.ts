import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';

/** The validator key's NEP-6 wallet and the password that unlocks it, as stored in the data dir. */
interface ValidatorWallet {
  walletPath: string;
  password: string;
  publicKey: string;
  /** The 1-of-1 multisig account of the key: the committee, funded at genesis. */
  committeeAddress: string;
  encryptedKey: string;
}

/** Decrypts the validator key (about a second of scrypt, so callers overlap it with other work). */
export function unlockWif(validator: ValidatorWallet): Promise<string> {
  return wallet.decrypt(validator.encryptedKey, validator.password);
}

interface NodeConfigInput {
  dataDir: string;
  validator: ValidatorWallet;
  rpcPort: number;
  blockTimeMs: number;
  storage: 'leveldb' | 'inmemory';
  /** Default MAGIC, the dev chain's own: a test beside it starts a chain of another network. */
  magic?: number;
}

// neon-js exports `wallet` as a value only, so its JSON shapes are reached through the classes.
type AccountJson = ReturnType<InstanceType<typeof wallet.Account>['export']>;
type WalletJson = ReturnType<InstanceType<typeof wallet.Wallet>['export']>;

// "NFLW" in ASCII: a fixed magic keeps the chain in the data dir valid across restarts.
const MAGIC = 0x4e464c57;
const secretFile = { mode: 0o600 } as const;

const walletFile = (dataDir: string) => join(dataDir, 'wallet.json');
const passwordFile = (dataDir: string) => join(dataDir, 'wallet.password');

/** Loads the validator wallet from `dataDir`, creating a fresh key the first time. */
export async function ensureValidatorWallet(dataDir: string): Promise<ValidatorWallet> {
  return (await readValidatorWallet(dataDir)) ?? createValidatorWallet(dataDir);
}

/** The validator wallet stored in `dataDir`, or undefined before the devnet first started there. */
export async function readValidatorWallet(dataDir: string): Promise<ValidatorWallet | undefined> {
  const walletPath = walletFile(dataDir);
  const stored = await readFile(walletPath, 'utf8').catch(() => undefined);
  if (stored === undefined) return undefined;
  const password = (await readFile(passwordFile(dataDir), 'utf8')).trim();
  const accounts = (JSON.parse(stored) as WalletJson).accounts;
  const committee = accounts.find((entry) => entry.isDefault);
  const validatorScript = accounts.find((entry) => !entry.isDefault)?.contract?.script;
  if (!committee || !validatorScript) throw new Error(`${walletPath} lacks the validator or committee account`);
  const publicKey = wallet.getPublicKeyFromVerificationScript(Buffer.from(validatorScript, 'base64').toString('hex'));
  return { walletPath, password, publicKey, committeeAddress: committee.address, encryptedKey: committee.key };
}

async function createValidatorWallet(dataDir: string): Promise<ValidatorWallet> {
  const validator = new wallet.Account(wallet.generatePrivateKey());
  const password = randomBytes(24).toString('base64url');
  const encryptedKey = await wallet.encrypt(validator.WIF, password);
  const committeeScript = wallet.constructMultiSigVerificationScript(1, [validator.publicKey]);
  const committee = account(committeeScript, encryptedKey, 'committee', true);
  const nep6 = {
    name: 'neoflow-devnet',
    version: '1.0',
    scrypt: { n: 16384, r: 8, p: 8 },
    accounts: [
      account(wallet.getVerificationScriptFromPublicKey(validator.publicKey), encryptedKey, 'validator', false),
      committee,
    ],
    extra: null,
  };
  // The password goes first: the wallet's presence is what marks the key as complete.
  await writeFile(passwordFile(dataDir), `${password}\n`, secretFile);
  const walletPath = walletFile(dataDir);
  await writeFile(walletPath, JSON.stringify(nep6, null, 2), secretFile);
  return { walletPath, password, publicKey: validator.publicKey, committeeAddress: committee.address, encryptedKey };
}

// Built by hand because neon-js's createMultiSig leaves the contract parameters as empty slots.
function account(verificationScript: string, encryptedKey: string, label: string, isDefault: boolean): AccountJson {
  const scriptHash = wallet.getScriptHashFromVerificationScript(verificationScript);
  return {
    address: wallet.getAddressFromScriptHash(scriptHash),
    label,
    isDefault,
    lock: false,
    key: encryptedKey,
    contract: {
      script: Buffer.from(verificationScript, 'hex').toString('base64'),
      parameters: [{ name: 'parameter0', type: 'Signature' }],
      deployed: false,
    },
  };
}

/**
 * Writes the node configuration and returns its path. JSON is valid YAML, and JSON.stringify
 * quotes paths and the password correctly whatever they contain.
 */
export async function writeNodeConfig(input: NodeConfigInput): Promise<string> {
  const { dataDir, validator, rpcPort, blockTimeMs, storage, magic = MAGIC } = input;
  const config = {
    ProtocolConfiguration: {
      Magic: magic,
      // Hardforks is left out on purpose: absent means every stable hardfork from genesis, while
      // an empty map would mean none.
      StandbyCommittee: [validator.publicKey],
      ValidatorsCount: 1,
      TimePerBlock: `${blockTimeMs}ms`,
    },
    ApplicationConfiguration: {
      LogTimestamp: true,
      DBConfiguration:
        storage === 'leveldb'
          ? { Type: 'leveldb', LevelDBOptions: { DataDirectoryPath: join(dataDir, 'chain') } }
          : { Type: 'inmemory' },
      P2P: { Addresses: ['127.0.0.1:0'], MinPeers: 0 },
      Relay: true,
      Consensus: { Enabled: true, UnlockWallet: { Path: validator.walletPath, Password: validator.password } },
      RPC: {
        Enabled: true,
        Addresses: [`127.0.0.1:${rpcPort}`],
        SessionEnabled: true,
        MaxGasInvoke: 200,
      },
    },
  };
  const path = join(dataDir, 'neo-go.yml');
  await writeFile(path, JSON.stringify(config, null, 2), secretFile);
  return path;
}
