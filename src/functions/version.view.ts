import { z } from 'zod';
import { isoTime } from '../wire/response-schemas.ts';
import { functionSchema } from './function.view.ts';
import type { FunctionVersion } from './function-version.entity.ts';
import { storedSettings, versionedSettings } from './versioned-fields.ts';

/** A version as listed and read: what it runs, who made it and when; its code when asked for. */
export function versionView(version: FunctionVersion, current: number, withCode = false) {
  return {
    version: version.version,
    current: version.version === current,
    codeSha256: version.codeSha256,
    keyId: version.keyId ?? null,
    createdAt: version.createdAt.toISOString(),
    ...storedSettings(version.settings),
    ...(withCode ? { code: version.code } : {}),
  };
}

const settingsSchema = functionSchema.pick(
  Object.fromEntries(versionedSettings.map((field) => [field, true])) as Record<
    (typeof versionedSettings)[number],
    true
  >,
);

export const versionSchema = settingsSchema
  .extend({
    version: z.number().int(),
    current: z.boolean(),
    codeSha256: z.string(),
    keyId: z.string().nullable(),
    createdAt: isoTime,
    code: z.string().optional(),
  })
  .meta({ id: 'FunctionVersion' });
