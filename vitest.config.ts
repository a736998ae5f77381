import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test-support/fresh-build.ts', './test-support/private-state.ts', './test-support/leak-guard.ts'],
    // Real-process tests on a 2-core machine: keep the pressure predictable.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['packages/*/test/**/*.test.ts', 'apps/cli/test/**/*.test.ts', 'apps/desktop/test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['apps/renderer/test/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
