/**
 * `fleet-audit sim --fleet DIR --port P`: serve a fleet directory as the Alibaba Cloud APIs and one
 * Kubernetes API per cluster on 127.0.0.1:P. The first stdout line is one JSON object
 * `{"endpoint": "127.0.0.1:P", "config": PATH}` where PATH is a ready-to-use scan config.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { ClusterRoleDocument, RamPolicyDocument } from '@app/collectors';
import { loadYamlDocuments, YamlLoadError } from '@app/domain';
import { helpFooter } from './help-text.util';
import { loadCollectors, loadFleetSim } from '../lazy';
import { Command, InvalidArgumentError } from 'commander';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { untilInterrupted } from './signals.util';
import { cliStreams } from '../output/cli-streams';

/** Parse a TCP port (0 = pick a free one). @throws InvalidArgumentError */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

/**
 * The TCP port a listening server is bound to (`server.address()`), which differs from the asked one for port 0.
 * @param server a Node HTTP server after `listen` resolved
 * @param asked the port passed to `listen`, returned when the address is not a TCP one (a pipe)
 */
export function boundPort(server: { address(): AddressInfo | string | null }, asked: number): number {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : asked;
}

/**
 * Run the simulator until SIGINT/SIGTERM; returns the exit code. The scan config it wrote is
 * removed when it stops (signal, error or normal exit).
 */
export async function runSimCommand(opts: {
  fleet: string;
  port: number;
  qps?: string;
  faults?: string;
  seed?: string;
  policy?: string;
  unreachable?: string;
  rbac?: string;
}): Promise<number> {
  const { readFleetDirectory } = loadCollectors();
  const { simulatorOptionsFromFlags, simulatorReadyLine, startSimulator } = loadFleetSim();
  const traffic = simulatorOptionsFromFlags({
    ...(opts.qps !== undefined ? { qps: opts.qps } : {}),
    ...(opts.faults !== undefined ? { faults: opts.faults } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
  });
  const fleet = readFleetDirectory(opts.fleet);
  let ramPolicy: RamPolicyDocument | undefined;
  if (opts.policy !== undefined) {
    try {
      ramPolicy = JSON.parse(readFileSync(opts.policy, 'utf8')) as RamPolicyDocument;
      if (!Array.isArray(ramPolicy.Statement)) throw new Error('no Statement array');
    } catch (e) {
      throw new CliUsageError(`--policy ${opts.policy}: expected a RAM policy JSON document (${(e as Error).message.split('\n')[0]})`);
    }
  }
  const rbac = opts.rbac !== undefined ? readClusterRole(opts.rbac) : undefined;
  const unreachableEndpoints = opts.unreachable?.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const sim = await startSimulator({
    ...traffic,
    fleet,
    port: opts.port,
    ...(ramPolicy ? { ramPolicy } : {}),
    ...(unreachableEndpoints ? { unreachableEndpoints } : {}),
    ...(rbac ? { rbac } : {}),
  });
  // The config holds the simulator's AccessKey: removed on SIGINT/SIGTERM (close) and on any
  // other way out of the process (an exit hook; only SIGKILL leaves it, in the temp directory).
  process.once('exit', sim.removeConfig);
  const interrupted = untilInterrupted();
  cliStreams().stdout.write(`${simulatorReadyLine(sim)}\n`);
  await interrupted;
  await sim.close();
  return EXIT_OK;
}

/**
 * The ClusterRole of a YAML or JSON file (`fleet-audit rbac` output: the first document of kind ClusterRole).
 * @throws CliUsageError naming the file when it holds none, or its rules are not a list of
 *   `{apiGroups, resources, verbs}` string lists
 */
export function readClusterRole(file: string): Pick<ClusterRoleDocument, 'rules'> {
  const fail = (why: string): never => {
    throw new CliUsageError(`--rbac ${file}: ${why}`);
  };
  let docs: unknown[] = [];
  try {
    docs = loadYamlDocuments(readFileSync(file, 'utf8'), file);
  } catch (e) {
    fail(`cannot read it (${e instanceof YamlLoadError ? [e.where, e.expected].filter(Boolean).join(': ') : (e as Error).message.split('\n')[0]})`);
  }
  const role = docs.find((d): d is { rules?: unknown } => typeof d === 'object' && d !== null && (d as { kind?: unknown }).kind === 'ClusterRole');
  if (!role) return fail('expected a ClusterRole document (fleet-audit rbac prints one)');
  const strings = (x: unknown) => Array.isArray(x) && x.every((v) => typeof v === 'string');
  if (!Array.isArray(role.rules)) return fail('the ClusterRole has no rules list');
  role.rules.forEach((r: unknown, i: number) => {
    const rule = (r ?? {}) as Record<string, unknown>;
    for (const k of ['apiGroups', 'resources', 'verbs'])
      if (!strings(rule[k])) fail(`rules[${i}].${k}: expected a list of strings`);
  });
  return { rules: role.rules as ClusterRoleDocument['rules'] };
}

/** Options of `sim generate`. */
export interface SimGenerateOptions {
  out: string;
  force?: boolean;
  name?: string;
  seed: number;
  accounts: number;
  regions: string;
  clusters: number;
  nodesPerCluster: number;
  servicesPerCluster: number;
}

const int = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
};

