import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/env';

const chromium = {
  browserName: 'chromium' as const,
  launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
};

export default defineConfig({
  testDir: './specs',
  globalSetup: './support/global-setup.ts',
  // One worker: every spec talks to the same host, and the machine has two cores.
  workers: 1,
  fullyParallel: false,
  // In CI a failed test runs once more: a real regression fails twice, while a one-off race under
  // the unit suite's load (the lanes overlap) no longer throws away a stop's work. Playwright then
  // reports it as "flaky", and `npm test` repeats those lines above its summary: it is noted, not hidden.
  retries: process.env.CI ? 1 : 0,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  outputDir: './test-results',
  use: { viewport: { width: 1440, height: 900 }, trace: 'off', screenshot: 'off', video: 'off' },
  projects: [
    { name: 'chromium', use: chromium },
    // The same specs in the desktop app; the `app` fixture skips them where no Electron binary exists.
    { name: 'electron', use: chromium },
  ],
});
