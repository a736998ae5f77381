/**
 * How every e2e browser starts, in plain JavaScript so the Playwright config (through env.ts) and
 * the node-run render benchmark share one definition.
 */

/** Debian's Chromium: Playwright must never download a browser here. */
export const CHROMIUM_PATH = process.env.TREEWARDEN_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
