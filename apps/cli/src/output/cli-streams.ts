/**
 * Where the CLI writes: the standard output and error of the `main()` call in progress.
 *
 * `bin/fleet-audit.js` runs `main()` with the process's streams; a test runs it in-process with streams of its own
 * (test/cli/cli-run.util.ts `runCliInProcess`). Commands write through `cliStreams()` instead of `process.stdout`
 * / `process.stderr`, so one `main()` call's output never mixes with another's (the streams are held per
 * asynchronous call chain with node:async_hooks AsyncLocalStorage: https://nodejs.org/api/async_context.html).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A stream the CLI writes to: `process.stdout`-like (TTY flags and width are read when present). */
export type CliStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** The two output streams of one `main()` call. */
export interface CliStreams {
  stdout: CliStream;
  stderr: CliStream;
}

const current = new AsyncLocalStorage<CliStreams>();

/** The streams of the `main()` call in progress; the process's own outside of one. */
export function cliStreams(): CliStreams {
  return current.getStore() ?? { stdout: process.stdout, stderr: process.stderr };
}

/** Run `fn` (and everything it starts asynchronously) writing to `streams`. */
export function withCliStreams<T>(streams: CliStreams, fn: () => T): T {
  return current.run(streams, fn);
}
