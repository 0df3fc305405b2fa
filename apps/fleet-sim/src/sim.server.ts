/**
 * The fleet simulator: serves a WireFleet over plain HTTP on 127.0.0.1 so the official Alibaba
 * Cloud SDKs (ECS, SLB, CS, RAM, STS, Quota Center) and Kubernetes clients (kubectl,
 * `@kubernetes/client-node`) read it as if it were the real cloud. One port for everything:
 * - `/` : RPC products (ECS 2014-05-26, SLB 2014-05-15, VPC 2016-04-28, RAM 2015-05-01,
 *   STS 2015-04-01, Quota Center 2020-05-10), signed V3 or V1;
 * - CS 2015-12-15 ROA paths (`/api/v1/clusters`, `/clusters/...`, `/k8s/<id>/user_config`);
 * - `/k8s/<clusterId>/...` : that cluster's Kubernetes API (bearer token from the kubeconfig).
 * The fleet is indexed once at start; handlers are map look-ups and slices.
 *
 * A second port serves the same APIs as the clusters' intranet API server endpoint: the kubeconfig of
 * DescribeClusterUserKubeconfig names it for `PrivateIpAddress=true` and the first port otherwise
 * (cs.handler.ts `kubeconfigServer`), so a client's endpoint choice is visible in
 * `kubernetesCallsByEndpoint()`. `unreachableEndpoints` makes endpoints refuse connections.
 *
 * The port speaks plain HTTP and HTTPS (a TLS ClientHello starts with byte 0x16; the first byte
 * of each connection picks the protocol). HTTPS uses a self-signed certificate made at start and
 * exists for kubectl, which sends a kubeconfig's bearer token only to https servers; the
 * kubeconfig says `insecure-skip-tls-verify: true`. The SDKs use plain HTTP.
 */
import type { ClusterRoleDocument, RamPolicyDocument } from '@app/collectors';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { WireFleet } from '@app/domain';
import { AlibabaGateway, type ThrottlingStatus } from './alibaba/alibaba.gateway';
import { CredentialStore } from './alibaba/credential.store';
import { InvocationStore } from './alibaba/invocation.store';
import { QuotaApplicationStore } from './alibaba/quota-application.store';
import { RequestAuthService } from './alibaba/request-auth.service';
import { FleetIndex } from './fleet/fleet-index.repository';
import { BodyTooLargeError, readBody, sendJson, splitUrl } from './http/http.util';
import { DEFAULT_TIMEOUT_HOLD_MS, ResponseWriter } from './http/response-writer.service';
import { ClusterTokenStore } from './kubernetes/cluster-token.store';
import { KubernetesGateway } from './kubernetes/k8s.gateway';
import { buildScanConfig, removeScanConfig, writeScanConfig } from './scan-config.writer';
import type { SimContext, UnreachableEndpoints } from './sim-context';
import { generateSelfSignedCert } from './tls/self-signed-cert.util';
import { CallStats, type SimStats } from './traffic/call-stats.service';
import { FaultInjector } from './traffic/fault-injector.service';
import { parseFaultSpec, validateFaultRates, type FaultRates } from './traffic/fault-spec.util';
import { RateLimiter, type QpsLimits } from './traffic/rate-limiter.service';
import { TrafficPolicy } from './traffic/traffic-policy.service';
import { FleetAuditError } from '@app/errors';

/** Default AccessKey id the simulator accepts (a test key, not a secret). */
export const DEFAULT_SIM_ACCESS_KEY_ID = 'sim-access-key';
/** Default AccessKey secret the simulator accepts (a test key, not a secret). */
export const DEFAULT_SIM_ACCESS_KEY_SECRET = 'sim-access-secret';

/** How long a new connection may stay silent before it is dropped, milliseconds. */
const FIRST_BYTE_TIMEOUT_MS = 60_000;

