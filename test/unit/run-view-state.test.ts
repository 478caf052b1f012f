import { describe, expect, it } from 'vitest';
import { maxShownStateChars, runSchema, runView } from '../../src/automations/automation.view.ts';
import type { AutomationRun, FirePayload } from '../../src/automations/model/run.entity.ts';

const blockchainRun = (state: unknown) =>
  ({
    id: 'run_x',
    network: 'default',
    status: 'success',
    startedAt: new Date(0),
    completedAt: new Date(5),
    duration: 5,
    trigger: {
      type: 'blockchain',
      scriptHash: '0xd2a4cff31913016155e38e474a2c06d08be276cf',
      eventName: 'Transfer',
      state,
      txHash: '0xaa',
      blockHash: '0xbb',
      blockIndex: 7,
      notificationIndex: 0,
    } satisfies FirePayload,
    retryOf: null,
    executionId: null,
    skipped: null,
    calls: null,
    error: null,
  }) as unknown as AutomationRun;

describe("a blockchain run's trigger record", () => {
  it("holds the event's decoded arguments, storable, in the schema the runs API answers with", () => {
    const shown = runView(blockchainRun({ from: '0x01', to: '0x02', amount: '7', memo: 'a\u0000b' }));
    expect(shown.trigger).toMatchObject({ state: { from: '0x01', to: '0x02', amount: '7', memo: 'a\uFFFDb' } });
    expect(runSchema.parse(shown)).toEqual(shown);
  });

  it('answers null arguments that could not be decoded as null', () => {
    expect(runView(blockchainRun(null)).trigger).toMatchObject({ state: null });
  });

  it('leaves out arguments over the bound, saying so', () => {
    const shown = runView(blockchainRun({ data: 'x'.repeat(maxShownStateChars) })).trigger;
    expect(shown).not.toHaveProperty('state');
    expect(shown).toMatchObject({ stateTooLarge: true });
    expect(runSchema.shape.trigger.parse(shown)).toEqual(shown);
  });
});
