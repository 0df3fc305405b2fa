import { describe, expect, it } from 'vitest';
import type { WireKubernetes } from '@app/domain';
import { K8sObjectStore } from './k8s-object.store';
import { findResource, getObject, listObjects } from './k8s-objects.handler';

const kube = (): WireKubernetes => ({
  nodes: ['n3', 'n1', 'n2'].map((name) => ({ metadata: { name } })),
  services: [
    { metadata: { name: 'b', namespace: 'x' }, spec: { type: 'ClusterIP' } },
    { metadata: { name: 'a', namespace: 'y' }, spec: { type: 'LoadBalancer' } },
    { metadata: { name: 'a', namespace: 'x' }, spec: { type: 'NodePort' } },
  ],
  pods: [],
  endpointSlices: [],
  events: [],
});

const resource = (gv: string, name: string) => {
  const r = findResource(gv, name);
  if (!r) throw new Error(`no ${name}`);
  return r;
};

describe('listObjects', () => {
  const store = new K8sObjectStore(kube(), '7', '2021-01-01T00:00:00Z');

  it('sorts by namespace then name, adds apiVersion/kind, and pages with limit/continue', () => {
    const services = resource('v1', 'services');
    const first = JSON.parse(
      listObjects(store, { resource: services, query: new URLSearchParams('limit=2') }),
    ) as {
      kind: string;
      metadata: { continue?: string; remainingItemCount?: number; resourceVersion: string };
      items: { apiVersion: string; kind: string; metadata: { namespace: string; name: string } }[];
    };
    expect(first.kind).toBe('ServiceList');
    expect(first.metadata).toMatchObject({ resourceVersion: '7', remainingItemCount: 1 });
    expect(first.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['x/a', 'x/b']);
    expect(first.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'Service' });
    const second = JSON.parse(
      listObjects(store, {
        resource: services,
        query: new URLSearchParams({ limit: '2', continue: first.metadata.continue ?? '' }),
      }),
    ) as {
      metadata: { continue?: string };
      items: { metadata: { name: string } }[];
    };
    expect(second.items.map((i) => i.metadata.name)).toEqual(['a']);
    expect(second.metadata.continue).toBeUndefined();
  });

  it('rejects a continue token of another list (400) or another resourceVersion (410)', () => {
    const nodes = resource('v1', 'nodes');
    const services = resource('v1', 'services');
    const page = JSON.parse(
      listObjects(store, { resource: nodes, query: new URLSearchParams('limit=1') }),
    ) as { metadata: { continue: string } };
    expect(() =>
      listObjects(store, {
        resource: services,
        query: new URLSearchParams({ continue: page.metadata.continue }),
      }),
    ).toThrow(expect.objectContaining({ code: 400 }));
    const restarted = new K8sObjectStore(kube(), '8', undefined);
    expect(() =>
      listObjects(restarted, {
        resource: nodes,
        query: new URLSearchParams({ continue: page.metadata.continue }),
      }),
    ).toThrow(expect.objectContaining({ code: 410, reason: 'Expired' }));
  });

  it('lists one namespace, synthesises namespaces, and gets single objects', () => {
    const services = resource('v1', 'services');
    const y = JSON.parse(
      listObjects(store, { resource: services, namespace: 'y', query: new URLSearchParams() }),
    ) as { items: unknown[] };
    expect(y.items).toHaveLength(1);
    const ns = JSON.parse(
      listObjects(store, { resource: resource('v1', 'namespaces'), query: new URLSearchParams() }),
    ) as { items: { metadata: { name: string } }[] };
    expect(ns.items.map((n) => n.metadata.name)).toEqual([
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
      'x',
      'y',
    ]);
    expect(
      JSON.parse(
        getObject(store, { resource: resource('v1', 'nodes'), name: 'n2', query: new URLSearchParams() }),
      ),
    ).toMatchObject({ kind: 'Node', metadata: { name: 'n2' } });
    expect(() =>
      getObject(store, { resource: services, namespace: 'x', name: 'zz', query: new URLSearchParams() }),
    ).toThrow('services "zz" not found');
  });
});
