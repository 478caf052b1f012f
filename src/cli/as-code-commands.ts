import type { Config } from '../config.ts';
import { apiOf } from './api-client.ts';
import { readAccountState } from './as-code/account-state.ts';
import { applyPlan } from './as-code/apply-changes.ts';
import { exportFile } from './as-code/export-file.ts';
import { loadNeoflowFile } from './as-code/neoflow-file.ts';
import { planText } from './as-code/plan-text.ts';
import { planChanges } from './as-code/plan.ts';
import type { AsCodeOptions } from './options.ts';

const readScopes = 'functions:read, automations:read, secrets:read and signers:read';

/** `neoflow export`: the key's account as a neoflow.yaml, on stdout. */
export async function exportCommand(config: Config, account: string | undefined, options: AsCodeOptions) {
  const api = apiOf(config, 'export', readScopes);
  const state = await readAccountState(api);
  if (account !== undefined && account !== state.account.name)
    throw new Error(`NEOFLOW_API_KEY is a key of account ${state.account.name}, not of ${account}`);
  process.stdout.write(await exportFile(state, { codeDir: options.codeDir }));
}

/**
 * `neoflow apply -f neoflow.yaml`: shows what applying the file changes, then (unless --dry-run)
 * applies it through the API. The file is checked whole before the API is asked anything.
 */
export async function applyCommand(config: Config, account: string | undefined, options: AsCodeOptions) {
  if (!options.file)
    throw new Error('usage: neoflow apply -f neoflow.yaml [--dry-run] [--prune] [--send-secrets] [--allow-any-env]');
  const file = await loadNeoflowFile(options.file, process.env, { anyEnv: options.anyEnv });
  const api = apiOf(config, 'apply', `${readScopes}, and their :write scopes to change them`);
  const state = await readAccountState(api);
  const expected = account ?? file.account;
  if (expected !== undefined && expected !== state.account.name)
    throw new Error(
      `${options.file} is for account ${expected}, and NEOFLOW_API_KEY is a key of account ${state.account.name}: ` +
        `pass --account ${state.account.name} to apply it there`,
    );
  const plan = planChanges(file, state, { prune: options.prune, sendSecrets: options.sendSecrets });
  process.stdout.write(planText(plan));
  if (options.dryRun || plan.changes.length === 0) return;
  process.stdout.write('\n');
  const functionIds = new Map(state.functions.map(({ name, id }) => [name, id]));
  await applyPlan(api, plan, functionIds, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`Applied ${plan.changes.length} changes.\n`);
}
