import { requireSetting, type Config } from '../config.ts';
import { EncryptionCodec } from '../temporal/codec.ts';
import { connectTemporal } from '../temporal/connect.ts';
import { resealSchedules } from '../temporal/reseal-schedules.ts';

/** `neoflow schedules reseal`: the schedules' stored payloads under NEOFLOW_PAYLOAD_KEY. */
export async function schedulesCommand(config: Config, [action]: string[]) {
  if (action !== 'reseal') throw new Error('usage: neoflow schedules reseal (see neoflow --help)');
  const payloadKey = requireSetting(config.secrets.payloadKey, 'NEOFLOW_PAYLOAD_KEY');
  const previousPayloadKeys = config.secrets.previousPayloadKeys;
  const { connection, client } = await connectTemporal({
    address: requireSetting(config.temporal.address, 'TEMPORAL_ADDRESS'),
    namespace: config.temporal.namespace,
    payloadKey,
    previousPayloadKeys,
    security: config.temporal.security,
  });
  try {
    const { checked, resealed } = await resealSchedules(client, new EncryptionCodec(payloadKey, previousPayloadKeys));
    process.stdout.write(`sealed ${resealed.length} of ${checked} schedules again under the current payload key\n`);
  } finally {
    await connection.close();
  }
}
