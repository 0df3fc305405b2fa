/**
 * The simulated Kubernetes API read through `@kubernetes/client-node` and Debian's kubectl,
 * with the kubeconfig CS DescribeClusterUserKubeconfig hands out.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as $Cs from '@alicloud/cs20151215';
import { CoreV1Api, DiscoveryV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { readFleetDirectory } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csClient } from './sim-clients.util';
import { SIM_FLEET_IDS as IDS, writeSimFleet } from './sim-fleet.factory';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';

let sim: RunningSimulator;
let kubeconfig: string;
let kubeconfigFile: string;
let cacheDir: string;

beforeAll(async () => {
  sim = await startSimulator({ fleet: readFleetDirectory(writeSimFleet({ nodes: 7 })) });
  const r = await csClient(sim).describeClusterUserKubeconfig(
    IDS.clusterId,
    new $Cs.DescribeClusterUserKubeconfigRequest({}),
  );
  kubeconfig = r.body?.config ?? '';
  const dir = mkdtempSync(join(tmpdir(), 'sim-kube-'));
  kubeconfigFile = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigFile, kubeconfig, { mode: 0o600 });
  cacheDir = join(dir, 'cache');
});
afterAll(async () => {
  await sim.close();
});

const kubectl = async (...args: string[]): Promise<string> =>
  (
    await run(KUBECTL, ['--kubeconfig', kubeconfigFile, '--cache-dir', cacheDir, ...args], {
      timeout: 60_000,
    })
  ).stdout;

function api<T extends CoreV1Api | DiscoveryV1Api>(cls: new (...a: never[]) => T, config = kubeconfig): T {
  const kc = new KubeConfig();
  kc.loadFromString(config);
  return kc.makeApiClient(cls as never) as T;
}

describe('@kubernetes/client-node', () => {
  it('listNode pages with limit/continue to the end', async () => {
    const core = api(CoreV1Api);
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNode({ limit: 3, ...(cont ? { _continue: cont } : {}) });
      expect(page.kind).toBe('NodeList');
      expect(page.metadata?.resourceVersion).toBeTruthy();
      names.push(...page.items.map((n: V1Node) => n.metadata?.name ?? ''));
      expect(page.items[0]?.spec?.providerID).toMatch(/^cn-hangzhou\.i-/);
      cont = page.metadata?._continue || undefined;
      pages++;
    } while (cont);
    expect(pages).toBe(3);
    expect(names).toHaveLength(7);
    expect([...names].sort()).toEqual(names);
  });

  it('lists services, pods and events in all namespaces and per namespace; reads one object', async () => {
    const core = api(CoreV1Api);
    const svcs = await core.listServiceForAllNamespaces();
    expect(svcs.items.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)).toEqual([
      'default/web',
      'kube-system/kube-dns',
      'shop/api',
      'shop/db',
    ]);
    expect(svcs.items[0]?.apiVersion).toBe('v1');
    expect(svcs.items[0]?.kind).toBe('Service');
    const shopPods = await core.listNamespacedPod({ namespace: 'shop' });
    expect(shopPods.items.map((p) => p.metadata?.name)).toEqual(['api-1']);
    const events = await core.listEventForAllNamespaces();
    expect(events.items[0]?.reason).toBe('SyncLoadBalancerFailed');
    const web = await core.readNamespacedService({ name: 'web', namespace: 'default' });
    expect(web.spec?.ports?.[0]?.nodePort).toBe(30080);
    const node = await core.readNode({ name: 'cn-hangzhou.192.168.0.10' });
    expect(node.metadata?.name).toBe('cn-hangzhou.192.168.0.10');
  });

  it('lists endpoint slices (discovery.k8s.io/v1)', async () => {
    const slices = await api(DiscoveryV1Api).listEndpointSliceForAllNamespaces();
    expect(slices.items[0]?.endpoints?.[0]?.addresses).toEqual(['172.20.0.2']);
    expect(slices.items[0]?.kind).toBe('EndpointSlice');
  });

  it('filters with label and field selectors', async () => {
    const core = api(CoreV1Api);
    expect((await core.listNode({ labelSelector: 'pool=a' })).items).toHaveLength(4);
    expect((await core.listNode({ labelSelector: 'pool in (b)' })).items).toHaveLength(3);
    expect(
      (
        await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=cn-hangzhou.192.168.0.11' })
      ).items.map((p) => p.metadata?.name),
    ).toEqual(['web-2']);
    await expect(core.listPodForAllNamespaces({ fieldSelector: 'spec.bogus=1' })).rejects.toMatchObject({
      code: 400,
    });
  });

  it('401 without the cluster token, 404 for an unknown object', async () => {
    const bad = kubeconfig.replace(/token: sim-[0-9a-f]+/, 'token: sim-wrong');
    await expect(api(CoreV1Api, bad).listNode()).rejects.toMatchObject({ code: 401 });
    await expect(
      api(CoreV1Api).readNamespacedPod({ name: 'nope', namespace: 'default' }),
    ).rejects.toMatchObject({ code: 404 });
  });
});

describe('raw HTTP errors are Status objects', () => {
  it('unknown cluster 404, missing token 401, write 405', async () => {
    const base = `http://${sim.endpoint}/k8s`;
    const token = /token: (\S+)/.exec(kubeconfig)?.[1] ?? '';
    const unknown = await fetch(`${base}/c00000000000000000000000000000000/api/v1/nodes`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
    });
    const anon = await fetch(`${base}/${IDS.clusterId}/api/v1/nodes`);
    expect(anon.status).toBe(401);
    expect(await anon.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const del = await fetch(`${base}/${IDS.clusterId}/api/v1/namespaces/default/pods/web-1`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(del.status).toBe(405);
    const badContinue = await fetch(`${base}/${IDS.clusterId}/api/v1/nodes?limit=2&continue=garbage`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(badContinue.status).toBe(400);
  });
});

describe('kubectl', () => {
  it('get nodes,svc -A -o json lists every node and service', async () => {
    const out = JSON.parse(await kubectl('get', 'nodes,svc', '-A', '-o', 'json')) as {
      kind: string;
      items: { kind: string; metadata: { name: string } }[];
    };
    expect(out.kind).toBe('List');
    expect(out.items.filter((i) => i.kind === 'Node')).toHaveLength(7);
    expect(out.items.filter((i) => i.kind === 'Service').map((i) => i.metadata.name)).toEqual([
      'web',
      'kube-dns',
      'api',
      'db',
    ]);
  });

  it('get pods -n shop, endpointslices -A, events -A, namespaces', async () => {
    const pods = JSON.parse(await kubectl('get', 'pods', '-n', 'shop', '-o', 'json')) as {
      items: { metadata: { name: string } }[];
    };
    expect(pods.items.map((p) => p.metadata.name)).toEqual(['api-1']);
    const slices = JSON.parse(await kubectl('get', 'endpointslices', '-A', '-o', 'json')) as {
      items: unknown[];
    };
    expect(slices.items).toHaveLength(1);
    const events = JSON.parse(await kubectl('get', 'events', '-A', '-o', 'json')) as {
      items: { reason: string }[];
    };
    expect(events.items[0]?.reason).toBe('SyncLoadBalancerFailed');
    const ns = JSON.parse(await kubectl('get', 'namespaces', '-o', 'json')) as {
      items: { metadata: { name: string } }[];
    };
    expect(ns.items.map((n) => n.metadata.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'shop']),
    );
  });

  it('pages with --chunk-size and prints server-side tables', async () => {
    const chunked = JSON.parse(await kubectl('get', 'nodes', '--chunk-size=2', '-o', 'json')) as {
      items: unknown[];
    };
    expect(chunked.items).toHaveLength(7);
    const table = await kubectl('get', 'svc', '-A');
    expect(table).toMatch(/NAMESPACE\s+NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE/);
    expect(table).toMatch(/default\s+web\s+LoadBalancer\s+172\.21\.0\.10\s+47\.0\.0\.1\s+80:30080\/TCP/);
    const nodes = await kubectl('get', 'nodes');
    expect(nodes).toMatch(/cn-hangzhou\.192\.168\.0\.10\s+Ready/);
  });

  it('version reports the cluster version', async () => {
    const out = JSON.parse(await kubectl('version', '-o', 'json')) as {
      serverVersion: { gitVersion: string };
    };
    expect(out.serverVersion.gitVersion).toBe('v1.30.1-aliyun.1');
  });
});
