import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's softhsm2 installs its module (`.ci/run` installs the package when missing). */
export const softHsmModule = '/usr/lib/softhsm/libsofthsm2.so';

const tokenScript = join(import.meta.dirname, 'softhsm-token.ts');

/** A token's key as the token itself answers it, read apart from the backend under test. */
export interface TokenKeyView {
  /** CKA_EC_POINT of the public key, hex, as the token stores it. */
  ecPoint: string;
  sensitive: boolean;
  extractable: boolean;
  /** What reading the private key's CKA_VALUE answered: the PKCS#11 error, or how much was read. */
  valueRead: string;
  slotDescription: string;
}

export interface SoftHsm {
  /** A new token, labelled `label`, whose user PIN is `pin`. */
  initToken(label: string, pin: string): Promise<void>;
  /** A key pair generated inside the token (C_GenerateKeyPair), its private half non-extractable. */
  generateKey(token: string, pin: string, keyLabel: string, curve: 'P-256' | 'secp256k1'): Promise<void>;
  inspectKey(token: string, pin: string, keyLabel: string): Promise<TokenKeyView>;
  destroyKey(token: string, pin: string, keyLabel: string): Promise<void>;
  deleteToken(label: string): Promise<void>;
  /** Deletes the tokens and the configuration. */
  stop(): Promise<void>;
}

/**
 * A throwaway SoftHSM2: its own configuration and token directory in a temporary directory. This
 * process's SOFTHSM2_CONF points at it, as SoftHSM reads it when the backend initialises the module.
 */
export async function startSoftHsm(): Promise<SoftHsm> {
  const dir = await mkdtemp(join(tmpdir(), 'neoflow-softhsm-'));
  const tokens = join(dir, 'tokens');
  await mkdir(tokens);
  const conf = join(dir, 'softhsm2.conf');
  await writeFile(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  const env = { ...process.env, SOFTHSM2_CONF: conf, SOFTHSM_MODULE: softHsmModule };
  const util = (...args: string[]) =>
    run('softhsm2-util', args, { env }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new Error("softhsm2-util is missing: install Debian's softhsm2 (README, Quick start)");
    });
  const token = async (pin: string, ...args: string[]) => {
    const { stdout } = await run(process.execPath, [tokenScript, ...args], { env: { ...env, SOFTHSM_TEST_PIN: pin } });
    return JSON.parse(stdout) as unknown;
  };
  return {
    async initToken(label, pin) {
      await util('--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', `so-${pin}`);
    },
    async generateKey(tokenLabel, pin, keyLabel, curve) {
      await token(pin, 'generate', tokenLabel, keyLabel, curve);
    },
    async inspectKey(tokenLabel, pin, keyLabel) {
      return (await token(pin, 'inspect', tokenLabel, keyLabel)) as TokenKeyView;
    },
    async destroyKey(tokenLabel, pin, keyLabel) {
      await token(pin, 'destroy', tokenLabel, keyLabel);
    },
    async deleteToken(label) {
      await util('--delete-token', '--token', label);
    },
    async stop() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
