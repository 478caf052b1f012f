import { defineConfig } from 'vitest/config';

/** The integration projects' settings: real services (test/setup/services.ts), one database a file. */
const integration = {
  include: ['test/integration/**/*.test.ts'],
  execArgv: ['--no-node-snapshot'],
  globalSetup: ['test/setup/services.ts'],
  setupFiles: ['test/setup/answer-drifts.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

/** Integration files run alone (the second integration project below says why). */
const integrationAlone = [
  'test/integration/automations-fair-shares.test.ts',
  'test/integration/functions-fairness.test.ts',
  'test/integration/functions-masking-load.test.ts',
  'test/integration/functions-work-conserving.test.ts',
  'test/integration/replays-per-account.test.ts',
  'test/integration/schedule-listing.test.ts',
  'test/integration/state-trigger-lanes.test.ts',
  'test/integration/temporal-timer-precision.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      // isolated-vm (the function sandbox) needs --no-node-snapshot in every process that loads it.
      {
        test: {
          name: 'unit',
          // The typed client's own tests, compiled with its settings (DOM's fetch types, not Node's).
          include: ['test/unit/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
          execArgv: ['--no-node-snapshot'],
        },
      },
      // The console's own logic (console/), in a DOM of happy-dom, its JSX compiled for Preact.
      {
        oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
        test: {
          name: 'console',
          include: ['console/test/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
        },
      },
      // Two files at a time: most of an integration file's time is spent waiting (blocks, timers,
      // polls), not on CPU, and vitest's default of a worker per core but one leaves one at a time
      // on two cores. Each file has its own database and task queue (test/support/temporal.ts) on
      // the shared PostgreSQL, Temporal and chain. A group of its own: projects run together must
      // have the same maxWorkers, and unit's is the machine's cores but one.
      {
        test: {
          ...integration,
          name: 'integration',
          exclude: integrationAlone,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      // Files that cannot share the machine, one at a time after the others (vitest runs a project
      // of one worker in the last group): they bound latencies and shares of a loaded worker, the
      // shared Temporal's timer precision, or read every schedule of its namespace.
      {
        test: {
          ...integration,
          name: 'integration-alone',
          include: integrationAlone,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/setup/stack.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
