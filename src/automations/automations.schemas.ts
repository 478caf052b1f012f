import { z } from 'zod';
import { integerIn } from '../wire/integer-in.ts';
import { paginationQuery } from '../wire/pagination.ts';
import { budgetSchema } from '../chain/gas-budget.ts';
import { runStatus } from '../shared/outcomes.ts';
import { automationStatuses } from './model/automation-statuses.ts';
import { text } from './model/field.schemas.ts';
import { notifySchema } from './model/notify.schemas.ts';
import { triggerSchema, triggerTypes } from './model/trigger.schemas.ts';
import { actionSchema } from './model/action.schemas.ts';

/** As long as a configured network's name may be (net/neo-networks.ts); whether one is, the service says. */
const networkName = text(32);

const settableStatus = z.enum(['active', 'inactive'], { error: 'must be active or inactive' });

export const createAutomationBody = z
  .strictObject({
    name: text(128),
    /** A configured network's name (NEOFLOW_NETWORKS); absent: the first configured. Checked by the service. */
    network: networkName.optional(),
    status: settableStatus.default('active'),
    trigger: triggerSchema,
    action: actionSchema,
    notify: notifySchema.default([]),
    /** Only for an action that sends (action.schemas.ts sendsTransactions). */
    budget: budgetSchema.optional(),
  })
  .meta({ id: 'AutomationCreate' });

export const updateAutomationBody = z
  .strictObject({
    name: text(128).optional(),
    /** Never changes: the automation's own may be sent again (automations.service.ts assertSameNetwork). */
    network: networkName.optional(),
    status: settableStatus.optional(),
    trigger: triggerSchema.optional(),
    action: actionSchema.optional(),
    notify: notifySchema.optional(),
    /** null: the account's default budget holds again. */
    budget: budgetSchema.nullable().optional(),
    /** With `status: 'active'` of a blockchain automation: where its matching resumes (replays.service.ts). */
    resumeFrom: z
      .union([z.enum(['lastProcessed', 'current']), integerIn(0, 2 ** 31 - 1)], {
        error: "must be 'lastProcessed', 'current' or a block index",
      })
      .optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'body names no field to change' })
  .refine((body) => body.resumeFrom === undefined || body.status === 'active', {
    message: "applies only with status: 'active'",
    path: ['resumeFrom'],
  })
  .meta({ id: 'AutomationUpdate' });

export const listAutomationsQuery = z.strictObject({
  ...paginationQuery(20),
  status: z.enum(automationStatuses, { error: 'must be active, inactive or error' }).optional(),
  triggerType: z
    .enum(triggerTypes, { error: 'must be schedule, blockchain, transaction, price, state or webhook' })
    .optional(),
  network: networkName.optional(),
});

export const listRunsQuery = z.strictObject({
  ...paginationQuery(20),
  status: z
    .enum([runStatus.running, runStatus.success, runStatus.failure], { error: 'must be running, success or failure' })
    .optional(),
});

export type CreateAutomation = z.infer<typeof createAutomationBody>;
export type UpdateAutomation = z.infer<typeof updateAutomationBody>;
export type ListAutomations = z.infer<typeof listAutomationsQuery>;
