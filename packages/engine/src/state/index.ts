export * from './state-dir.js';
