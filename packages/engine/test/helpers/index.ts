/**
 * The engine tests' helpers: the shared ones from test-support (waiting, process tracking,
 * fixtures, past runs) plus the engine's own injected worlds for what this machine cannot
 * produce (`createFakeWorld` / `createFakeSignals`: macOS EPERM, exact races).
 */
export * from '../../../../test-support/index.js';
export * from './fake-world.js';
export * from './pid-namespace.js';
export * from './shell.js';
