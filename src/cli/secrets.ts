import type { Config } from '../config.ts';
import { keyId } from '../crypto/key-id.ts';
import { masterKeysOf } from '../crypto/master-keys.ts';
import { rotateMasterKey } from './rotate-master.ts';
import { withCliOrm } from './database.ts';

export async function secretsCommand(config: Config, [action]: string[]) {
  if (action !== 'rotate-master') throw new Error('usage: neoflow secrets rotate-master (see neoflow --help)');
  const masters = masterKeysOf(config);
  const { rewrapped, left } = await withCliOrm(config, (orm) => rotateMasterKey(orm.em.fork(), masters));
  process.stdout.write(`re-wrapped ${rewrapped} data keys under master key ${keyId(masters.current)}\n`);
  if (left > 0) {
    process.stdout.write(
      `${left} values are still under another key (written meanwhile by a process holding an old NEOFLOW_MASTER_KEY): ` +
        'run it again once every process has the new key\n',
    );
    process.exitCode = 1;
    return;
  }
  process.stdout.write(
    'counted again, no value is under another key: remove the old keys from NEOFLOW_PREVIOUS_MASTER_KEYS\n',
  );
}
