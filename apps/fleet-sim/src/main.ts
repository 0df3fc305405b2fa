/**
 * Standalone fleet simulator: `node dist/apps/fleet-sim/apps/fleet-sim/src/main.js --fleet DIR
 * [--port P] [--access-key-id ID --access-key-secret SECRET] [--config-dir DIR]
 * [--qps N] [--qps-api ACTION=N]... [--faults SPEC] [--seed N] [--throttling-status 400|429]
 * [--timeout-hold-ms MS]` (traffic flags: `sim-flags.util.ts`, behaviour: `README.md`).
 *
 * Prints as its first stdout line exactly one JSON object `{"endpoint":"127.0.0.1:P",
 * "config":"<scan config path>"}` and serves until SIGINT/SIGTERM (exit 0). An invalid fleet
 * directory prints the problem on stderr and exits 1; bad arguments (including an invalid fault
 * spec or QPS limit) exit 2.
 */
import { parseArgs } from 'node:util';
import { readFleetDirectory } from '@app/collectors';
import { simulatorOptionsFromFlags } from './sim-flags.util';
import { simulatorReadyLine, startSimulator, type SimulatorOptions } from './sim.server';

const USAGE = [
  'usage: fleet-sim --fleet DIR [--port P] [--access-key-id ID --access-key-secret SECRET] [--config-dir DIR]',
  '                 [--qps N] [--qps-api ACTION=N]... [--faults SPEC] [--seed N]',
  '                 [--throttling-status 400|429] [--timeout-hold-ms MS]',
  '  --qps N              OpenAPI calls per second per account and action (over it: Throttling.User)',
  '  --qps-api ACTION=N   limit of one action (repeatable)',
  '  --faults SPEC        e.g. throttle=0.3,server-error=0.05,timeout=0.01,truncate=0.01,slow=0.05,non-json=0.01,expire-continue=0.05',
  '  --seed N             seed of the fault draws (default 0)',
  '  --throttling-status  HTTP status of Throttling.User answers (default 400)',
  '  --timeout-hold-ms    how long the timeout fault holds a connection (default 30000)',
].join('\n');

async function main(): Promise<number> {
  let values: {
    fleet?: string;
    port?: string;
    'access-key-id'?: string;
    'access-key-secret'?: string;
    'config-dir'?: string;
    qps?: string;
    'qps-api'?: string[];
    faults?: string;
    seed?: string;
    'throttling-status'?: string;
    'timeout-hold-ms'?: string;
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
        qps: { type: 'string' },
        'qps-api': { type: 'string', multiple: true },
        faults: { type: 'string' },
        seed: { type: 'string' },
        'throttling-status': { type: 'string' },
        'timeout-hold-ms': { type: 'string' },
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
  let traffic: Partial<SimulatorOptions>;
  try {
    traffic = simulatorOptionsFromFlags({
      ...(values.qps !== undefined ? { qps: values.qps } : {}),
      ...(values['qps-api'] !== undefined ? { qpsApi: values['qps-api'] } : {}),
      ...(values.faults !== undefined ? { faults: values.faults } : {}),
      ...(values.seed !== undefined ? { seed: values.seed } : {}),
      ...(values['throttling-status'] !== undefined ? { throttlingStatus: values['throttling-status'] } : {}),
      ...(values['timeout-hold-ms'] !== undefined ? { timeoutHoldMs: values['timeout-hold-ms'] } : {}),
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
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
    ...traffic,
    ...(values['access-key-id'] !== undefined ? { accessKeyId: values['access-key-id'] } : {}),
    ...(values['access-key-secret'] !== undefined ? { accessKeySecret: values['access-key-secret'] } : {}),
    ...(values['config-dir'] !== undefined ? { configDir: values['config-dir'] } : {}),
  });
  // The config holds the AccessKey: removed by close() and, whatever else ends the process, here.
  process.once('exit', sim.removeConfig);
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