/** Default delay range of the `slow` fault, milliseconds. */
export const DEFAULT_SLOW_DELAY_MS = { min: 200, max: 1000 } as const;

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  /** The fleet to serve (`readFleetDirectory(dir)`). */
  fleet: WireFleet;
  /** TCP port; 0 or absent = a free random port. */
  port?: number;
  /** Listen address; only loopback is allowed. */
  host?: '127.0.0.1';
  /** Base AccessKey id accepted (default {@link DEFAULT_SIM_ACCESS_KEY_ID}); it reads the management account. */
  accessKeyId?: string;
  /** Base AccessKey secret (default {@link DEFAULT_SIM_ACCESS_KEY_SECRET}). */
  accessKeySecret?: string;
  /**
   * Where to write the scan config; default a fresh `<tmpdir>/fleet-sim-XXXXXX`. The config (it
   * holds the simulator's AccessKey) is removed by `close()` / `removeConfig()`: the file, and the
   * directory too when it was the default temporary one.
   */
  configDir?: string;
  /** Clock (tests): STS expiry, signature timestamps, QPS windows; default `new Date()`. */
  now?: () => Date;
  /**
   * OpenAPI rate limits per account and action, calls per second in fixed one-second windows;
   * absent = unlimited. Over-limit calls get `Throttling.User` with `x-acs-retry-after` (ms).
   * Kubernetes API calls are not limited.
   */
  qps?: QpsLimits;
  /** HTTP status of `Throttling.User` answers (QPS limits and the `throttle` fault): 400 (default) or 429. */
  throttlingStatus?: ThrottlingStatus;
  /**
   * Injected faults: a spec such as `throttle=0.3,server-error=0.05,timeout=0.01,truncate=0.01,
   * slow=0.05,non-json=0.01,expire-continue=0.05` (probability per call) or the parsed rates.
   * Deterministic per {@link SimulatorOptions.seed}. Absent = none.
   */
  faults?: string | FaultRates;
  /** Seed of the fault draws (any integer; default 0). */
  seed?: number;
  /**
   * A RAM policy the simulated caller holds (`fleet-audit iam-policy` output): an OpenAPI call whose
   * `service:Action` it does not allow is refused with 403 `Forbidden.RAM` naming the action. STS
   * `AssumeRole` is not checked (the base identity's grant). Absent = everything allowed.
   */
  ramPolicy?: RamPolicyDocument;
  /**
   * RBAC enforcement of every simulated cluster's Kubernetes API: the rules of a ClusterRole bound to the
   * caller (`fleet-audit rbac` output). A list or get they do not allow is 403 Forbidden in the Kubernetes
   * Status format naming the verb and resource. Absent = everything allowed.
   */
  rbac?: Pick<ClusterRoleDocument, 'rules'>;
  /** How long the `timeout` fault holds a connection before dropping it, milliseconds (default 30,000). */
  timeoutHoldMs?: number;
  /** Delay range of the `slow` fault, milliseconds inclusive (default 200-1000). */
  slowDelayMs?: { min: number; max: number };
  /**
   * API server endpoints that cannot be dialled: `public` (every cluster's public endpoint) and VPC ids
   * (the intranet endpoints of the clusters in that VPC). Their kubeconfigs name an address that refuses
   * connections. A cluster whose `master_url` names no public endpoint never has a reachable public one.
   */
  unreachableEndpoints?: readonly string[];
}

/** Kubernetes API calls of one cluster by the endpoint they came in on. */
export interface EndpointCalls {
  public: number;
  intranet: number;
}

/** A running simulator. */
export interface RunningSimulator {
  /** The port it listens on. */
  port: number;
  /** `127.0.0.1:P`: the `endpoint` for SDK configs and the scan config. */
  endpoint: string;
  /** Path of the written scan config (JSON); removed by `close()` and `removeConfig()`. */
  configPath: string;
  /** The fleet account the base AccessKey reads (the `management: true` account, else the first). */
  accountId: string;
  /** Every account of the fleet, in fleet order. */
  accountIds: string[];
  /** Call counters since start (or the last {@link RunningSimulator.resetStats}). */
  stats(): SimStats;
  /** Zero the call counters (QPS windows and fault draws are not affected). */
  resetStats(): void;
  /** `127.0.0.1:Q`: the second listener, the clusters' intranet API server endpoint. */
  intranetEndpoint: string;
  /** Kubernetes API calls since start per cluster id, by the endpoint (listener) they came in on. */
  kubernetesCallsByEndpoint(): Record<string, EndpointCalls>;
  /**
   * Stop listening, drop open connections and held (`timeout`) requests, and remove the written
   * scan config (`removeConfig`).
   */
  close(): Promise<void>;
  /**
   * Remove the written scan config now (synchronous, idempotent: for `process.on('exit')` hooks of
   * the `sim` commands, so it goes whichever way the process ends).
   */
  removeConfig(): void;
}

/** An invalid {@link SimulatorOptions} value. */
export class SimulatorOptionsError extends FleetAuditError {
  override readonly name = 'SimulatorOptionsError';
  /** Stable code (libs/errors README). */
  readonly code = 'SIM_OPTIONS_INVALID';
  /** The simulator options must change. */
  readonly permanent = true;
}

