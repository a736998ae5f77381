#!/usr/bin/env node
/**
 * What an idle page changes in its DOM each second: a real `treewarden serve` and Debian's
 * Chromium on the given view (default All processes), a MutationObserver over SECONDS (default
 * 10) after SETTLE seconds (default 15), counting attribute changes by name and element, text
 * changes by the cell they sit in, and nodes added or removed. What changes is what the renderer
 * lays out and paints every poll: the first thing to read when its idle cost moves.
 * Usage: node tools/page-mutations.mjs [view] [seconds] [settle]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@treewarden/e2e/support/chromium.mjs';

const view = process.argv[2] ?? 'All processes';
const seconds = Number(process.argv[3] ?? 10);
const settle = Number(process.argv[4] ?? 15);
const cli = fileURLToPath(new URL('../apps/cli/dist/main.js', import.meta.url));
const serve = spawn(process.execPath, [cli, 'serve', '--no-open', '--port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const endServe = () => serve.exitCode === null && serve.kill('SIGTERM');
process.on('exit', endServe);
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
const url = await new Promise((resolve, reject) => {
  serve.stdout.on('data', (chunk) => {
    const match = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(String(chunk));
    if (match) resolve(match[0]);
  });
  serve.once('exit', () => reject(new Error('serve exited')));
});
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.getByRole('tab', { name: view }).click();
  await page.waitForTimeout(settle * 1000);
  const counts = await page.evaluate(async (ms) => {
    const where = (node) => {
      const element = node.nodeType === 1 ? node : node.parentElement;
      if (!element) return '?';
      const cell = element.closest('[class]');
      return `${cell?.tagName.toLowerCase()}.${String(cell?.className).split(' ').slice(0, 2).join('.')}`;
    };
    const tally = {};
    const bump = (key) => {
      tally[key] = (tally[key] ?? 0) + 1;
    };
    const observer = new MutationObserver((records) => {
      for (const record of records) {
        if (record.type === 'attributes') bump(`attr ${record.attributeName} on ${where(record.target)}`);
        else if (record.type === 'characterData') bump(`text in ${where(record.target)}`);
        else {
          if (record.addedNodes.length) bump(`added under ${where(record.target)}`);
          if (record.removedNodes.length) bump(`removed under ${where(record.target)}`);
        }
      }
    });
    observer.observe(document.body, { subtree: true, attributes: true, characterData: true, childList: true });
    await new Promise((resolve) => setTimeout(resolve, ms));
    observer.disconnect();
    return tally;
  }, seconds * 1000);
  const perSecond = Object.entries(counts)
    .map(([key, n]) => [key, Number((n / seconds).toFixed(1))])
    .sort((a, b) => b[1] - a[1]);
  for (const [key, n] of perSecond) console.log(`${String(n).padStart(7)}/s  ${key}`);
} finally {
  await browser.close();
  endServe();
}
