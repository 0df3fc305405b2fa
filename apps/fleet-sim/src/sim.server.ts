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
 * The port speaks plain HTTP and HTTPS (a TLS ClientHello starts with byte 0x16; the first byte
 * of each connection picks the protocol). HTTPS uses a self-signed certificate made at start and
 * exists for kubectl, which sends a kubeconfig's bearer token only to https servers; the
 * kubeconfig says `insecure-skip-tls-verify: true`. The SDKs use plain HTTP.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { WireFleet } from '@app/domain';
import { AlibabaGateway } from './alibaba/alibaba.gateway';
import { CredentialStore } from './alibaba/credential.store';
import { InvocationStore } from './alibaba/invocation.store';
import { RequestAuthService } from './alibaba/request-auth.service';
import { FleetIndex } from './fleet/fleet-index.repository';
import { BodyTooLargeError, readBody, sendJson, splitUrl } from './http/http.util';
import { ClusterTokenStore } from './kubernetes/cluster-token.store';
import { KubernetesGateway } from './kubernetes/k8s.gateway';
import { buildScanConfig, writeScanConfig } from './scan-config.writer';
import type { SimContext } from './sim-context';
import { generateSelfSignedCert } from './tls/self-signed-cert.util';

/** Default AccessKey id the simulator accepts (a test key, not a secret). */
export const DEFAULT_SIM_ACCESS_KEY_ID = 'sim-access-key';
/** Default AccessKey secret the simulator accepts (a test key, not a secret). */
export const DEFAULT_SIM_ACCESS_KEY_SECRET = 'sim-access-secret';

/** How long a new connection may stay silent before it is dropped, milliseconds. */
const FIRST_BYTE_TIMEOUT_MS = 60_000;

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  /** The fleet to serve (`readFleetDirectory(dir)`). */
  fleet: WireFleet;
  /** TCP port; 0 or absent = a free random port. */
  port?: number;
  /** Listen address; only loopback is allowed. */
  host?: '127.0.0.1';
  /** Base AccessKey id accepted (default {@link DEFAULT_SIM_ACCESS_KEY_ID}). */
  accessKeyId?: string;
  /** Base AccessKey secret (default {@link DEFAULT_SIM_ACCESS_KEY_SECRET}). */
  accessKeySecret?: string;
  /** Where to write the scan config; default a fresh `<tmpdir>/fleet-sim-XXXXXX`. */
  configDir?: string;
  /** Clock (tests); default `new Date()`. */
  now?: () => Date;
}

/** A running simulator. */
export interface RunningSimulator {
  /** The port it listens on. */
  port: number;
  /** `127.0.0.1:P`: the `endpoint` for SDK configs and the scan config. */
  endpoint: string;
  /** Path of the written scan config (JSON). */
  configPath: string;
  /** The fleet account the base AccessKey reads (the `management: true` account, else the first). */
  accountId: string;
  /** Stop listening and drop open connections. */
  close(): Promise<void>;
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

/**
 * Start a simulator for a fleet and write its scan config.
 * @throws Error when the fleet has no account, or the port cannot be bound (e.g. EADDRINUSE)
 */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('the fleet simulator listens on 127.0.0.1 only');
  const fleet = FleetIndex.build(options.fleet);
  const served = fleet.managementAccount();
  if (!served) throw new Error(`fleet "${options.fleet.name}" has no account to serve`);
  const accessKeyId = options.accessKeyId ?? DEFAULT_SIM_ACCESS_KEY_ID;
  const accessKeySecret = options.accessKeySecret ?? DEFAULT_SIM_ACCESS_KEY_SECRET;
  const credentials = new CredentialStore();
  credentials.add({ accessKeyId, accessKeySecret, accountId: served.accountId });
  const now = options.now ?? (() => new Date());
  const ctx: SimContext = {
    fleet,
    endpoint: '',
    clusterTokens: new ClusterTokenStore(),
    invocations: new InvocationStore(),
    now,
  };
  const alibaba = new AlibabaGateway(ctx, new RequestAuthService(credentials, now));
  const kubernetes = new KubernetesGateway(ctx);

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { rawPath, rawQuery } = splitUrl(req.url);
    const isK8s = isKubernetesPath(rawPath);
    try {
      if (isK8s) {
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
        kubernetes.handle(req, res, segments, new URLSearchParams(rawQuery));
        return;
      }
      const body = await readBody(req);
      alibaba.handle(req, res, rawPath, rawQuery, body);
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
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  ctx.endpoint = `${host}:${port}`;
  let configPath: string;
  try {
    configPath = writeScanConfig(
      buildScanConfig(options.fleet.name, ctx.endpoint, accessKeyId, accessKeySecret, [served]),
      options.configDir,
    );
  } catch (e) {
    server.close();
    throw e;
  }

  let closing: Promise<void> | undefined;
  return {
    port,
    endpoint: ctx.endpoint,
    configPath,
    accountId: served.accountId,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        httpServer.closeAllConnections();
        httpsServer.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
