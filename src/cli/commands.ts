import type { Config } from '../config.ts';
import type { Options } from './options.ts';
import { untilSignal } from '../app/signals.ts';

// Commands load their modules on demand: `keys list` should not pay for the Temporal worker.

/**
 * Each command's usage, by the words that name it: `neoflow <words> --help` prints the entries
 * those words name, `neoflow --help` all of them.
 */
export const commandUsages: { command: string; usage: string }[] = [
  { command: 'up', usage: 'up                      start the whole stack (embedded services unless configured)' },
  { command: 'api', usage: 'api                     run the API (needs DATABASE_URL, TEMPORAL_ADDRESS, NEO_RPC_URL)' },
  { command: 'worker', usage: 'worker                  run a Temporal worker (needs TEMPORAL_ADDRESS)' },
  { command: 'migrate', usage: 'migrate                 apply pending database migrations' },
  {
    command: 'keys create',
    usage: `keys create --name <name> (--role <role> | --scopes a,b) [--expires <ISO time>]
                          create a key of NEOFLOW_API_KEY's account through the API (needs keys:admin;
                          the key alone is the last line of output)
       keys create --account <name> [--scopes a,b] [--rate 100/10s]
                          create an account's first key in the server's database (DATABASE_URL);
                          --rate overrides NEOFLOW_RATE_LIMIT for this key`,
  },
  {
    command: 'keys list',
    usage: `keys list [--account <name>]
                          the account's keys through the API, or with --account from the database`,
  },
  {
    command: 'keys revoke',
    usage: `keys revoke <keyId>     revoke a key through the API with NEOFLOW_API_KEY, or in the database
                          when NEOFLOW_API_KEY is unset`,
  },
  {
    command: 'secrets rotate-master',
    usage: `secrets rotate-master   re-wrap the data keys of secrets, signers, results, stored values and kept
                          idempotent answers under NEOFLOW_MASTER_KEY (old keys in NEOFLOW_PREVIOUS_MASTER_KEYS until it is done)`,
  },
  {
    command: 'schedules reseal',
    usage: `schedules reseal        seal the payloads every schedule stores again under NEOFLOW_PAYLOAD_KEY
                          (old keys in NEOFLOW_PREVIOUS_PAYLOAD_KEYS meanwhile; docs/deployment.md)`,
  },
  {
    command: 'fn run',
    usage: `fn run <file.js|ts> [--params JSON] [--env K=V]... [--secret NAME=VALUE]... [--allow-host HOST]...
         [--storage FILE.json] [--rpc URL] [--timeout S] [--execute JSON [--signer ADDRESS]]
                          run a function once in the service's sandbox and print its outcome as JSON
                          (exit 1 if it failed); --rpc defaults to the local stack's neo-go node;
                          --execute reads the result as a sending action's decision and prints its
                          calls (with --rpc, their test invocation as --signer), sending nothing;
                          --storage seeds context.storage from a JSON object of key to value and
                          writes it back when the run completes`,
  },
  {
    command: 'fn deploy',
    usage: `fn deploy <file.js|ts> --name <name> [--secrets A,B] [--env K=V]... [--allowed-hosts H1,H2]
                          create the account's function of that name from the file, or update it
                          (--env, --secrets, --allowed-hosts replace the function's when given); prints its id
                          and version; talks to NEOFLOW_API_URL with NEOFLOW_API_KEY`,
  },
  {
    command: 'export',
    usage: `export [--account <name>] [--code-dir DIR] > neoflow.yaml
                          write the key's account as a neoflow.yaml: its functions (code inline, or in
                          files of DIR), automations and the names of its secrets, never a secret's or a
                          credential's value (docs/automations-as-code.md); NEOFLOW_API_URL, NEOFLOW_API_KEY`,
  },
  {
    command: 'apply',
    usage: `apply -f neoflow.yaml [--dry-run] [--prune] [--send-secrets] [--allow-any-env] [--account <name>]
                          show what applying the file changes, field by field, then apply it through the
                          API (resources matched by name); --dry-run only shows it; --prune deletes what
                          the file does not hold; secrets' and credentials' values come from files below
                          the file's folder or NEOFLOW_SECRET_* and NEOFLOW_CREDENTIAL_* variables (any
                          with --allow-any-env), never printed; --send-secrets sends them even where no
                          change shows (docs/automations-as-code.md)`,
  },
  {
    command: 'approvals list',
    usage: `approvals list [<automationId>]
                          the runs waiting for approvals before they sign, one a line: automation,
                          run, approvals given, fee, deadline and calls (NEOFLOW_API_URL, NEOFLOW_API_KEY)`,
  },
  {
    command: 'approvals approve',
    usage: `approvals approve <automationId> <runId>
                          approve a waiting run as NEOFLOW_API_KEY (a key with approvals:write that neither
                          created nor last changed the automation; docs/api.md, "Approvals")`,
  },
  {
    command: 'approvals reject',
    usage: `approvals reject <automationId> <runId>
                          reject a waiting run: it ends ApprovalRejected, nothing signed`,
  },
  {
    command: 'receipts key',
    usage: `receipts key            make a receipt key: prints NEOFLOW_RECEIPT_KEY and its public key (docs/security.md)`,
  },
  {
    command: 'receipts verify',
    usage: `receipts verify <executionId> [--keys URL|FILE] [--require signed|tee]
                          check the execution's receipt against its row as stored (DATABASE_URL): every hash
                          rebuilt, the signature against the deployment's receipt keys (or those at --keys, as
                          GET /v1/receipt-keys answers them); prints the claim that holds; exit 1 if one fails
  receipts verify <receipt.json> [--keys URL|FILE] [--result F] [--params F] [--code F] [--require signed|tee]
                          offline, no database: check a receipt as GET …/executions/{id}/receipt answers it:
                          the preimage rebuilt from its fields, the signature against --keys (unset,
                          NEOFLOW_API_URL's /v1/receipt-keys), the result, params (JSON) and code files
                          against their hashes; prints the claim and each value that holds; exit 1 naming
                          the first that fails`,
  },
  {
    command: 'fn hash',
    usage: `fn hash <file.js|ts>      print the code hash a receipt carries for this file (a contract pins it)`,
  },
  ...(['functions', 'automations', 'secrets'] as const).flatMap((kind) => [
    {
      command: `${kind} list`,
      usage: `${`${kind} list`.padEnd(24)}the account's ${kind}, one a line (NEOFLOW_API_URL, NEOFLOW_API_KEY)`,
    },
    {
      command: `${kind} get`,
      usage: `${kind} get <name|id>\n${' '.repeat(26)}one of them as the API answers it, as JSON${kind === 'secrets' ? ' (never its value)' : ''}`,
    },
  ]),
];

