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
require(entry).main();