/** The line `fleet-sim` and `fleet-audit sim` print first on stdout: `{"endpoint":"127.0.0.1:P","config":"<path>"}`. */
export function simulatorReadyLine(sim: Pick<RunningSimulator, 'endpoint' | 'configPath'>): string {
  return JSON.stringify({ endpoint: sim.endpoint, config: sim.configPath });
}

function isKubernetesPath(rawPath: string): boolean {
  if (!rawPath.startsWith('/k8s/')) return false;
  const segs = rawPath.split('/').filter((s) => s !== '');
  // CS DescribeClusterUserKubeconfig lives at /k8s/{ClusterId}/user_config; everything else under /k8s/ is Kubernetes.
  return !(segs.length === 3 && segs[2] === 'user_config');
}

function internalError(res: ServerResponse, kubernetes: boolean): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (kubernetes)
    sendJson(res, 500, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'internal error in the fleet simulator',
      reason: 'InternalError',
      code: 500,
    });
  else
    sendJson(res, 500, {
      Code: 'InternalError',
      Message: 'The request processing has failed due to some unknown error.',
    });
}

function nonNegativeInt(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 0)
    throw new SimulatorOptionsError(
      `${name} must be a non-negative integer (milliseconds), got ${String(v)}`,
    );
  return v;
}

/**
 * Parse `unreachableEndpoints`: `public` and VPC ids.
 * @throws SimulatorOptionsError for an entry that is neither
 */
function parseUnreachable(entries: readonly string[] | undefined): UnreachableEndpoints {
  const vpcs = new Set<string>();
  let pub = false;
  for (const e of entries ?? []) {
    if (e === 'public') pub = true;
    else if (/^vpc-[a-z0-9]+$/.test(e)) vpcs.add(e);
    else throw new SimulatorOptionsError(`unreachableEndpoints: "${e}" is neither "public" nor a VPC id (vpc-...)`);
  }
  return { public: pub, vpcs };
}

/** Build the traffic policy (stats, QPS limits, faults) from the options. */
function buildTraffic(
  options: SimulatorOptions,
  now: () => Date,
): { policy: TrafficPolicy; stats: CallStats } {
  const stats = new CallStats();
  const limiter = options.qps ? new RateLimiter(options.qps) : undefined;
  let faults: FaultInjector | undefined;
  if (options.faults !== undefined) {
    const rates =
      typeof options.faults === 'string'
        ? parseFaultSpec(options.faults)
        : validateFaultRates(options.faults);
    const seed = options.seed ?? 0;
    if (!Number.isSafeInteger(seed))
      throw new SimulatorOptionsError(`seed must be an integer, got ${String(seed)}`);
    const slow = options.slowDelayMs ?? DEFAULT_SLOW_DELAY_MS;
    const min = nonNegativeInt('slowDelayMs.min', slow.min, DEFAULT_SLOW_DELAY_MS.min);
    const max = nonNegativeInt('slowDelayMs.max', slow.max, DEFAULT_SLOW_DELAY_MS.max);
    if (max < min) throw new SimulatorOptionsError('slowDelayMs.max must not be below slowDelayMs.min');
    faults = new FaultInjector(rates, seed, { min, max });
  }
  return { policy: new TrafficPolicy(stats, now, limiter, faults), stats };
}

