import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { prefixedId, timestamps } from '../db/resource-properties.ts';
import type { Budget } from '../chain/gas-budget.ts';

export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: prefixedId('acct'),
    name: p.string().unique(),
    /** The budget of its automations that send and set none of their own. */
    budget: p.json<Budget>().nullable(),
    ...timestamps(),
  },
});

export type Account = InferEntity<typeof Account>;
