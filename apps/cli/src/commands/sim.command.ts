/**
 * `fleet-audit sim --fleet DIR --port P`: serve a fleet directory as the Alibaba Cloud APIs and one
 * Kubernetes API per cluster on 127.0.0.1:P. The first stdout line is one JSON object
 * `{"endpoint": "127.0.0.1:P", "config": PATH}` where PATH is a ready-to-use scan config.
 */
import { Command, InvalidArgumentError } from 'commander';
import { readFleetDirectory } from '@app/collectors';
import { simulatorReadyLine, startSimulator } from '@app/fleet-sim';
import { EXIT_OK } from '../cli-error';
import { untilInterrupted } from './signals.util';

/** Parse a TCP port (0 = pick a free one). @throws InvalidArgumentError */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

/** Run the simulator until SIGINT/SIGTERM; returns the exit code. */
export async function runSimCommand(opts: { fleet: string; port: number }): Promise<number> {
  const fleet = readFleetDirectory(opts.fleet);
  const sim = await startSimulator({ fleet, port: opts.port });
  process.stdout.write(`${simulatorReadyLine(sim)}\n`);
  await untilInterrupted();
  await sim.close();
  return EXIT_OK;
}

/** Build the `sim` subcommand. */
export function simCommand(run: (p: Promise<number>) => void): Command {
  return new Command('sim')
    .description('serve a fleet directory as Alibaba Cloud OpenAPI + Kubernetes APIs on 127.0.0.1 (for tests and demos)')
    .requiredOption('--fleet <dir>', 'fleet directory to serve')
    .option('--port <port>', 'port on 127.0.0.1 (0 = any free port)', parsePort, 0)
    .action((o: { fleet: string; port: number }) => run(runSimCommand(o)));
}
