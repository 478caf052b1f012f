/** The flags a command line may carry besides its positional arguments (bin/neoflow.js parses them). */
export interface Options {
  account: string | undefined;
  scopes: string | undefined;
  rate: string | undefined;
  fn: FnRunOptions;
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
}
