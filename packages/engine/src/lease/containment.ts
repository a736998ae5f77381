/**
 * How a guardian holds on to everything its runs start, behind one interface per platform.
 *
 * - Linux: the guardian becomes a child subreaper, so descendants of its runs that orphan
 *   themselves (double fork, setsid daemons, even ones that cleared their environment) are
 *   reparented to the guardian instead of pid 1 and stay findable as its children.
 * - Windows: a Job Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE would end every process in the
 *   job when the guardian's handle closes. Designed here, not implemented (no Windows to test on).
 * - Elsewhere (macOS): nothing; the run cookie and observed ancestry must end every run.
 */
import type { Containment } from './containment-types.js';
import { createLinuxSubreaper } from './subreaper-linux.js';

export type { Containment } from './containment-types.js';

const NO_CONTAINMENT: Containment = { kind: 'none', active: false, adopt: () => {}, reap: () => [] };

/**
 * The Windows design, as a clearly untested stub (no Windows machine here). Through koffi on
 * kernel32, at guardian start-up:
 *   1. job = CreateJobObjectW(NULL, NULL)
 *   2. SetInformationJobObject(job, JobObjectExtendedLimitInformation (9),
 *      { BasicLimitInformation.LimitFlags: JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE (0x2000) })
 *   3. AssignProcessToJobObject(job, GetCurrentProcess()): the guardian puts ITSELF in the job,
 *      so every run it spawns is in the job from its first instruction (no window between spawn
 *      and assignment), and without JOB_OBJECT_LIMIT_BREAKAWAY_OK no descendant can leave it.
 * The guardian holds the only handle: if it dies, the handle closes and Windows ends the whole
 * job. On a normal lease end it runs the graceful tree kill first, then TerminateJobObject for
 * whatever is left. `adopt` has nothing to do (membership is inherited) and `reap` neither.
 */
function createWindowsJobObject(): Containment {
  return { kind: 'windows-job', active: false, adopt: () => {}, reap: () => [] };
}

export function createContainment(platform: NodeJS.Platform = process.platform): Containment {
  if (platform === 'linux') return createLinuxSubreaper() ?? NO_CONTAINMENT;
  if (platform === 'win32') return createWindowsJobObject();
  return NO_CONTAINMENT;
}
