/**
 * Reads one cluster's Kubernetes objects through `@kubernetes/client-node` 2.x: Nodes, Services,
 * Pods, EndpointSlices and Events of all namespaces (the calls of kubernetes-rbac.ts `KUBERNETES_CALLS`,
 * which `fleet-audit rbac` turns into the least-privilege ClusterRole), each list paged with `limit` + `continue` to
 * the end (the Kubernetes API concepts "Retrieving large results sets in chunks"); a list whose
 * `continue` token expired (410 Expired) is read again from its first page (bounded).
 *
 * The client deserialises into typed models (Dates for timestamps); `toWireJson` turns them back
 * into wire JSON (ISO strings) before the zod k8s schemas of `@app/domain` validate them, so the
 * objects look as `kubectl get -o json` prints them and as the offline loader reads them.
 *
 * Pitfall (STACK.md 9): client-node refuses `http://` servers unless the kubeconfig's cluster
 * entry has `insecure-skip-tls-verify: true`; the simulator's kubeconfig sets it.
 */
import type {
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  ConfigurationOptions,
  ObservableMiddleware,
  RequestContext,
  ResponseContext,
} from '@kubernetes/client-node';
import {
  k8sEndpointSliceSchema,
  k8sEventSchema,
  k8sNodeSchema,
  k8sPodSchema,
  k8sServiceSchema,
  type WireKubernetes,
} from '@app/domain';
import { z } from 'zod';
import type { CallRunner } from './call-runner.util';
import { CollectError, kubernetesError } from './collect-error.util';
import { readAllByToken } from './paging.util';
import { kubernetesClient } from './sdk-modules';
import { validateWire } from './wire-validate.util';
import { forbiddenHint, kubernetesCallOf, type KubernetesCall } from './kubernetes-rbac';

/** A list response as client-node returns it (typed models, `metadata._continue`). */
interface K8sList {
  items: unknown[];
  metadata?: { _continue?: string };
}

/** Settings of one cluster read. */
export interface KubernetesReadOptions {
  /** Items per list call (`limit`), count. */
  pageSize: number;
  /** Per-request timeout, milliseconds. */
  timeoutMs: number;
  /** The scan's cancellation. */
  signal?: AbortSignal;
  /** Restarts of a list whose `continue` token expired (410), count; default 0. */
  maxRestarts?: number;
}

/**
 * Parse a kubeconfig (from CS DescribeClusterUserKubeconfig) and check it names a server.
 * @throws CollectError `InvalidKubeconfig` with a one-line reason
 */
export function loadKubeconfig(text: string, target: string): KubeConfig {
  const kc = new (kubernetesClient().KubeConfig)();
  try {
    kc.loadFromString(text);
  } catch (e) {
    throw new CollectError(
      'InvalidKubeconfig',
      `DescribeClusterUserKubeconfig ${target}: the kubeconfig cannot be parsed (${(e as Error).message.split('\n')[0]})`,
    );
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster || !cluster.server)
    throw new CollectError(
      'InvalidKubeconfig',
      `DescribeClusterUserKubeconfig ${target}: the kubeconfig has no current context with a cluster server`,
    );
  if (cluster.server.startsWith('http://') && !cluster.skipTLSVerify)
    throw new CollectError(
      'InvalidKubeconfig',
      `DescribeClusterUserKubeconfig ${target}: the kubeconfig points at plain-HTTP server ${cluster.server} without insecure-skip-tls-verify (client-node refuses it)`,
    );
  return kc;
}

