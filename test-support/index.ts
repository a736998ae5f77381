/**
 * Shared test helpers for every package's tests (stable API):
 * - `pollUntil(probe, { description, deadlineMs, intervalMs })`: poll against a deadline.
 * - `useProcessTracker()` / `createProcessTracker()`: record every pid, group and env marker a
 *   test starts; cleanup SIGKILLs them by recorded identity after each test.
 * - `spawnFixture(tracker, name, args, { detached, env, cwd })` + `readReportedPids(...)`: run a
 *   fixture from packages/engine/fixtures and read the pids it and its descendants report.
 * - `recordPastRun(...)`: a ledger record of a run that already ended, for orphan tests.
 * Lease-specific helpers (holders, guardians, agent trees) are in ./lease-helpers.ts.
 * Threads that call koffi are tested in node children of their own: ./native-child.ts.
 */
export * from './fixtures.js';
export * from './past-run.js';
export * from './poll-until.js';
export * from './process-tracker.js';
