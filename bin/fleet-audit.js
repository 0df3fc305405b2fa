#!/usr/bin/env node
'use strict';
// fleet-audit launcher: runs the compiled CLI (built by `npm install` through the `prepare` script).
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const entry = join(__dirname, '..', 'dist', 'apps', 'cli', 'apps', 'cli', 'src', 'main.js');
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
require(entry).main();
