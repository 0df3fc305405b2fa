/**
 * Entry point: regenerates the sample fleet directory.
 *
 *   npm run fleet:sample                          # builds, then writes examples/fleets/sample
 *   node dist/apps/cli/examples/fleets/sample/generator/main.js [outDir]
 *
 * `outDir` defaults to `examples/fleets/sample` under the current directory (the repository root when
 * run through npm). Exits 1 with the error message when writing fails.
 */
import { resolve } from 'node:path';
import { generateSampleFleet } from './generate';

const outDir = resolve(process.argv[2] ?? 'examples/fleets/sample');
try {
  const written = generateSampleFleet(outDir);
  process.stdout.write(`wrote ${written.length} files under ${outDir}\n`);
} catch (e) {
  process.stderr.write(`fleet:sample: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
