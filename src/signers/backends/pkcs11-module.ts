import { createHash, timingSafeEqual } from 'node:crypto';
// pkcs11js rather than graphene-pk11: graphene is an object wrapper over pkcs11js itself, more
// thinly maintained, and what it adds (object classes per key type) is not needed to find one key
// and sign one digest. pkcs11js is PeculiarVentures' N-API binding, built at install against any Node.
import pkcs11js from 'pkcs11js';
import { SignerUnavailableError } from '../signing-key.ts';

/**
 * One PKCS#11 module per process, and one logged-in session per token, shared by every key of
 * that token (pkcs11.ts finds the keys and signs).
 *
 * A session is reused rather than opened per signature: C_Login costs a round trip to a network
 * HSM (and SoftHSM derives its PIN key on each), and PKCS#11's login state is the application's
 * per token anyway. A session runs one operation at a time (C_SignInit then C_Sign, or a find),
 * and C_SignAsync yields to the event loop while the module signs on libuv's thread pool: every
 * use of a token's session therefore goes through that token's lane, one after another.
 */

export type Handle = Buffer;

/** A token's session and the work waiting for it. */
export class Token {
  readonly slot: Handle;
  readonly description: string;
  /** Bumped at each new session: object handles found through an earlier one may be stale. */
  generation = 0;
  session: Handle | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  /** Of the PIN the session logged in with, and of one the token refused (never tried again). */
  private loggedInWith: Buffer | undefined;
  private refusedPin: Buffer | undefined;
  private readonly cryptoki: pkcs11js.PKCS11;

  constructor(cryptoki: pkcs11js.PKCS11, slot: Handle, description: string) {
    this.cryptoki = cryptoki;
    this.slot = slot;
    this.description = description;
  }

  /** Runs `work` once every earlier use of this token's session has ended. */
  exclusive<T>(work: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** The logged-in session, opened now if there is none; only inside `exclusive`. */
  sessionFor(pin: string): Handle {
    const digest = pinDigest(pin);
    if (this.refusedPin && timingSafeEqual(digest, this.refusedPin)) {
      // A real HSM locks its user after a few wrong PINs: a retried activity must not get there.
      throw new SignerUnavailableError(
        `${this.description} refused this PIN earlier; it is not tried again until the worker restarts`,
      );
    }
    if (this.session && this.loggedInWith) {
      if (timingSafeEqual(digest, this.loggedInWith)) return this.session;
      throw new SignerUnavailableError(`the PIN is not the one ${this.description} is logged in with`);
    }
    let session: Handle;
    try {
      session = this.cryptoki.C_OpenSession(this.slot, pkcs11js.CKF_SERIAL_SESSION);
    } catch (error) {
      throw new SignerUnavailableError(`${this.description} could not open a session: ${errorName(error)}`);
    }
    try {
      this.cryptoki.C_Login(session, pkcs11js.CKU_USER, pin);
    } catch (error) {
      const code = errorName(error);
      // Logged in already by another session of this process: the login state is per application.
      if (code !== 'CKR_USER_ALREADY_LOGGED_IN') {
        if (code === 'CKR_PIN_INCORRECT') this.refusedPin = digest;
        this.closeQuietly(session);
        throw new SignerUnavailableError(`${this.description} refused the login: ${code}`);
      }
    }
    this.session = session;
    this.loggedInWith = digest;
    this.generation += 1;
    return session;
  }

  /** Forgets the session after a failure: the next use opens and logs in a new one. */
  drop(): void {
    if (this.session) this.closeQuietly(this.session);
    this.session = undefined;
    this.loggedInWith = undefined;
  }

  private closeQuietly(session: Handle): void {
    try {
      this.cryptoki.C_CloseSession(session);
    } catch {
      // Already gone with its token or device: nothing is left to close.
    }
  }
}

const pinDigest = (pin: string) => createHash('sha256').update(pin).digest();

/** The PKCS#11 return value's name (`CKR_…`) of a binding error, else the error's own message. */
export function errorName(error: unknown): string {
  if (error instanceof pkcs11js.Pkcs11Error) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** A loaded and initialised module, and its tokens' sessions by slot. */
export interface Cryptoki {
  readonly pkcs11: pkcs11js.PKCS11;
  readonly tokens: Map<string, Token>;
}

/**
 * Modules by path. The promise is kept, not the module: concurrent first opens wait for the one
 * C_Initialize a process may make, rather than each loading the module.
 */
const modules = new Map<string, Promise<Cryptoki>>();

/** The module at `path`, loaded and initialised once per process. */
export function loadModule(path: string): Promise<Cryptoki> {
  let loading = modules.get(path);
  if (!loading) {
    loading = initialise(path);
    // A module that could not be loaded may be installed later: the next open tries again.
    loading.catch(() => modules.delete(path));
    modules.set(path, loading);
  }
  return loading;
}

async function initialise(path: string): Promise<Cryptoki> {
  const pkcs11 = new pkcs11js.PKCS11();
  try {
    pkcs11.load(path);
  } catch (error) {
    throw new SignerUnavailableError(`the PKCS#11 module ${path} could not be loaded: ${errorName(error)}`);
  }
  try {
    // Signatures run on libuv's threads (C_SignAsync): the module must lock for itself.
    pkcs11.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (error) {
    if (errorName(error) !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') {
      pkcs11.close();
      throw new SignerUnavailableError(`the PKCS#11 module ${path} could not be initialised: ${errorName(error)}`);
    }
  }
  return { pkcs11, tokens: new Map() };
}

/** The one Token of a slot: made on first use, so every key of the token shares its session. */
export function tokenOf(cryptoki: Cryptoki, slot: Handle, description: string): Token {
  const key = slot.toString('hex');
  let token = cryptoki.tokens.get(key);
  if (!token) {
    token = new Token(cryptoki.pkcs11, slot, description);
    cryptoki.tokens.set(key, token);
  }
  return token;
}
