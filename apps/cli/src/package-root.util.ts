import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project root (the directory whose package.json is named `ack-fleet-audit`), found by
 * walking up from this file; works from the sources and from `dist/`.
 * @throws Error when not found (a broken install)
 */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'ack-fleet-audit') return dir;
      } catch {
        // keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the ack-fleet-audit package root');
    dir = parent;
  }
}

/** The bundled sample fleet directory (`examples/fleets/sample`). */
export function sampleFleetDir(): string {
  return join(packageRoot(), 'examples', 'fleets', 'sample');
}

/**
 * The web console build (`dist/console`, made by `npm run build:console`, which `npm install` runs), or undefined
 * when it is not built (the API then serves no console).
 */
export function consoleBuildDir(): string | undefined {
  const dir = join(packageRoot(), 'dist', 'console');
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}
