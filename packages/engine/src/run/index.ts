export {
  ADOPTED_ROOT_POLL_MS,
  type AdoptedRootExit,
  type AdoptedRootOptions,
  adoptRootProcess,
  type ChildWait,
  UNKNOWN_EXIT_NOTE,
} from './adopted-root.js';
export { OUTPUT_DRAIN_MS } from './capture-output.js';
export * from './cgroup.js';
export * from './cgroup-end.js';
export * from './cgroup-probe.js';
export * from './cgroup-sweep.js';
export * from './launch.js';
export * from './limit-check.js';
export * from './limits.js';
export * from './observe-loop.js';
export * from './output-tail.js';
export { type AdoptedStart, adoptRun, type RunDeps, startRun } from './start-run.js';
export { ROOT_EXIT_WAIT_MS } from './stop-tree.js';
export * from './tree-usage.js';
export * from './types.js';
export * from './validate.js';
