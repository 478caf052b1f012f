import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { newId } from '../ids.ts';

export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p
      .string()
      .primary()
      .onCreate(() => newId('acct')),
    name: p.string().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type Account = InferEntity<typeof Account>;
