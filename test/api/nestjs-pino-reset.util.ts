/**
 * A fresh nestjs-pino request logger for the next Nest app this process builds.
 *
 * nestjs-pino 5.2.1 keeps one pino-http instance per process (its `dist/{cjs,esm}/rootLogger.js`): the first
 * LoggerModule to need it fixes the destination, level and serializers, and every app built after it in the same
 * process logs there, its own `log.destination` ignored. The integration forks keep their module graph from one file
 * to the next (vitest.config.mts, `isolate: false`), so a file that reads back its app's log lines would read nothing
 * when another such file ran first in its fork (CI, stop 38: operability.e2e-spec.ts after whatif-errors.e2e-spec.ts).
 * A production process builds one app, which is why the library can afford the singleton.
 *
 * This calls the library's own test reset, `__resetOutOfContextForTests` (PinoLogger.js; not in the package's
 * `exports`, so it is reached by file), in both builds: vitest loads the ESM one, the built CLI the CommonJS one.
 * @throws Error naming the file when a build no longer has the reset (a nestjs-pino upgrade moved it)
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(__filename);

type PinoLoggerModule = { __resetOutOfContextForTests?: () => void };

/** Reset nestjs-pino's per-process pino-http instance (see the file comment); call before building the app. */
export async function freshNestjsPinoLogger(): Promise<void> {
  const dist = join(dirname(require.resolve('nestjs-pino/package.json')), 'dist');
  const esmFile = join(dist, 'esm', 'PinoLogger.js');
  const cjsFile = join(dist, 'cjs', 'PinoLogger.js');
  const builds: [string, PinoLoggerModule][] = [
    [esmFile, (await import(pathToFileURL(esmFile).href)) as PinoLoggerModule],
    [cjsFile, require(cjsFile) as PinoLoggerModule],
  ];
  for (const [file, mod] of builds) {
    if (typeof mod.__resetOutOfContextForTests !== 'function') throw new Error(`${file} has no __resetOutOfContextForTests: see test/api/nestjs-pino-reset.util.ts`);
    mod.__resetOutOfContextForTests();
  }
}
