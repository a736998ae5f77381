export * from './agents.js';
export * from './alert-notice.js';
export * from './bridge.js';
export * from './commands.js';
export * from './envelope.js';
export * from './events.js';
export * from './export-settings.js';
export * from './identity-key.js';
export * from './leak-notice.js';
export * from './limit-text.js';
export * from './model.js';
export * from './ports.js';
export * from './usage-window.js';
export * from './vocabulary.js';

export const PROTOCOL_VERSION = 1;
/** Prefix of every Electron IPC channel; the preload refuses any other. */
export const IPC_CHANNEL_PREFIX = 'treewarden:';
export const IPC_REQUEST_CHANNEL = 'treewarden:request';
export const IPC_EVENT_CHANNEL = 'treewarden:event';
