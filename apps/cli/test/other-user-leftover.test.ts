/**
 * A run's daemon that double-forks, setsid()s and drops to another user with setuid() (no exec)
 * keeps the run's cookie. The engine never signals another user's process, so it cannot end it,
 * and it must not pretend the run left nothing: the run is `kill_failed` naming pid and uid, and
 * `orphans` lists it (and `--clean` leaves it alone). Real processes; root here makes the switch.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { makeTempDir, useProcessTracker } from '../../../test-support/index.js';
import { EXIT_KILL_FAILED } from '../src/exit-codes.js';

const NOBODY = 65534;
const CLI_TEST_TIMEOUT_MS = 60_000;
const isRoot = process.getuid?.() === 0;
/**
 * The run's root waits (≤ 10 s) until the daemon has switched user and written its pid, so the
 * run's end always finds it switched: the race the other way (ended while still ours) is a plain
 * leftover, covered elsewhere.
 */
const SETUID_DAEMON = `
use POSIX qw(setsid _exit);
my $file = shift;
open(my $out, '>', $file) or die "open: $!";
my $pid = fork; die "fork: $!" unless defined $pid;
if ($pid) { for (1..200) { last if -s $file; select(undef, undef, undef, 0.05); } exit 0; }
setsid();
$pid = fork; _exit(0) if $pid;
$) = "65534 65534"; $( = 65534; $> = 65534; $< = 65534;
print $out "$$\\n"; close $out;
sleep 60;
`;

describe.skipIf(!isRoot || process.platform !== 'linux')('a run leftover that became another user', () => {
  const tracker = useProcessTracker();
  const homes: string[] = [];
  beforeAll(assertBuilt);
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });

  it(
    'fails the run by name, is listed by orphans, and is never signalled',
    async () => {
      const home = makeTempDir('tw-other-user-');
      homes.push(home);
      const pidFile = join(home, 'daemon.pid');
      const env = { TREEWARDEN_HOME: home };
      const run = await runCli(['run', '--timeout', '20', '--', 'perl', '-e', SETUID_DAEMON, pidFile], env);
      const daemon = Number(readFileSync(pidFile, 'utf8').trim());
      tracker.trackPid(daemon);
      expect(run.code).toBe(EXIT_KILL_FAILED);
      expect(`${run.stdout}${run.stderr}`).toMatch(
        new RegExp(`kill_failed.*1 leftover runs as another user and was not ended: pid ${daemon} \\(uid ${NOBODY}\\)`),
      );
      expect(statSync(`/proc/${daemon}`).uid).toBe(NOBODY);

      const listed = await runCli(['orphans', '--json'], env);
      const body = JSON.parse(listed.stdout) as { otherUsers: { pid: number; uid: number }[] };
      expect(body.otherUsers).toEqual([expect.objectContaining({ pid: daemon, uid: NOBODY })]);

      const cleaned = await runCli(['orphans', '--clean'], env);
      expect(cleaned.stdout).toMatch(/now running as another user \(never cleaned/);
      expect(cleaned.stdout).toContain(`${daemon}  uid ${NOBODY}`);
      expect(statSync(`/proc/${daemon}`).uid).toBe(NOBODY);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
