/**
 * Status lines of the long-running commands (`serve`, `worker`): "ready", "draining" and a fatal error. On a terminal
 * they are text (`fleet-audit: worker 4242 ready (...)`); otherwise (compose, Kubernetes, systemd, a pipe) each is one
 * JSON object in the shape of the processes' pino logs (`level` label, ISO `time`, `pid`, `hostname`, `name`, `msg`,
 * redaction), written by pino itself (libs/telemetry createLogger), so a log collector parses every line a service
 * writes. A command opts in with `jsonStatusLinesFor`; `reportError` then writes its last error line the same way.
 */
import { loadTelemetry } from '../lazy';
import type { CliStream } from './cli-streams';

/** Streams whose status and error lines are JSON when they are not a terminal: the component name for each. */
const serviceStreams = new WeakMap<CliStream, string>();

/**
 * Mark `stream` as a service's stream: its status lines, and an error line of the command, are JSON objects when it
 * is not a TTY.
 * @param name the component (`api`, `worker`): the `name` field of each line
 */
export function jsonStatusLinesFor(stream: CliStream, name: string): void {
  serviceStreams.set(stream, name);
}

/** Whether `stream` gets JSON lines: marked by a service command and not a terminal. */
export function wantsJsonLines(stream: CliStream): boolean {
  return serviceStreams.has(stream) && stream.isTTY !== true;
}

/**
 * Write one status line: text on a terminal (`fleet-audit: <msg>`), else one JSON log object (`level`, `time`, `pid`,
 * `hostname`, `name`, `msg` and `fields`).
 * @param level `info` for status, `error` for a failure
 * @param fields extra members of the JSON object (ignored in text: `msg` says it all)
 */
export function writeStatusLine(stream: CliStream, level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  if (!wantsJsonLines(stream)) {
    stream.write(`fleet-audit: ${msg}\n`);
    return;
  }
  const { createLogger } = loadTelemetry();
  // A synchronous pino over the stream: the line is out before the process goes on (or exits).
  createLogger({ name: serviceStreams.get(stream) ?? 'fleet-audit', pretty: false, level: 'info', destination: stream })[level](fields, msg);
}
