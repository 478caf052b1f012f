import type { ReceiptsOptions } from './receipts.ts';

/** The flags a command line may carry besides its positional arguments (bin/neoflow.js parses them). */
export interface Options {
  account: string | undefined;
  scopes: string | undefined;
  rate: string | undefined;
  keys: KeysOptions;
  fn: FnRunOptions;
  deploy: FnDeployOptions;
  asCode: AsCodeOptions;
  receipts: ReceiptsOptions;
}

/** `neoflow keys create`'s flags for a key made through the API (src/cli/keys-api.ts). */
export interface KeysOptions {
  name: string | undefined;
  role: string | undefined;
  /** Comma-separated scopes, when no role is given. */
  scopes: string | undefined;
  /** An ISO 8601 time after which the key is refused. */
  expiresAt: string | undefined;
}

/** `neoflow export` and `neoflow apply`'s flags (docs/automations-as-code.md). */
export interface AsCodeOptions {
  /** `apply -f`: the neoflow.yaml to apply. */
  file: string | undefined;
  /** `apply`: show the plan, change nothing. */
  dryRun: boolean;
  /** `apply`: delete what the account holds and the file does not. */
  prune: boolean;
  /** `apply`: send the values of secrets and credentials the file gives, even where no change shows. */
  sendSecrets: boolean;
  /** `apply`: read any environment variable the file names, not only NEOFLOW_SECRET_… and NEOFLOW_CREDENTIAL_…. */
  anyEnv: boolean;
  /** `export`: write functions' code to files of this folder rather than inline. */
  codeDir: string | undefined;
}

/** `neoflow fn deploy`'s flags besides `--env`, which `fn run` shares. */
export interface FnDeployOptions {
  name: string | undefined;
  /** Comma-separated names of the account's secrets to grant; unset keeps what an update had. */
  secrets: string | undefined;
  env: string[] | undefined;
  /** Comma-separated hosts (or `*.suffix`) the function may fetch from; unset keeps an update's. */
  allowedHosts: string | undefined;
}

/** `neoflow fn run`'s flags: `--env`, `--secret` and `--allow-host` may repeat. */
export interface FnRunOptions {
  params: string | undefined;
  env: string[] | undefined;
  secret: string[] | undefined;
  /** The function's `allowedHosts`, one host (or `*.suffix`) a flag. */
  allowHost: string[] | undefined;
  rpc: string | undefined;
  timeout: string | undefined;
  /** JSON: read the result as the decision of a function action with this `execute`. */
  execute: string | undefined;
  /** The address whose signature the decided calls' test invocation assumes. */
  signer: string | undefined;
  /** A JSON file of key to value: the run's store, written back when the run completes. */
  storage: string | undefined;
}
