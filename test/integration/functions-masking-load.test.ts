import { beforeAll, describe, expect, it } from 'vitest';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// The API and its own worker run in this process: a run masked here stalls its requests if masking does.
const running = apiWithWorkerForThisFile();
let asLogger: ApiCall;
let asOther: ApiCall;
beforeAll(async () => {
  asLogger = testApi(running.api.url, (await issueKey(running.api.database.orm)).key);
  asOther = testApi(running.api.url, (await issueKey(running.api.database.orm)).key);
});

const timeoutS = 60;
const oneChar = { name: 'a'.repeat(128), value: 'a' };
const big = { name: 'a'.repeat(127) + 'B', value: 'b'.repeat(64 * 1024) };

async function deploy(call: ApiCall, body: Record<string, unknown>): Promise<string> {
  const created = await call('POST', '/functions', { runtime: 'node18', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id as string;
}

describe('masking bounded by what the run sends', () => {
  it("runs a function granted a 1-character and a 64 KiB secret that logs 1,000 lines of matches within its timeout, while another account's invokes answer under 500 ms", async () => {
    for (const secret of [oneChar, big]) {
      const created = await asLogger('POST', '/secrets', secret);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    // Every line is as long as the isolate sends (4 KiB and the longest value): all 'a's, or the
    // 64 KiB value and 4 KiB of 'a's. Each 'a' would become a marker whose name is all 'a's.
    const logger = await deploy(asLogger, {
      name: 'logger',
      timeout: timeoutS,
      secrets: [oneChar.name, big.name],
      code: `module.exports = async ({ log, secrets }) => {
        const value = secrets['${big.name}'];
        for (let i = 0; i < 1000; i++) log.info(i % 2 ? value + 'a'.repeat(4096) : 'a'.repeat(70000));
        return 'done';
      };`,
    });
    const noop = await deploy(asOther, { name: 'noop', code: 'module.exports = async (c) => c.params.x + 1;' });
    // Warm: the other account's first invoke pays for its key's first check and the function's first load.
    expect((await asOther('POST', `/functions/${noop}/invoke`, { params: { x: 0 } })).status).toBe(200);

    const invoked = await asLogger('POST', `/functions/${logger}/invoke`, { async: true });
    expect(invoked.status).toBe(202);
    const executionId = invoked.body.data.execution.id as string;
    const read = () => asLogger('GET', `/functions/${logger}/executions/${executionId}`);

    // The other account invokes without pause from the logger's start until after its end is
    // stored (what the host does with the run's output, its end statement included, falls inside).
    let ended = false;
    const watching = until(read, (answer) => answer.body.data.status !== 'running', 60_000).then(() => {
      ended = true;
    });
    const durations: number[] = [];
    for (let x = 0, after = 0; after < 3 && x < 2000; x++) {
      if (ended) after++;
      const began = performance.now();
      const answer = await asOther('POST', `/functions/${noop}/invoke`, { params: { x } });
      durations.push(performance.now() - began);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data.result).toBe(x + 1);
    }
    await watching;
    console.log(
      `[masking] run ${(await read()).body.data.duration} ms, ${durations.length} invokes of another account, slowest ${Math.max(...durations).toFixed(0)} ms: ${durations.map((d) => d.toFixed(0)).join(' ')}`,
    );
    expect(Math.max(...durations)).toBeLessThan(500);

    const execution = (await until(read, (answer) => answer.body.data.status !== 'running', 30_000)).body.data;
    expect(execution.status, JSON.stringify(execution.error)).toBe('completed');
    expect(execution.duration).toBeLessThan(timeoutS * 1000);
    expect(execution.result).toBe('done');
    const logs = execution.logs as { message: string }[];
    expect(logs).toHaveLength(1000);
    expect(logs[0]!.message).toBe('a'.repeat(4096));
    expect(logs[1]!.message).toBe(`[secret:${big.name}]${'a'.repeat(4096 - big.name.length - 9)}`);
  }, 180_000);
});
