import type { MikroORM } from '@mikro-orm/postgresql';
import { reachable } from '../reachable.ts';
import { openOrm } from './orm.ts';

/** Opens the ORM on `url` (failing with a message naming `variable`), runs `work`, closes it. */
export async function withOrm<T>(url: string, variable: string, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await reachable(variable, () => openOrm(url));
  try {
    return await work(orm);
  } finally {
    await orm.close();
  }
}
