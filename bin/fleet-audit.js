#!/usr/bin/env node
'use strict';
// fleet-audit launcher: runs the compiled CLI (built by `npm install` through the `prepare` script).
const { existsSync } = require('node:fs');
const { join } = require('node:path');
// FLEET_AUDIT_DIST: another output root of `nest build cli` (the test suite's dist-test/apps/cli, which a
// `nest build` beside it cannot delete); default dist/apps/cli of this package.
const root = process.env.FLEET_AUDIT_DIST || join(__dirname, '..', 'dist', 'apps', 'cli');
const entry = join(root, 'apps', 'cli', 'src', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write('fleet-audit: error: not built yet; run `npm install` (or `npm run build`) in ' + join(__dirname, '..') + '\n');
  process.exit(2);
}
// Node >= 22.1: keep V8's compiled code of the modules loaded (the cloud SDKs alone are ~5,000 files)
// on disk between runs (module.enableCompileCache: https://nodejs.org/api/module.html#moduleenablecompilecachecachedir;
// NODE_COMPILE_CACHE sets the directory, NODE_DISABLE_COMPILE_CACHE=1 turns it off). Node 20 has no such API.
const { enableCompileCache } = require('node:module');
if (typeof enableCompileCache === 'function') {
  try {
    enableCompileCache();
  } catch {
    // A cache that cannot be used only costs speed.
  }
}
const cli = require(entry);
// The process's terminal behaviour (EPIPE, Ctrl+C) and its exit live here, the only place that ends the process;
// main() resolves with the exit code.
cli.installTerminalHandlers((code) => process.exit(code));
// Resolves once everything written to `stream` so far has been handed to the OS (or the stream failed).
const flushed = (stream) =>
  new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });
cli.main(process.argv).then(async (code) => {
  // Open handles (pools, timers) must not keep a finished command alive, but stdout and stderr must be
  // flushed first: on a pipe (`fleet-audit scan | less`) writes are asynchronous, and exiting at once
  // cut the output at 128 KiB.
  await flushed(process.stdout);
  await flushed(process.stderr);
  process.exit(code);
});
