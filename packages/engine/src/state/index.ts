export * from './run-dir.js';
export * from './state-dir.js';
export * from './trust.js';
