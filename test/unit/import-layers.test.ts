import { describe, expect, it } from 'vitest';
import { allowedUpward, layerOf, layers, upwardImports, workflowImports } from '../../scripts/check-layers.ts';

const layerName = (path: string) => layers[layerOf(path)]!.name;

describe('the layer check', () => {
  it('places a module by its role: routes above services above the workflows they start, above the worker side', () => {
    expect(layerName('src/functions/functions.routes.ts')).toBe('routes');
    expect(layerName('src/functions/executions.service.ts')).toBe('services');
    expect(layerName('src/automations/triggers.control.ts')).toBe('control');
    expect(layerName('src/functions/run-execution.ts')).toBe('functions');
    expect(layerName('src/crypto/envelope.ts')).toBe('foundation');
    const order = ['src/cli/main.ts', 'src/app/app.ts', 'src/secrets/secrets.routes.ts', 'workflows/run-action.ts'];
    const below = [
      'activities/index.ts',
      'src/automations/runs/run-steps.ts',
      'src/chain/rpc.ts',
      'src/db/storable.ts',
    ];
    const ranks = [...order, ...below].map(layerOf);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it("keeps automations' capabilities over their ground: notifications over credentials over model/", () => {
    const order = [
      'src/automations/blocks/follow-blocks.ts',
      'src/automations/notifications/record.ts',
      'src/automations/credentials/credential-store.ts',
      'src/automations/model/automation.entity.ts',
      'src/functions/run-execution.ts',
    ];
    const ranks = order.map(layerOf);
    expect(new Set(ranks).size).toBe(order.length);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('finds no import running up the layers but the few named, at most five', () => {
    expect(upwardImports().filter((line) => !allowedUpward.has(line))).toEqual([]);
    expect(allowedUpward.size).toBeLessThanOrEqual(5);
  });

  it('finds no import of workflows/ by src/: starters name a workflow by its signature', () => {
    expect(workflowImports()).toEqual([]);
  });
});
