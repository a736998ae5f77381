#!/usr/bin/env node
// Committed launcher: npm links bins at install time, before a fresh clone has a dist/, so the bin
// must exist (and be executable) without a build. The CLI itself is the compiled dist/main.js;
// `treewarden mcp` (a server that lives as long as an agent session) has a lighter entry of its own.
if (process.argv[2] === 'mcp') await import('../dist/mcp-main.js');
else await import('../dist/main.js');
