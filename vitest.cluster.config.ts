import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster`: the compose deployment's processes on one machine, under load and
 * kills. Its own run, after the others: it needs the machine's two cores to itself.
 */
export default defineConfig({
  test: {
    name: 'cluster',
    include: ['test/cluster/**/*.test.ts'],
    globalSetup: ['test/setup/cluster.ts'],
    testTimeout: 1_200_000,
    hookTimeout: 1_800_000,
  },
});
