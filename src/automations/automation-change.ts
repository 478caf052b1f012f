import { budgetValues, changeSummary } from '../audit/summary.ts';
import type { CreateAutomation, UpdateAutomation } from './automations.schemas.ts';

/**
 * The audit log shows an automation's name, status, network and its trigger's and action's types;
 * a trigger, an action, notification rules or a budget are named as changed, never shown (they
 * hold URLs, headers, templates and arguments).
 */
export const automationChange = (id: string, input: Partial<CreateAutomation> | UpdateAutomation) => ({
  resource: { type: 'automation' as const, id },
  summary: changeSummary(input, ['name', 'status', 'network'], {
    ...(input.trigger && { 'trigger.type': input.trigger.type }),
    ...(input.action && { 'action.type': input.action.type }),
    ...budgetValues(input.budget),
  }),
});
