import type { Config } from '../config.ts';
import { createNeoRpc } from '../chain/rpc.ts';
import { egressPolicy } from '../egress/egress-policy.ts';
import { functionFetch } from '../functions/function-fetch.ts';
import { sandboxServices } from '../functions/sandbox-services.ts';
import { createFunctionBody } from '../functions/functions.schemas.ts';
import { runInSandbox } from '../sandbox/sandbox.ts';
import { validateFunctionCode } from '../sandbox/validate.ts';
import { parseExecute, parseSigner, printedDecision } from './fn-run-decision.ts';
import { localStorage } from './fn-run-storage.ts';
import { pairs, readFunctionFile } from './function-file.ts';
import type { FnRunOptions } from './options.ts';
import { executionStatus } from '../shared/outcomes.ts';

const defaultTimeoutSeconds = 30;

/**
 * `neoflow fn run <file.js|file.ts>`: runs the file once (a `.ts` file as runtime `typescript`) in the service's own sandbox (the same context,
 * limits and errors as an invocation) and prints `{status, result | error, logs, durationMs}` as
 * JSON. Secrets given with `--secret` are granted to the run and masked in its logs and error as
 * the service masks them. `--allow-host` lists the function's `allowedHosts`: its `fetch` goes
 * through the same egress guard, under this process's NEOFLOW_EGRESS_ALLOW. With `--execute`, the result is also read as the decision of a function
 * action with that `execute`, printed as `decision` (fn-run-decision.ts). With `--storage`, the
 * run's store is the file's (fn-run-storage.ts), and the keys it read and wrote are printed as
 * `storage`. Exit code 1 when the run failed, or its decision would fail a run.
 */
export async function fnRunCommand(config: Config, [sub, file]: string[], options: FnRunOptions): Promise<number> {
  if (sub !== 'run' || !file)
    throw new Error(
      'usage: neoflow fn run <file.js|file.ts> [--params JSON] [--env K=V]… [--secret NAME=VALUE]… [--allow-host HOST]… [--storage FILE.json] [--rpc URL] [--timeout S] [--execute JSON [--signer ADDRESS]]',
    );
  const execute = options.execute === undefined ? undefined : parseExecute(options.execute);
  const signer = options.signer === undefined ? undefined : parseSigner(options.signer);
  const { code, runtime } = await readFunctionFile(file);
  const fields = createFunctionBody.safeParse({
    name: 'local',
    runtime,
    code,
    timeout: options.timeout === undefined ? defaultTimeoutSeconds : Number(options.timeout),
    environment: pairs(options.env, '--env'),
    allowedHosts: options.allowHost ?? [],
  });
  if (!fields.success)
    throw new Error(fields.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; '));
  // What the API refuses at create (400 invalid_function_code), refused here too.
  const typescript = fields.data.runtime === 'typescript';
  const valid = await validateFunctionCode(fields.data.code, typescript, 'local');
  if (!valid.ok) throw new Error(valid.message);
  const rpcUrl = options.rpc ?? config.neo.rpcUrl ?? `http://127.0.0.1:${config.neo.devRpcPort}`;
  const neo = createNeoRpc(rpcUrl);
  const params = parseParams(options.params);
  const local = await localStorage(options.storage);
  const ran = await runInSandbox({
    code: fields.data.code,
    typescript,
    params,
    execution: { id: 'exec_local', startedAt: new Date().toISOString(), functionId: 'func_local' },
    environment: fields.data.environment,
    secrets: Object.entries(pairs(options.secret, '--secret')).map(([name, value]) => ({ name, value })),
    services: sandboxServices(neo, functionFetch(egressPolicy(config.egress), fields.data.allowedHosts)),
    storage: local.storage,
    timeoutMs: fields.data.timeout * 1000,
    memoryLimitMb: config.worker.sandboxMemoryMb,
    maxServiceCalls: config.worker.sandboxServiceCalls,
  });
  const outcome = await local.finish(ran);
  const { status, logs, durationMs } = outcome;
  const keys = local.storage.keys();
  const storage = keys ? { storage: keys } : {};
  if (outcome.status !== executionStatus.completed) {
    process.stdout.write(
      `${JSON.stringify({ status, error: outcome.error, logs, ...storage, durationMs }, null, 2)}\n`,
    );
    return 1;
  }
  // The test invocation only with a node named: without --rpc, the calls are printed alone.
  const test = options.rpc === undefined ? undefined : { neo, signer };
  const decided = execute && (await printedDecision(outcome.result, params, execute, test));
  const printed = {
    status,
    result: outcome.result,
    ...(decided ? { decision: decided.decision } : {}),
    logs,
    ...storage,
    durationMs,
  };
  process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
  return decided?.failed ? 1 : 0;
}

function parseParams(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let params: unknown;
  try {
    params = JSON.parse(text);
  } catch {
    throw new Error('--params must be JSON, e.g. --params \'{"name":"neo"}\'');
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new Error('--params must be a JSON object');
  return params as Record<string, unknown>;
}
