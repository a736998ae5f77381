/**
 * Shared test helpers (stable API; other suites import these):
 * - `waitFor(predicate, { timeoutMs, intervalMs, description })`: poll against a deadline.
 * - `useProcessTracker()` / `createProcessTracker()`: record every pid, group and env marker a
 *   test starts; cleanup SIGKILLs them by recorded identity after each test.
 * - `spawnFixture(tracker, name, args, { detached, env, cwd })` + `readReportedPids(...)`: run a
 *   fixture from packages/engine/fixtures and read the pids it and its descendants report.
 * - `createFakeWorld` / `createFakeSignals`: injected tables and signals for what this machine
 *   cannot produce (macOS EPERM, exact races).
 */
export * from './fake-world.js';
export * from './fixtures.js';
export * from './past-run.js';
export * from './process-tracker.js';
export * from './wait-for.js';
