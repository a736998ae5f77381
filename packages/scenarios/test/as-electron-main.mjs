// Plays the Electron main process for electron-runtime.test.ts: started by the fake Electron with
// ELECTRON_RUN_AS_NODE=1, it drops the variable at once (a real main process never has it), then
// runs the scenarios named in argv[2] (JSON [[name, naive], …]) and a lease whose guardian hosts
// two runs: a Node script through nodeCommand() and a user command that must not see the variable.
// Prints one JSON object on stdout.
delete process.env.ELECTRON_RUN_AS_NODE;
const engine = await import('@treewarden/engine');
const scenarioLibrary = await import('@treewarden/scenarios');

const scenarios = [];
for (const [name, naive] of JSON.parse(process.argv[2] ?? '[]')) {
  const result = await scenarioLibrary.runScenario(name, { naive });
  scenarios.push({
    name,
    naive,
    passed: result.passed,
    classification: result.actual.classification,
    failedChecks: result.checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}`),
    checks: Object.fromEntries(result.checks.map((check) => [check.name, check.ok])),
    skippedReason: result.skippedReason,
    lastSteps: result.steps.slice(-3).map((step) => step.text),
    cast: (result.outcome?.cast ?? []).map((member) => ({ role: member.role, pid: member.pid })),
  });
}

const lease = await engine.openLease({ name: 'fake-electron', holder: 'node-command.test', guardianOutput: 'ignore' });
const node = engine.nodeCommand();
const script = lease.startRun({
  command: node.command,
  args: ['-e', 'process.exit(7)'],
  env: node.env,
  timeoutSeconds: 60,
});
const user = lease.startRun({
  command: '/bin/sh',
  args: ['-c', 'test -z "$ELECTRON_RUN_AS_NODE"'],
  timeoutSeconds: 60,
});
const [scriptOutcome, userOutcome] = await Promise.all([script.outcome, user.outcome]);
const release = await lease.release();
process.stdout.write(
  JSON.stringify({
    runtime: { execPath: process.execPath, electron: process.versions.electron ?? null },
    scenarios,
    guardian: { released: release.guardianExited },
    scriptRun: { classification: scriptOutcome.classification, exitCode: scriptOutcome.exitCode },
    userRun: { classification: userOutcome.classification, exitCode: userOutcome.exitCode },
  }),
);
