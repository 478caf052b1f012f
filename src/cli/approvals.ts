import type { Config } from '../config.ts';
import { gasText } from '../chain/gas-amount.ts';
import { apiOf, expectStatus, listAll, type Api } from './api-client.ts';

interface AutomationItem {
  id: string;
  name: string;
  action: { approval?: unknown };
}

interface PendingRun {
  id: string;
  approval: {
    status: string;
    required: number;
    approvals: unknown[];
    fees: { systemFee: string; networkFee: string };
    deadline: string;
    calls: { scriptHash: string; operation: string }[];
  };
}

const usage =
  'usage: neoflow approvals list [<automationId>] | approve <automationId> <runId> | reject <automationId> <runId>';

/**
 * `neoflow approvals`: the runs waiting for approvals before they sign, and a key's decision on
 * one, through the API with NEOFLOW_API_KEY (docs/api.md, "Approvals"). `list` reads the
 * automations whose action asks for approvals (or the one named) and their running runs.
 */
export async function approvalsCommand(config: Config, [action, automationId, runId]: string[]) {
  if (action === 'list') {
    const api = apiOf(config, 'approvals list', 'automations:read');
    const lines = await pendingLines(api, automationId);
    process.stdout.write(
      lines.length === 0 ? 'no runs waiting for approvals\n' : lines.map((line) => `${line}\n`).join(''),
    );
    return;
  }
  if ((action !== 'approve' && action !== 'reject') || !automationId || !runId) throw new Error(usage);
  const api = apiOf(config, `approvals ${action}`, 'approvals:write');
  const path = `/v1/automations/${encodeURIComponent(automationId)}/runs/${encodeURIComponent(runId)}/${action}`;
  const run = (await expectStatus(api('POST', path), 200, `${action} ${runId}`)) as unknown as PendingRun & {
    status: string;
  };
  const { approval } = run;
  process.stdout.write(
    `${action === 'approve' ? 'approved' : 'rejected'} ${runId}: approval ${approval.status} (${approval.approvals.length}/${approval.required}), run ${run.status}\n`,
  );
}

async function pendingLines(api: Api, only: string | undefined): Promise<string[]> {
  const automations = only
    ? [{ id: only, name: '' }]
    : (await listAll<AutomationItem>(api, '/v1/automations', (body) => body.automations)).filter(
        (automation) => automation.action.approval !== undefined,
      );
  const lines: string[] = [];
  for (const automation of automations) {
    const runs = await listAll<PendingRun>(
      api,
      `/v1/automations/${encodeURIComponent(automation.id)}/runs?status=running`,
      (body) => body.runs,
    );
    for (const run of runs.filter((item) => item.approval?.status === 'pending')) {
      const { approval } = run;
      const fee = gasText(BigInt(approval.fees.systemFee) + BigInt(approval.fees.networkFee));
      const calls = approval.calls.map((call) => `${call.scriptHash}.${call.operation}`).join(', ');
      const name = automation.name ? ` (${automation.name})` : '';
      lines.push(
        `${automation.id}${name}  ${run.id}  ${approval.approvals.length}/${approval.required} approved  fee ${fee} GAS  until ${approval.deadline}  ${calls}`,
      );
    }
  }
  return lines;
}
