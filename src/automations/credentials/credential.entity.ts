import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Automation } from '../model/automation.entity.ts';

/**
 * One credential of an automation (src/automations/credentials/credentials.ts), sealed under its own data key
 * (src/crypto/envelope.ts) and bound to its automation and place; the automation's own columns
 * hold its mask.
 */
export const AutomationCredential = defineEntity({
  name: 'AutomationCredential',
  tableName: 'automation_credentials',
  uniques: [{ properties: ['automation', 'path'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    automation: () => p.manyToOne(Automation).deleteRule('cascade'),
    path: p.text(),
    ciphertext: p.blob(),
    wrappedKey: p.blob(),
    masterKeyId: p.string().length(16),
  },
});

export type AutomationCredential = InferEntity<typeof AutomationCredential>;