/** The usage of the command `words` name (or of every command); unknown words are an error. */
export function usageOf(words: string[]): string {
  const named = commandUsages.filter(({ command }) => {
    const parts = command.split(' ');
    return words.slice(0, parts.length).every((word, index) => word === parts[index]);
  });
  if (named.length === 0) throw new Error(`unknown command "${words.join(' ')}"; run neoflow --help`);
  return `Usage: neoflow <command>\n\n${named.map(({ usage }) => `  ${usage}\n`).join('')}`;
}

/**
 * `keys` works through the API (scoped by the caller's key, recorded by the API) unless `--account`
 * names an account in the server's database: how an operator makes an account's first key. A revoke
 * names no account, so it goes through the API when a key is set.
 */
function keysThroughApi(config: Config, action: string | undefined, options: Options): boolean {
  if (options.account !== undefined) return false;
  return action !== 'revoke' || config.client.apiKey !== undefined;
}

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
      return keysThroughApi(config, rest[0], options)
        ? (await import('./keys-api.ts')).keysOverApi(config, rest, options.keys)
        : (await import('./keys.ts')).keysCommand(config, rest, options);
    case 'secrets':
      if (rest[0] === 'list' || rest[0] === 'get')
        return (await import('./resources.ts')).resourceCommand(config, command, rest);
      return (await import('./secrets.ts')).secretsCommand(config, rest);
    case 'functions':
    case 'automations':
      return (await import('./resources.ts')).resourceCommand(config, command, rest);
    case 'export':
      return (await import('./as-code-commands.ts')).exportCommand(config, options.account, options.asCode);
    case 'apply':
      return (await import('./as-code-commands.ts')).applyCommand(config, options.account, options.asCode);
    case 'receipts':
      return (await import('./receipts.ts')).receiptsCommand(config, rest, options.receipts);
    case 'schedules':
      return (await import('./schedules.ts')).schedulesCommand(config, rest);
    case 'approvals':
      return (await import('./approvals.ts')).approvalsCommand(config, rest);
    case 'fn': {
      if (rest[0] === 'deploy')
        return (await import('./fn-deploy.ts')).fnDeployCommand(config, rest[1], options.deploy);
      if (rest[0] === 'hash') return (await import('./fn-hash.ts')).fnHashCommand(rest[1]);
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
    import('../orm.ts'),
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
  await (await import('../app/main.ts')).runApiProcess(config);
}
