import { randomBytes, randomInt, randomUUID } from 'node:crypto';

// Bounds keep one call from pinning the host: 64 KiB of randomness is far beyond any sane use.
const maxRandomBytes = 64 * 1024;

/** `context.services.random`, cryptographically secure, run on the host (the isolate has no crypto). */
export const random = {
  bytes(n: unknown): string {
    if (!Number.isInteger(n) || (n as number) < 0 || (n as number) > maxRandomBytes) {
      throw new Error(`random.bytes(n) needs an integer n between 0 and ${maxRandomBytes}.`);
    }
    return randomBytes(n as number).toString('hex');
  },

  /** An integer in [min, max], both ends included. */
  int(min: unknown, max: unknown): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || (min as number) > (max as number)) {
      throw new Error('random.int(min, max) needs safe integers with min <= max.');
    }
    return randomInt(min as number, (max as number) + 1);
  },

  uuid(): string {
    return randomUUID();
  },
};
