#!/usr/bin/env node
// Committed launcher: npm links bins at install time, before a fresh clone has a dist/, so the bin
// must exist (and be executable) without a build. The CLI itself is the compiled dist/main.js.
import '../dist/main.js';