/** Write a generated fleet directory; prints its size as one JSON line. */
export async function runSimGenerate(o: SimGenerateOptions): Promise<number> {
  const { generateFleet, generateSpecSchema, writeFleetDirectory } = loadCollectors();
  const parsed = generateSpecSchema.safeParse({
    seed: o.seed,
    accounts: o.accounts,
    regions: o.regions.split(',').map((r) => r.trim()),
    clusters: o.clusters,
    nodesPerCluster: o.nodesPerCluster,
    servicesPerCluster: o.servicesPerCluster,
  });
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new CliUsageError(`sim generate: ${i.path.join('.')}: ${i.message}`);
  }
  const g = generateFleet(parsed.data, o.name ?? `generated-seed-${o.seed}`);
  writeFleetDirectory(g.fleet, o.out, { overwrite: o.force === true });
  cliStreams().stdout.write(`${JSON.stringify({ out: o.out, backendEntries: g.backendEntries, planted: g.planted })}\n`);
  return EXIT_OK;
}

/** Build the `sim` subcommand (and `sim generate`). */
export function simCommand(run: (p: Promise<number>) => void): Command {
  const generate = new Command('generate')
    .description('write a deterministic generated fleet directory')
    .requiredOption('-o, --out <dir>', 'directory to write (must not exist unless --force)')
    .option('--force', 'replace --out if it exists')
    .option('--name <name>', 'fleet name')
    .option('--seed <n>', 'seed', int, 1)
    .option('--accounts <n>', 'accounts', int, 2)
    .option('--regions <list>', 'comma-separated region ids', 'cn-hangzhou')
    .option('--clusters <n>', 'clusters in the fleet', int, 4)
    .option('--nodes-per-cluster <n>', 'nodes per cluster', int, 10)
    .option('--services-per-cluster <n>', 'LoadBalancer Services per cluster', int, 5)
    .addHelpText('after', helpFooter(['fleet-audit sim generate --out /tmp/fleet --accounts 3 --clusters 20', 'fleet-audit sim generate --out /tmp/fleet --force --seed 7']))
    .action((o: SimGenerateOptions) => run(runSimGenerate(o)));
  return new Command('sim')
    .addCommand(generate)
    .description('serve a fleet directory as Alibaba Cloud OpenAPI + Kubernetes APIs on 127.0.0.1 (for tests and demos)')
    .option('--fleet <dir>', 'fleet directory to serve')
    .option('--port <port>', 'port on 127.0.0.1 (0 = any free port)', parsePort, 0)
    .option('--qps <n>', 'calls per second per account and API (over it: Throttling.User)')
    .option('--faults <spec>', 'inject faults, e.g. throttle=0.3,server-error=0.05,timeout=0.01,truncate=0.01')
    .option('--seed <n>', 'seed of the fault draws (deterministic per seed)')
    .option('--policy <file>', 'enforce this RAM policy (JSON, e.g. from fleet-audit iam-policy): other actions get Forbidden.RAM')
    .option('--rbac <file>', 'enforce this ClusterRole (YAML/JSON, e.g. from fleet-audit rbac) in every cluster: other lists and gets get 403 Forbidden')
    .option('--unreachable <list>', 'API server endpoints that refuse connections: public and/or VPC ids (intranet endpoints of that VPC), comma-separated')
    .addHelpText('after', helpFooter(['fleet-audit sim --fleet examples/fleets/sample --port 8443', 'fleet-audit sim --fleet DIR --faults throttle=0.3,server-error=0.05 --seed 1', 'fleet-audit iam-policy > policy.json && fleet-audit sim --fleet DIR --policy policy.json']))
    .action((o: { fleet?: string; port: number; qps?: string; faults?: string; seed?: string; policy?: string; unreachable?: string; rbac?: string }) => {
      if (!o.fleet) throw new CliUsageError('sim: --fleet DIR is required');
      run(runSimCommand({ ...o, fleet: o.fleet }));
    });
}
