import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { fileBelow, readableEnv, type ApplyReach } from './apply-reach.ts';

/** The most a referenced file may weigh: a secret's value is at most 64 KiB, a URL 2 KiB. */
const maxReferencedFileBytes = 64 * 1024;

const envName = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name');

/**
 * Where a write-only value comes from: an environment variable, or a file (relative to the
 * neoflow.yaml that names it). A file's one trailing newline is not part of the value.
 */
export const referenceSchema = z.union(
  [
    z.strictObject({ env: envName }),
    z.strictObject({
      file: z.string({ error: 'must be a string' }).min(1).max(1024, 'must be at most 1024 characters'),
    }),
  ],
  { error: 'must be {env: NAME} or {file: PATH}' },
);

export type Reference = z.infer<typeof referenceSchema>;

/** A reference read: its value, or undefined when its variable is unset. Never printed. */
export interface Resolved {
  /** What the plan shows instead of the value: `$NAME` or the file's path. */
  label: string;
  value: string | undefined;
}

export const isReference = (value: unknown): value is Reference => referenceSchema.safeParse(value).success;

/** The value a reference names, read from the environment or from a file below the YAML file, as `reach` allows. */
export async function resolveReference(reference: Reference, reach: ApplyReach): Promise<Resolved> {
  if ('env' in reference) {
    const value = readableEnv(reach, reference.env);
    return { label: `$${reference.env}`, value: value === '' ? undefined : value };
  }
  const path = await fileBelow(reach, reference.file);
  const size = (await stat(path).catch(() => undefined))?.size;
  if (size === undefined) throw new Error(`cannot read ${reference.file}`);
  if (size > maxReferencedFileBytes) throw new Error(`${reference.file} is over ${maxReferencedFileBytes} bytes`);
  return { label: reference.file, value: (await readFile(path, 'utf8')).replace(/\r?\n$/, '') };
}

/** An environment variable's name made of words: `price-alert` and `notify.0.url` → `PRICE_ALERT_NOTIFY_0_URL`. */
export const envWords = (...words: string[]) =>
  words
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
