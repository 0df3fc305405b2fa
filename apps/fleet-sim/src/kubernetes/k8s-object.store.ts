/**
 * The Kubernetes objects of one simulated cluster, indexed on first use: per resource the
 * objects sorted as etcd returns them (namespace, then name), per namespace, and by
 * `namespace/name`. Every object carries `apiVersion` and `kind`; its JSON is cached so large
 * lists are assembled from strings instead of re-serialised on every page.
 */
import type { WireKubernetes } from '@app/domain';
import { apiVersionOf, type K8sResource } from './k8s-resources.constants';

/** One stored object. */
export interface StoredObject {
  namespace: string;
  name: string;
  obj: Record<string, unknown>;
}

/** The indexed objects of one resource type. */
export interface ResourceIndex {
  all: StoredObject[];
  byNamespace: Map<string, StoredObject[]>;
  byKey: Map<string, StoredObject>;
}

/** Namespaces every cluster has, whether or not an object lives in them. */
const BUILTIN_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

function metaOf(o: Record<string, unknown>): Record<string, unknown> {
  const m = o['metadata'];
  return typeof m === 'object' && m !== null ? (m as Record<string, unknown>) : {};
}

/** Objects of one cluster. */
export class K8sObjectStore {
  private readonly indexes = new Map<string, ResourceIndex>();
  private readonly jsonCache = new WeakMap<StoredObject, string>();

  /**
   * @param kube the cluster's objects (`undefined`: the fleet holds none; callers answer 403)
   * @param resourceVersion the `metadata.resourceVersion` of every list (the fleet is static)
   * @param createdAt creation time reported for synthesised namespaces (the cluster's `created`)
   */
  constructor(
    readonly kube: WireKubernetes | undefined,
    readonly resourceVersion: string,
    private readonly createdAt: string | undefined,
  ) {}

  /** Index of a resource (built on first call). */
  index(resource: K8sResource): ResourceIndex {
    let idx = this.indexes.get(resource.name);
    if (!idx) {
      idx = this.build(resource);
      this.indexes.set(resource.name, idx);
    }
    return idx;
  }

  /** The object's JSON (cached). */
  json(o: StoredObject): string {
    let s = this.jsonCache.get(o);
    if (s === undefined) {
      s = JSON.stringify(o.obj);
      this.jsonCache.set(o, s);
    }
    return s;
  }

  private rawObjects(resource: K8sResource): Record<string, unknown>[] {
    const kube = this.kube;
    if (!kube) return [];
    if (resource.source !== 'namespaces')
      return kube[resource.source] as unknown as Record<string, unknown>[];
    const names = new Set(BUILTIN_NAMESPACES);
    for (const list of [kube.services, kube.pods, kube.endpointSlices, kube.events])
      for (const o of list) names.add(o.metadata.namespace);
    return [...names].map((name) => ({
      metadata: {
        name,
        labels: { 'kubernetes.io/metadata.name': name },
        ...(this.createdAt ? { creationTimestamp: this.createdAt } : {}),
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    }));
  }

  private build(resource: K8sResource): ResourceIndex {
    const apiVersion = apiVersionOf(resource);
    const all: StoredObject[] = this.rawObjects(resource).map((raw) => {
      const meta = metaOf(raw);
      const namespace = resource.namespaced ? String(meta['namespace'] ?? 'default') : '';
      // apiVersion and kind first, as the API server prints them (re-set after the spread in case the file had others).
      const obj: Record<string, unknown> = { apiVersion, kind: resource.kind, ...raw };
      obj['apiVersion'] = apiVersion;
      obj['kind'] = resource.kind;
      return { namespace, name: String(meta['name'] ?? ''), obj };
    });
    all.sort((a, b) =>
      a.namespace === b.namespace
        ? a.name < b.name
          ? -1
          : a.name > b.name
            ? 1
            : 0
        : a.namespace < b.namespace
          ? -1
          : 1,
    );
    const byNamespace = new Map<string, StoredObject[]>();
    const byKey = new Map<string, StoredObject>();
    for (const o of all) {
      const list = byNamespace.get(o.namespace) ?? [];
      list.push(o);
      byNamespace.set(o.namespace, list);
      byKey.set(`${o.namespace}/${o.name}`, o);
    }
    return { all, byNamespace, byKey };
  }
}