/**
 * Start a simulator for a fleet and write its scan config.
 * @throws FaultSpecError for an invalid `faults` spec, QpsLimitsError for invalid `qps`,
 *   SimulatorOptionsError for other invalid options
 * @throws Error when the fleet has no account, or the port cannot be bound (e.g. EADDRINUSE)
 */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('the fleet simulator listens on 127.0.0.1 only');
  const throttlingStatus = options.throttlingStatus ?? 400;
  if (throttlingStatus !== 400 && throttlingStatus !== 429)
    throw new SimulatorOptionsError(`throttlingStatus must be 400 or 429, got ${String(throttlingStatus)}`);
  const timeoutHoldMs = nonNegativeInt('timeoutHoldMs', options.timeoutHoldMs, DEFAULT_TIMEOUT_HOLD_MS);
  const now = options.now ?? (() => new Date());
  const traffic = buildTraffic(options, now);
  const fleet = FleetIndex.build(options.fleet);
  const served = fleet.managementAccount();
  if (!served) throw new Error(`fleet "${options.fleet.name}" has no account to serve`);
  const accessKeyId = options.accessKeyId ?? DEFAULT_SIM_ACCESS_KEY_ID;
  const accessKeySecret = options.accessKeySecret ?? DEFAULT_SIM_ACCESS_KEY_SECRET;
  const credentials = new CredentialStore();
  credentials.add({ accessKeyId, accessKeySecret, accountId: served.accountId });
  const unreachable = parseUnreachable(options.unreachableEndpoints);
  const ctx: SimContext = {
    fleet,
    endpoint: '',
    intranetEndpoint: '',
    unreachable,
    clusterTokens: new ClusterTokenStore(),
    credentials,
    invocations: new InvocationStore(),
    quotaApplications: new QuotaApplicationStore(),
    now,
  };
  const alibaba = new AlibabaGateway(
    ctx,
    new RequestAuthService(credentials, now),
    traffic.policy,
    throttlingStatus,
    options.ramPolicy,
  );
  const kubernetes = new KubernetesGateway(ctx, traffic.policy, options.rbac?.rules);
  const writer = new ResponseWriter(timeoutHoldMs);

  const byEndpoint = new Map<string, EndpointCalls>();
  let intranetPort = -1;
  const countEndpoint = (req: IncomingMessage, rawPath: string) => {
    const clusterId = rawPath.split('/')[2] ?? '';
    let c = byEndpoint.get(clusterId);
    if (!c) byEndpoint.set(clusterId, (c = { public: 0, intranet: 0 }));
    c[req.socket.localPort === intranetPort ? 'intranet' : 'public']++;
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { rawPath, rawQuery } = splitUrl(req.url);
    const isK8s = isKubernetesPath(rawPath);
    try {
      if (isK8s) {
        countEndpoint(req, rawPath);
        let segments: string[];
        try {
          segments = rawPath
            .split('/')
            .filter((s) => s !== '')
            .slice(1)
            .map((s) => decodeURIComponent(s));
        } catch {
          sendJson(res, 400, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'malformed path',
            reason: 'BadRequest',
            code: 400,
          });
          return;
        }
        writer.send(res, kubernetes.handle(req, rawPath, segments, new URLSearchParams(rawQuery)));
        return;
      }
      const body = await readBody(req);
      writer.send(res, alibaba.handle(req, rawPath, rawQuery, body));
    } catch (e) {
      if (e instanceof BodyTooLargeError) {
        sendJson(res, 413, { Code: 'RequestEntityTooLarge', Message: e.message });
        return;
      }
      internalError(res, isK8s);
    }
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => void onRequest(req, res);
  const httpServer = createServer(handler);
  const httpsServer = createHttpsServer(generateSelfSignedCert(), handler);
  // One port, both protocols: look at the first byte, put it back, hand the socket over.
  const onConnection = (socket: Socket): void => {
    socket.on('error', () => socket.destroy());
    // A connection that never sends a byte is dropped; after the hand-over the servers' own timeouts apply.
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.once('readable', function pick() {
      const first = socket.read(1) as Buffer | null;
      if (first === null) {
        socket.once('readable', pick);
        return;
      }
      socket.setTimeout(0);
      socket.unshift(first);
      (first[0] === 0x16 ? httpsServer : httpServer).emit('connection', socket);
    });
  };
  const sockets = new Set<Socket>();
  const accept = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    onConnection(socket);
  };
  const server = createNetServer(accept);
  const intranetServer = createNetServer(accept);
  const listen = (srv: typeof server, port: number) =>
    new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, host, () => {
        srv.off('error', reject);
        resolve();
      });
    });
  await listen(server, options.port ?? 0);
  try {
    await listen(intranetServer, 0);
  } catch (e) {
    server.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  intranetPort = (intranetServer.address() as AddressInfo).port;
  ctx.endpoint = `${host}:${port}`;
  ctx.intranetEndpoint = `${host}:${intranetPort}`;
  let configPath: string;
  try {
    configPath = writeScanConfig(
      buildScanConfig(options.fleet.name, ctx.endpoint, accessKeyId, accessKeySecret, fleet.accounts, options.qps !== undefined),
      options.configDir,
    );
  } catch (e) {
    server.close();
    intranetServer.close();
    throw e;
  }

  const removeConfig = () => removeScanConfig(configPath, options.configDir === undefined);
  let closing: Promise<void> | undefined;
  return {
    port,
    endpoint: ctx.endpoint,
    configPath,
    accountId: served.accountId,
    accountIds: fleet.accounts.map((a) => a.accountId),
    intranetEndpoint: ctx.intranetEndpoint,
    stats: () => traffic.stats.snapshot(),
    resetStats: () => traffic.stats.reset(),
    kubernetesCallsByEndpoint: () => Object.fromEntries([...byEndpoint].map(([k, v]) => [k, { ...v }])),
    removeConfig,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        removeConfig();
        writer.close();
        let open = 2;
        const closed = () => {
          if (--open === 0) resolve();
        };
        server.close(closed);
        intranetServer.close(closed);
        httpServer.closeAllConnections();
        httpsServer.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
