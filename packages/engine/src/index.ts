export * from './kill/types.js';
export * from './run/types.js';
export * from './table/index.js';
