import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test-support/fresh-build.ts', './test-support/private-state.ts', './test-support/leak-guard.ts'],
    // Real-process tests on a 2-core machine: keep the pressure predictable (a third worker made
    // 1 s run timeouts fire before their fixtures started, under load).
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          // Each file re-evaluating the engine's module graph was a third of the suite's CPU. Node
          // tests share no mutable module state they do not reset, so a worker keeps its modules.
          isolate: false,
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
