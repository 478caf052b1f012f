import type { Config } from '../config.ts';
import type { Options } from './options.ts';
import { untilSignal } from './signals.ts';

// Commands load their modules on demand: `keys list` should not pay for the Temporal worker.

export const usage = `Usage: neoflow <command>

  up                      start the whole stack (embedded services unless configured)
  api                     run the API (needs DATABASE_URL, TEMPORAL_ADDRESS, NEO_RPC_URL)
  worker                  run a Temporal worker (needs TEMPORAL_ADDRESS)
  migrate                 apply pending database migrations
  keys create --account <name> [--scopes a,b] [--rate 100/10s]
                          create an API key (the key alone is the last line of output);
                          --rate overrides NEOFLOW_RATE_LIMIT for this key
  keys list --account <name>
  keys revoke <keyId>
  secrets rotate-master   re-wrap the data keys of secrets, signers, results, stored values and kept
                          idempotent answers under NEOFLOW_MASTER_KEY (old keys in NEOFLOW_PREVIOUS_MASTER_KEYS until it is done)
  schedules reseal        seal the payloads every schedule stores again under NEOFLOW_PAYLOAD_KEY
                          (old keys in NEOFLOW_PREVIOUS_PAYLOAD_KEYS meanwhile; docs/deployment.md)
  fn run <file.js|ts> [--params JSON] [--env K=V]... [--secret NAME=VALUE]... [--allow-host HOST]...
         [--storage FILE.json] [--rpc URL] [--timeout S] [--execute JSON [--signer ADDRESS]]
                          run a function once in the service's sandbox and print its outcome as JSON
                          (exit 1 if it failed); --rpc defaults to the local stack's neo-go node;
                          --execute reads the result as a sending action's decision and prints its
                          calls (with --rpc, their test invocation as --signer), sending nothing;
                          --storage seeds context.storage from a JSON object of key to value and
                          writes it back when the run completes
  fn deploy <file.js|ts> --name <name> [--secrets A,B] [--env K=V]... [--allowed-hosts H1,H2]
                          create the account's function of that name from the file, or update it
                          (--env, --secrets, --allowed-hosts replace the function's when given); prints its id
                          and version; talks to NEOFLOW_API_URL with NEOFLOW_API_KEY
`;

export async function runCommand(config: Config, [command, ...rest]: string[], options: Options) {
  switch (command) {
    case 'up':
      return runUp(config);
    case 'api':
      return runApi(config);
    case 'worker':
      return (await import('../../worker/main.ts')).runWorker(config);
    case 'migrate':
      return runMigrate(config);
    case 'keys':
      return (await import('./keys.ts')).keysCommand(config, rest, options);
    case 'secrets':
      return (await import('./secrets.ts')).secretsCommand(config, rest);
    case 'schedules':
      return (await import('./schedules.ts')).schedulesCommand(config, rest);
    case 'fn': {
      if (rest[0] === 'deploy')
        return (await import('./fn-deploy.ts')).fnDeployCommand(config, rest[1], options.deploy);
      const failed = (await (await import('./fn-run.ts')).fnRunCommand(config, rest, options.fn)) !== 0;
      if (failed) process.exitCode = 1;
      return;
    }
    default:
      throw new Error(`unknown command "${command}"; run neoflow --help`);
  }
}

async function runMigrate(config: Config) {
  const [{ withCliOrm }, { migrate }, { masterKeysIfSet }] = await Promise.all([
    import('./database.ts'),
    import('../db.ts'),
    import('../crypto/master-keys.ts'),
  ]);
  const applied = await withCliOrm(config, (orm) => migrate(orm, masterKeysIfSet(config)));
  process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'no pending migrations\n');
}

async function runUp(config: Config) {
  const stack = await (await import('../stack/up.ts')).up(config);
  process.stdout.write(`\nNeoflow is up: API ${stack.apiUrl}/v1  ·  Ctrl-C stops everything\n`);
  const signal = await untilSignal();
  process.stdout.write(`\nneoflow: ${signal}, stopping...\n`);
  await stack.stop();
  process.stdout.write('neoflow: stopped\n');
  process.exit(0);
}

async function runApi(config: Config) {
  await (await import('./api-process.ts')).runApiProcess(config);
}
