import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import { executionStatusOfRun, type EndedExecutionStatus, type EndedRunStatus } from './outcomes.ts';

const keyword = (name: string) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);

export const attributeKeys = {
  account: keyword('NeoflowAccountId'),
  function: keyword('NeoflowFunctionId'),
  automation: keyword('NeoflowAutomationId'),
  trigger: keyword('NeoflowTrigger'),
  /** How an execution or an automation run ended, set when its workflow ends: see `endStatus`. */
  status: keyword('NeoflowStatus'),
};

/**
 * One vocabulary for both: `completed`, or `failed` (what an operator may retry), so that one
 * query (`NeoflowStatus = "failed"`) lists every failed execution and run. A run's `success` is
 * `completed`, its `failure` `failed`; an execution deleted with its function is `deleted`.
 */
export function endStatus(status: EndedExecutionStatus | 'deleted' | EndedRunStatus): SearchAttributePair {
  const value = status in executionStatusOfRun ? executionStatusOfRun[status as EndedRunStatus] : status;
  return { key: attributeKeys.status, value };
}

/** What an operator filters on in the Web UI; unset fields are left out. */
interface WorkflowLabels {
  accountId: string;
  trigger: string;
  functionId?: string;
  automationId?: string;
}

/**
 * As plain pairs: JSON that an activity can hand a workflow, which passes it on to the children
 * it starts (workflows build no attributes of their own).
 */
export function labelAttributes(labels: WorkflowLabels): SearchAttributePair[] {
  return [
    { key: attributeKeys.account, value: labels.accountId },
    { key: attributeKeys.trigger, value: labels.trigger },
    ...(labels.functionId ? [{ key: attributeKeys.function, value: labels.functionId }] : []),
    ...(labels.automationId ? [{ key: attributeKeys.automation, value: labels.automationId }] : []),
  ];
}
