/**
 * The simulated Kubernetes API servers, one per fleet cluster, under
 * `http://<endpoint>/k8s/<clusterId>` (the server URL of the CS kubeconfig).
 *
 * Serves what `kubectl get nodes|svc|pods|endpointslices|events|namespaces [-A|-n ns]` and
 * `@kubernetes/client-node` list/read calls need: legacy discovery (`/version`, `/api`,
 * `/api/v1`, `/apis`, `/apis/discovery.k8s.io[/v1]`), lists and gets. `/openapi/*` answers 404
 * (kubectl get does not need it). Every request needs `authorization: Bearer <token>` of that
 * cluster (401 otherwise); an unknown cluster is 404; a cluster whose `kubernetes/` directory is
 * absent in the fleet answers 403 on lists and gets. Errors are `kind: Status` objects.
 *
 * Authenticated calls go through the traffic policy (counted as `k8s:list:<resource>`,
 * `k8s:get:<resource>` or `k8s:discovery`; no QPS limit; injected faults keyed by the request
 * path): `throttle` -> 429 `TooManyRequests` with `Retry-After` (seconds), `server-error` -> 503
 * `ServiceUnavailable`, `non-json` -> 502 HTML, `expire-continue` (lists with a `continue` token)
 * -> 410 `Expired`, `timeout` / `slow` / `truncate` applied while sending.
 */
import type { IncomingMessage } from 'node:http';
import { rbacAllows, type PolicyRule } from '@app/collectors';
import { BAD_GATEWAY_HTML } from '../alibaba/alibaba.gateway';
import { header } from '../http/http.util';
import type { SimResponse } from '../http/response-writer.service';
import type { ClusterEntry } from '../fleet/fleet-index.repository';
import type { SimContext } from '../sim-context';
import type { TrafficPolicy } from '../traffic/traffic-policy.service';
import {
  API_GROUP_LIST,
  API_GROUPS,
  apiResourceList,
  apiVersions,
  versionInfo,
  type K8sResource,
} from './k8s-resources.constants';
import { K8sObjectStore } from './k8s-object.store';
import {
  EXPIRED_CONTINUE_MESSAGE,
  findResource,
  getObject,
  listObjects,
  type K8sObjectRequest,
} from './k8s-objects.handler';
import { K8sStatusError } from './k8s-status.util';
import { tableFor, wantsTable } from './k8s-table.util';

/** `metadata.resourceVersion` of every simulated list (the fleet does not change while served). */
export const SIM_RESOURCE_VERSION = '1000';

/** Serves the Kubernetes API of every fleet cluster. */
export class KubernetesGateway {
  private readonly stores = new Map<string, K8sObjectStore>();

  /**
   * @param traffic counts calls and applies faults
   * @param rbac RBAC enforcement: the rules of the ClusterRole bound to every caller; a list or get they do
   *   not allow is 403 Forbidden in kube-apiserver's wording (discovery stays open, as `system:discovery`
   *   grants it to every authenticated user). Absent = everything allowed.
   */
  constructor(
    private readonly ctx: SimContext,
    private readonly traffic: TrafficPolicy,
    private readonly rbac?: readonly PolicyRule[],
  ) {}

  /**
   * Answer one request whose path starts with `/k8s/`.
   * @param rawPath the request path as sent (the fault draw's key)
   * @param segments decoded path segments after `k8s` (first one the cluster id)
   */
  handle(req: IncomingMessage, rawPath: string, segments: string[], query: URLSearchParams): SimResponse {
    try {
      return this.route(req, rawPath, segments, query);
    } catch (e) {
      if (!(e instanceof K8sStatusError)) throw e;
      return { status: e.code, body: e.toStatus(), ...(e.headers ? { headers: e.headers } : {}) };
    }
  }

  private store(clusterId: string): K8sObjectStore | undefined {
    let s = this.stores.get(clusterId);
    if (!s) {
      const c = this.ctx.fleet.cluster(clusterId);
      if (!c) return undefined;
      s = new K8sObjectStore(c.cluster.kubernetes, SIM_RESOURCE_VERSION, c.cluster.detail.created);
      this.stores.set(clusterId, s);
    }
    return s;
  }

