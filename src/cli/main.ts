import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { withDevSecrets } from '../dev-secrets.ts';
import { runCommand, usageOf } from './commands.ts';

/** `neoflow <command>`: every failure ends as one line on stderr and a non-zero exit code. */
async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      scopes: { type: 'string' },
      rate: { type: 'string' },
      role: { type: 'string' },
      expires: { type: 'string' },
      params: { type: 'string' },
      env: { type: 'string', multiple: true },
      secret: { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      rpc: { type: 'string' },
      timeout: { type: 'string' },
      execute: { type: 'string' },
      signer: { type: 'string' },
      name: { type: 'string' },
      secrets: { type: 'string' },
      'allowed-hosts': { type: 'string' },
      storage: { type: 'string' },
      file: { type: 'string', short: 'f' },
      'dry-run': { type: 'boolean' },
      prune: { type: 'boolean' },
      'send-secrets': { type: 'boolean' },
      'allow-any-env': { type: 'boolean' },
      'code-dir': { type: 'string' },
      keys: { type: 'string' },
      require: { type: 'string' },
      result: { type: 'string' },
      code: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(usageOf(positionals));
    return;
  }
  const env = withDevSecrets(process.env, { create: positionals[0] === 'up' });
  const { account, scopes, rate, params, env: environment, secret, rpc, timeout, execute, signer, storage } = values;
  const allowHost = values['allow-host'];
  const fn = { params, env: environment, secret, allowHost, rpc, timeout, execute, signer, storage };
  const deploy = {
    name: values.name,
    secrets: values.secrets,
    env: environment,
    allowedHosts: values['allowed-hosts'],
  };
  const asCode = {
    file: values.file,
    dryRun: values['dry-run'] ?? false,
    prune: values.prune ?? false,
    sendSecrets: values['send-secrets'] ?? false,
    anyEnv: values['allow-any-env'] ?? false,
    codeDir: values['code-dir'],
  };
  const keys = { name: values.name, role: values.role, scopes, expiresAt: values.expires };
  const receipts = { keys: values.keys, require: values.require, result: values.result, params, code: values.code };
  await runCommand(loadConfig(env), positionals, { account, scopes, rate, keys, fn, deploy, asCode, receipts });
}

main(process.argv.slice(2)).then(
  () => undefined,
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`neoflow: ${message}\n`);
    if (process.env.NEOFLOW_LOG_LEVEL === 'debug' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
