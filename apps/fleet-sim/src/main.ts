/**
 * Standalone fleet simulator: `node dist/apps/fleet-sim/apps/fleet-sim/src/main.js --fleet DIR
 * [--port P] [--access-key-id ID --access-key-secret SECRET] [--config-dir DIR]`.
 *
 * Prints as its first stdout line exactly one JSON object `{"endpoint":"127.0.0.1:P",
 * "config":"<scan config path>"}` and serves until SIGINT/SIGTERM (exit 0). An invalid fleet
 * directory or bad arguments print the problem on stderr and exit 1 (2 for usage errors).
 */
import { parseArgs } from 'node:util';
import { readFleetDirectory } from '@app/collectors';
import { simulatorReadyLine, startSimulator } from './sim.server';

const USAGE =
  'usage: fleet-sim --fleet DIR [--port P] [--access-key-id ID --access-key-secret SECRET] [--config-dir DIR]';

async function main(): Promise<number> {
  let values: {
    fleet?: string;
    port?: string;
    'access-key-id'?: string;
    'access-key-secret'?: string;
    'config-dir'?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      options: {
        fleet: { type: 'string' },
        port: { type: 'string' },
        'access-key-id': { type: 'string' },
        'access-key-secret': { type: 'string' },
        'config-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!values.fleet) {
    process.stderr.write(`--fleet is required\n${USAGE}\n`);
    return 2;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be an integer 0-65535\n${USAGE}\n`);
    return 2;
  }
  if ((values['access-key-id'] === undefined) !== (values['access-key-secret'] === undefined)) {
    process.stderr.write(`--access-key-id and --access-key-secret go together\n${USAGE}\n`);
    return 2;
  }
  let fleet;
  try {
    fleet = readFleetDirectory(values.fleet);
  } catch (e) {
    process.stderr.write(`invalid fleet directory: ${(e as Error).message}\n`);
    return 1;
  }
  const sim = await startSimulator({
    fleet,
    port,
    ...(values['access-key-id'] !== undefined ? { accessKeyId: values['access-key-id'] } : {}),
    ...(values['access-key-secret'] !== undefined ? { accessKeySecret: values['access-key-secret'] } : {}),
    ...(values['config-dir'] !== undefined ? { configDir: values['config-dir'] } : {}),
  });
  // Handlers first, so a signal sent as soon as the ready line is read still shuts down cleanly.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  process.stdout.write(`${simulatorReadyLine(sim)}\n`);
  await stopped;
  await sim.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`fleet-sim: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