/** Per-request options: a timeout and the scan's cancellation as the fetch AbortSignal. */
function requestOptions(opts: KubernetesReadOptions): ConfigurationOptions {
  // The object API passes `options` straight to the observable API, so the middleware must
  // return client-node's own Observable (its rxjs stub), not a Promise.
  const { Observable } = kubernetesClient();
  const middleware: ObservableMiddleware = {
    pre: (ctx: RequestContext) => {
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      ctx.setSignal(opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout);
      return new Observable(Promise.resolve(ctx));
    },
    post: (resp: ResponseContext) => new Observable(Promise.resolve(resp)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}

/**
 * Convert a client-node model object back to wire JSON: Dates become ISO strings, unset fields
 * disappear. A JSON round trip is equivalent to client-node's `ObjectSerializer.serialize` for the
 * kinds read here: their model property names equal the wire names (the generated models rename
 * only `_continue`, `_from`, `_default`, `_int`, `$ref`-style fields, none of which occur in Node,
 * Service, Pod, EndpointSlice or Event), and the serializer is not exported from the package root.
 */
export function toWireJson(obj: unknown): unknown {
  return obj === undefined ? undefined : (JSON.parse(JSON.stringify(obj)) as unknown);
}

/** Kubernetes' answer to a `continue` token that is too old (HTTP 410, reason `Expired`). */
function isExpiredContinue(e: unknown): boolean {
  return (
    e instanceof CollectError &&
    (e.errorCode === 'Expired' || e.errorCode === 'Gone' || e.errorCode === 'HTTP410')
  );
}

/** A 403 of RBAC names what the audit identity lacks and where the grant comes from (kubernetes-rbac.ts). */
function withForbiddenHint(e: CollectError, call: KubernetesCall): CollectError {
  if (e.errorCode !== 'Forbidden') return e;
  return new CollectError(e.errorCode, `${e.message}; ${forbiddenHint(call)}`, e.retryable, e.notFound, e.retryAfterMs);
}

/**
 * Read one list to the end, page by page. When a `continue` token has expired (410 Expired: the
 * server compacted the resourceVersion the token pins), the list is read again from the first
 * page, as the Kubernetes API concepts page says clients must ("Retrieving large results sets in
 * chunks"), at most `maxRestarts` times; then the 410 is the dataset's error.
 */
async function listAll(
  runner: CallRunner,
  call: KubernetesCall,
  target: string,
  opts: KubernetesReadOptions,
  page: (limit: number, cont: string | undefined, options: ConfigurationOptions) => Promise<K8sList>,
  secrets: readonly string[],
): Promise<unknown[]> {
  const api = call.api;
  for (let restart = 0; ; restart++) {
    try {
      return await readAllByToken(async (cont) => {
        const list = await runner.run(api, async () => {
          try {
            return await page(opts.pageSize, cont, requestOptions(opts));
          } catch (e) {
            throw withForbiddenHint(kubernetesError(e, api, target, secrets), call);
          }
        });
        return { items: list.items, nextToken: list.metadata?._continue };
      }, `${api} ${target}`);
    } catch (e) {
      if (!isExpiredContinue(e) || restart >= (opts.maxRestarts ?? 0)) throw e;
    }
  }
}

/**
 * Read Nodes, Services, Pods, EndpointSlices and Events of all namespaces.
 * @param kc the cluster's kubeconfig
 * @param target `account/region/cluster` for messages
 * @param runner the account's Kubernetes call runner (concurrency + retry)
 * @throws CollectError on the first failed or malformed list (the dataset is then `failed`)
 */
export async function readKubernetes(
  kc: KubeConfig,
  target: string,
  runner: CallRunner,
  opts: KubernetesReadOptions,
  secrets: readonly string[] = [],
): Promise<WireKubernetes> {
  let core: CoreV1Api;
  let discovery: DiscoveryV1Api;
  try {
    const k8s = kubernetesClient();
    core = kc.makeApiClient(k8s.CoreV1Api);
    discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
  } catch (e) {
    throw new CollectError(
      'InvalidKubeconfig',
      `kubeconfig ${target}: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  const [nodes, services, pods, slices, events] = await Promise.all([
    listAll(
      runner,
      kubernetesCallOf('nodes'),
      target,
      opts,
      (limit, _continue, o) => core.listNode({ limit, _continue }, o),
      secrets,
    ),
    listAll(
      runner,
      kubernetesCallOf('services'),
      target,
      opts,
      (limit, _continue, o) => core.listServiceForAllNamespaces({ limit, _continue }, o),
      secrets,
    ),
    listAll(
      runner,
      kubernetesCallOf('pods'),
      target,
      opts,
      (limit, _continue, o) => core.listPodForAllNamespaces({ limit, _continue }, o),
      secrets,
    ),
    listAll(
      runner,
      kubernetesCallOf('endpointslices'),
      target,
      opts,
      (limit, _continue, o) => discovery.listEndpointSliceForAllNamespaces({ limit, _continue }, o),
      secrets,
    ),
    listAll(
      runner,
      kubernetesCallOf('events'),
      target,
      opts,
      (limit, _continue, o) => core.listEventForAllNamespaces({ limit, _continue }, o),
      secrets,
    ),
  ]);
  return {
    nodes: validateWire(
      z.array(k8sNodeSchema),
      nodes.map((n) => toWireJson(n)),
      'list nodes',
      target,
      ['items'],
    ),
    services: validateWire(
      z.array(k8sServiceSchema),
      services.map((s) => toWireJson(s)),
      'list services',
      target,
      ['items'],
    ),
    pods: validateWire(
      z.array(k8sPodSchema),
      pods.map((p) => toWireJson(p)),
      'list pods',
      target,
      ['items'],
    ),
    endpointSlices: validateWire(
      z.array(k8sEndpointSliceSchema),
      slices.map((s) => toWireJson(s)),
      'list endpointslices',
      target,
      ['items'],
    ),
    events: validateWire(
      z.array(k8sEventSchema),
      events.map((e) => toWireJson(e)),
      'list events',
      target,
      ['items'],
    ),
  };
}
