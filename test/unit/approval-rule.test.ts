import { describe, expect, it } from 'vitest';
import { actionSchema } from '../../src/automations/model/action.schemas.ts';
import { approvalSchema, durationMs } from '../../src/automations/model/approval.schemas.ts';
import { approvalDeadline, needsApproval } from '../../src/automations/approvals/approval-rules.ts';

const contract = { type: 'contract', scriptHash: `0x${'ab'.repeat(20)}`, operation: 'transfer' };
const issuesOf = (value: unknown) => {
  const parsed = approvalSchema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the approval option', () => {
  it('takes 1 to 5 approvals and a timeout from 1 second to 7 days', () => {
    expect(issuesOf({ required: 1, timeout: '1h' })).toEqual([]);
    expect(issuesOf({ required: 5, timeout: '7d' })).toEqual([]);
    expect(issuesOf({ required: 2, timeout: '1s', when: { feeAbove: '0.5' } })).toEqual([]);
    expect(issuesOf({ required: 0, timeout: '1h' })).toEqual(['required: must be an integer from 1 to 5']);
    expect(issuesOf({ required: 6, timeout: '1h' })).toEqual(['required: must be an integer from 1 to 5']);
    for (const timeout of ['8d', '169h', '0s', '1', '1h30m', '1.5h', ' 1h', 'forever', 60, '9'.repeat(20) + 's']) {
      expect(issuesOf({ required: 1, timeout })[0], String(timeout)).toMatch(/^timeout: must be a duration/);
    }
  });

  it('refuses unknown fields, a when with neither or both conditions, and amounts that are no GAS', () => {
    expect(issuesOf({ required: 1, timeout: '1h', extra: true })).toHaveLength(1);
    expect(issuesOf({ required: 1, timeout: '1h', when: {} })).toEqual(['when: must set one of feeAbove or always']);
    expect(issuesOf({ required: 1, timeout: '1h', when: { feeAbove: '1', always: true } })).toEqual([
      'when: must set one of feeAbove or always',
    ]);
    expect(issuesOf({ required: 1, timeout: '1h', when: { always: false } })).toEqual(['when.always: must be true']);
    for (const feeAbove of ['-1', '0', '1e3', '0.123456789', 1]) {
      expect(issuesOf({ required: 1, timeout: '1h', when: { feeAbove } })[0], String(feeAbove)).toMatch(
        /^when\.feeAbove: /,
      );
    }
  });

  it('is part of contract actions and of function actions, and stays with them', () => {
    const approval = { required: 2, timeout: '30m', when: { always: true } };
    expect(actionSchema.parse({ ...contract, approval })).toMatchObject({ approval });
    const fn = { type: 'function', functionId: 'fn_1', execute: { allowedContracts: [contract.scriptHash] }, approval };
    expect(actionSchema.parse(fn)).toMatchObject({ approval });
    const webhook = { type: 'webhook', url: 'https://example.com/', signingSecret: 'S', approval };
    expect(actionSchema.safeParse(webhook).success).toBe(false);
  });

  it('reads a timeout in milliseconds and puts the deadline that far ahead', () => {
    expect(durationMs('2s')).toBe(2_000);
    expect(durationMs('90m')).toBe(5_400_000);
    expect(durationMs('1h')).toBe(3_600_000);
    expect(durationMs('7d')).toBe(604_800_000);
    expect(durationMs('1w')).toBeNull();
    const from = new Date('2026-01-01T00:00:00Z');
    expect(approvalDeadline({ required: 1, timeout: '1h' }, from).toISOString()).toBe('2026-01-01T01:00:00.000Z');
  });
});

describe('whether a run waits for approvals', () => {
  const oneGas = 100_000_000n;

  it('never without the option, always without `when` or with `always`', () => {
    expect(needsApproval(undefined, 10n * oneGas)).toBe(false);
    expect(needsApproval({ required: 1, timeout: '1h' }, 0n)).toBe(true);
    expect(needsApproval({ required: 1, timeout: '1h', when: { always: true } }, 1n)).toBe(true);
  });

  it('with `feeAbove`, only for a fee above it: a cheaper or equal one goes through', () => {
    const rule = { required: 1, timeout: '1h', when: { feeAbove: '1' } };
    expect(needsApproval(rule, oneGas - 1n)).toBe(false);
    expect(needsApproval(rule, oneGas)).toBe(false);
    expect(needsApproval(rule, oneGas + 1n)).toBe(true);
    const fractional = { required: 1, timeout: '1h', when: { feeAbove: '0.00000001' } };
    expect(needsApproval(fractional, 1n)).toBe(false);
    expect(needsApproval(fractional, 2n)).toBe(true);
  });
});
