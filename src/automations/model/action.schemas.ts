import { z } from 'zod';
import { integerIn } from '../../wire/integer-in.ts';
import { templatedContractArgs } from './arg-templates.ts';
import { webhookTarget } from './notify.schemas.ts';
import { scriptHash, text, unionError } from './field.schemas.ts';
import { approvalSchema } from './approval.schemas.ts';

/** How many calls a sending function may decide in one run: the most, and the default bound. */
const maxDecidedCalls = 16;
const maxAllowedContracts = 16;

/**
 * The signer an action that sends signs with: a signer's name or id (src/signers), `default` when
 * left out. Stored as the automation's `signerId`, not in its action; answered as the id.
 */
const signerRef = text(255).describe(
  "The signer that signs the action's transactions: its name or id (`sgn_…`); `default` when left out. Answered as its id.",
);

/**
 * What a function action may send: the calls its function decides (docs/functions.md), each to
 * one of `allowedContracts`, at most `maxCalls` of them, joined into one transaction.
 */
export const executeSchema = z
  .strictObject({
    allowedContracts: z
      .array(scriptHash, { error: 'must be an array of contract script hashes' })
      .min(1, 'must name at least one contract')
      .max(maxAllowedContracts, `must name at most ${maxAllowedContracts} contracts`)
      .refine(
        (hashes) => new Set(hashes.map((hash) => hash.toLowerCase())).size === hashes.length,
        'must name each contract once',
      ),
    maxCalls: integerIn(1, maxDecidedCalls).default(4),
  })
  .meta({ id: 'ExecuteRules' });

const functionAction = z
  .strictObject({
    type: z.literal('function'),
    functionId: text(255),
    /** Pins the function's version the action runs; without it, the function's current one. */
    functionVersion: integerIn(1, 999_999_999).optional(),
    parameters: z.record(z.string(), z.unknown(), { error: 'must be an object' }).default({}),
    execute: executeSchema.optional(),
    /** Only with `execute`: a function that decides no calls signs nothing. */
    signer: signerRef.optional(),
    /** Only with `execute`: approvals its runs wait for before they sign. */
    approval: approvalSchema.optional(),
  })
  .meta({ id: 'FunctionAction' });

const contractAction = z
  .strictObject({
    type: z.literal('contract'),
    scriptHash,
    operation: text(64),
    // A value may be a template of the trigger, resolved at fire time (arg-templates.ts).
    args: templatedContractArgs()
      .describe(
        'At most 16 {type, value} arguments (Hash160, Integer, String, Boolean, ByteArray, Hash256, PublicKey, Array, Any), of at most 4,096 bytes as JSON. ' +
          'A value may be exactly a template {{trigger.<path>}} (e.g. {{trigger.state.amount}}), resolved against what fired the run and then checked as a static value; see docs/api.md.',
      )
      .default([]),
    signer: signerRef.optional(),
    approval: approvalSchema.optional(),
  })
  .meta({ id: 'ContractAction' });

/** POSTs what fired the run to a URL of the tenant's, signed with one of its secrets. */
const webhookAction = z.strictObject({ type: z.literal('webhook'), ...webhookTarget }).meta({ id: 'WebhookAction' });

export const actionSchema = z
  .discriminatedUnion('type', [functionAction, contractAction, webhookAction], {
    error: unionError('function, contract or webhook'),
  })
  .meta({ id: 'Action' });

/** Whether an action's runs sign and send transactions, paid by the account's signer. */
export const sendsTransactions = (action: Action) =>
  action.type === 'contract' || (action.type === 'function' && action.execute !== undefined);

/** The approvals a run of the action waits for before it signs; none for an action that sends nothing. */
export const approvalOf = (action: Action) =>
  action.type !== 'webhook' && sendsTransactions(action) ? action.approval : undefined;

export type Action = z.infer<typeof actionSchema>;
export type FunctionAction = z.infer<typeof functionAction>;
export type ExecuteRules = z.infer<typeof executeSchema>;
