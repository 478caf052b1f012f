import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { prefixedId, timestamps } from '../db/resource-properties.ts';

export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: prefixedId('acct'),
    name: p.string().unique(),
    ...timestamps(),
  },
});

export type Account = InferEntity<typeof Account>;
