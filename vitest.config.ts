import { defineConfig } from 'vitest/config';

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
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          execArgv: ['--no-node-snapshot'],
          globalSetup: ['test/setup/services.ts'],
          setupFiles: ['test/setup/answer-drifts.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
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
