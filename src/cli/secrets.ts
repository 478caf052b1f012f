import type { Config } from '../config.ts';
import { keyId } from '../crypto/key-id.ts';
import { masterKeysOf } from '../secrets/master-keys.ts';
import { rotateMasterKey } from '../secrets/rotate-master.ts';
import { withCliOrm } from './database.ts';

export async function secretsCommand(config: Config, [action]: string[]) {
  if (action !== 'rotate-master') throw new Error('usage: neoflow secrets rotate-master (see neoflow --help)');
  const masters = masterKeysOf(config);
  const count = await withCliOrm(config, (orm) => rotateMasterKey(orm.em.fork(), masters));
  process.stdout.write(`re-wrapped ${count} data keys under master key ${keyId(masters.current)}\n`);
  process.stdout.write(
    'every secret now reads with NEOFLOW_MASTER_KEY alone: remove the old keys from NEOFLOW_PREVIOUS_MASTER_KEYS\n',
  );
}
