import type { MigrationObject } from '@mikro-orm/core';
import { AccountsAndKeys } from './0001-accounts-and-keys.ts';

/** Applied in this order; a migration, once released, is never edited. */
export const migrations: MigrationObject[] = [{ name: '0001-accounts-and-keys', class: AccountsAndKeys }];