  private route(
    req: IncomingMessage,
    rawPath: string,
    segments: string[],
    query: URLSearchParams,
  ): SimResponse {
    const [clusterId = '', ...rest] = segments;
    const cluster = this.ctx.fleet.cluster(clusterId);
    if (!cluster)
      throw new K8sStatusError(404, 'NotFound', `cluster "${clusterId}" is not in the simulated fleet`);
    const auth = header(req, 'authorization') ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    if (!token || !this.ctx.clusterTokens.accepts(clusterId, token))
      throw new K8sStatusError(401, 'Unauthorized', 'Unauthorized');
    const method = (req.method ?? 'GET').toUpperCase();
    if (method !== 'GET')
      throw new K8sStatusError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource (${method}); the fleet simulator is read-only`,
      );
    const objReq = this.objectRequest(rest, query);
    if (objReq && this.rbac) this.authorize(this.rbac, cluster, objReq);
    const action = objReq
      ? `k8s:${objReq.name === undefined ? 'list' : 'get'}:${objReq.resource.name}`
      : 'k8s:discovery';
    const continueList =
      objReq !== undefined && objReq.name === undefined && (query.get('continue') ?? '') !== '';
    const verdict = this.traffic.admitKubernetes(cluster.accountId, action, rawPath, continueList);
    if (verdict.kind === 'throttle')
      throw new K8sStatusError(
        429,
        'TooManyRequests',
        'Too many requests, please try again later.',
        undefined,
        {
          'retry-after': String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))),
        },
      );
    if (verdict.kind === 'fault') {
      switch (verdict.fault) {
        case 'server-error':
          throw new K8sStatusError(
            503,
            'ServiceUnavailable',
            'the server is currently unable to handle the request',
          );
        case 'expire-continue':
          throw new K8sStatusError(410, 'Expired', EXPIRED_CONTINUE_MESSAGE);
        case 'non-json':
          return { status: 502, body: BAD_GATEWAY_HTML, headers: { 'content-type': 'text/html' } };
        case 'timeout':
          return { status: 0, body: '', transport: { kind: 'timeout' } };
        case 'slow':
          return {
            ...this.answer(req, cluster, rest, objReq),
            transport: { kind: 'slow', delayMs: verdict.delayMs },
          };
        case 'truncate':
          return { ...this.answer(req, cluster, rest, objReq), transport: { kind: 'truncate' } };
      }
    }
    return this.answer(req, cluster, rest, objReq);
  }

  /**
   * Refuse a request the RBAC rules do not allow, as kube-apiserver words it (`<resource> is forbidden:
   * User "<user>" cannot <verb> resource "<resource>" in API group "<group>" at the cluster scope` or
   * `in the namespace "<ns>"`). The user is the account id, the kubeconfig's user name (kubeconfig.util.ts).
   */
  private authorize(rules: readonly PolicyRule[], cluster: ClusterEntry, req: K8sObjectRequest): void {
    const verb = req.name === undefined ? 'list' : 'get';
    const { name: resource, group } = req.resource;
    if (rbacAllows(rules, verb, group, resource)) return;
    const where = req.namespace === undefined ? 'at the cluster scope' : `in the namespace "${req.namespace}"`;
    throw new K8sStatusError(
      403,
      'Forbidden',
      `${resource}${group ? `.${group}` : ''} is forbidden: User "${cluster.accountId}" cannot ${verb} resource "${resource}" in API group "${group}" ${where}`,
      { ...(req.name !== undefined ? { name: req.name } : {}), ...(group ? { group } : {}), kind: resource },
    );
  }

  /** The 200 answer (or a thrown `Status`) of an admitted request. */
  private answer(
    req: IncomingMessage,
    cluster: ClusterEntry,
    rest: string[],
    objReq: K8sObjectRequest | undefined,
  ): SimResponse {
    return { status: 200, body: this.content(req, cluster, rest, objReq) };
  }

  private content(
    req: IncomingMessage,
    cluster: ClusterEntry,
    rest: string[],
    objReq: K8sObjectRequest | undefined,
  ): unknown {
    const clusterId = cluster.clusterId;
    const path = rest.join('/');
    if (path === 'version') return versionInfo(cluster.cluster.detail.current_version);
    if (path === 'api') return apiVersions(this.ctx.endpoint);
    if (path === 'apis') return API_GROUP_LIST;
    if (path === 'api/v1') return apiResourceList('v1') as Record<string, unknown>;
    if (rest[0] === 'apis' && rest.length === 2) {
      const group = API_GROUPS.get(rest[1] as string);
      if (group) return group;
    }
    if (rest[0] === 'apis' && rest.length === 3) {
      const list = apiResourceList(`${rest[1]}/${rest[2]}`);
      if (list) return list;
    }
    if (!objReq)
      throw new K8sStatusError(404, 'NotFound', 'the server could not find the requested resource', {});
    const store = this.store(clusterId) as K8sObjectStore;
    if (!store.kube) {
      const verb = objReq.name === undefined ? 'list' : 'get';
      throw new K8sStatusError(
        403,
        'Forbidden',
        `${objReq.resource.name} is forbidden: User "sim" cannot ${verb} resource "${objReq.resource.name}" in API group "${objReq.resource.group}" (the Kubernetes objects of this cluster are not in the simulated fleet)`,
        {
          kind: objReq.resource.name,
        },
      );
    }
    if (objReq.name !== undefined) return getObject(store, objReq);
    const listJson = listObjects(store, objReq);
    return wantsTable(header(req, 'accept'))
      ? tableFor(objReq.resource, JSON.parse(listJson) as Record<string, unknown>, this.ctx.now())
      : listJson;
  }

  /** Parse `api/v1/...` or `apis/<group>/<version>/...` object paths. */
  private objectRequest(rest: string[], query: URLSearchParams): K8sObjectRequest | undefined {
    let gv: string;
    let tail: string[];
    if (rest[0] === 'api' && rest[1] === 'v1') {
      gv = 'v1';
      tail = rest.slice(2);
    } else if (rest[0] === 'apis' && rest.length >= 4) {
      gv = `${rest[1]}/${rest[2]}`;
      tail = rest.slice(3);
    } else return undefined;
    const resolve = (plural: string | undefined): K8sResource | undefined =>
      plural === undefined ? undefined : findResource(gv, plural);
    // namespaces/<ns>/<resource>[/<name>]
    if (tail[0] === 'namespaces' && tail.length >= 3) {
      const resource = resolve(tail[2]);
      if (!resource || !resource.namespaced || tail.length > 4) return undefined;
      return {
        resource,
        namespace: tail[1] as string,
        ...(tail.length === 4 ? { name: tail[3] as string } : {}),
        query,
      };
    }
    // <resource>[/<name>]
    const resource = resolve(tail[0]);
    if (!resource || tail.length > 2) return undefined;
    if (tail.length === 2)
      return resource.namespaced ? undefined : { resource, name: tail[1] as string, query };
    return { resource, query };
  }
}
