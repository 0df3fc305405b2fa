import { describe, expect, it } from 'vitest';
import { ManifestError, MAX_PLAN_OBJECTS, planManifests, readManifests, ScenarioError } from '@app/forecast';
import { CLUSTER, NOW, smallFleet } from './forecast-fleet.util';

const service = (name: string, extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) =>
  [
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${name}`,
    ...Object.entries(extra).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    'spec:',
    '  type: LoadBalancer',
    `  selector: {app: ${name}}`,
    '  ports: [{port: 80, targetPort: 8080, protocol: TCP}]',
    ...Object.entries(spec).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
  ].join('\n');

const deployment = (name: string, replicas: number | undefined, ns?: string) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    ...(ns ? [`  namespace: ${ns}`] : []),
    'spec:',
    ...(replicas !== undefined ? [`  replicas: ${replicas}`] : []),
    `  selector: {matchLabels: {app: ${name}}}`,
    `  template: {metadata: {labels: {app: ${name}, tier: web}}}`,
  ].join('\n');

describe('readManifests', () => {
  it('reads every document and List item, defaults the namespace, counts what it does not judge', () => {
    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [JSON.parse(JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'c' } })), { kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'ops' }, spec: { template: { metadata: { labels: { app: 'agent' } } } } }] });
    const m = readManifests([
      { source: 'app.yaml', text: `${service('web')}\n---\n${deployment('web', 3)}\n---\n# only a comment\n---\n${deployment('api', undefined, 'shop')}` },
      { source: 'list.json', text: list },
    ]);
    expect(m.services.map((s) => [s.manifest.metadata.namespace, s.manifest.metadata.name, s.source])).toEqual([['default', 'web', 'app.yaml document 1']]);
    expect(m.workloads).toEqual([
      { kind: 'Deployment', namespace: 'default', name: 'web', labels: { app: 'web', tier: 'web' }, replicas: 3 },
      { kind: 'Deployment', namespace: 'shop', name: 'api', labels: { app: 'api', tier: 'web' }, replicas: 1 },
      { kind: 'DaemonSet', namespace: 'ops', name: 'agent', labels: { app: 'agent' }, replicas: undefined },
    ]);
    expect(m.ignored).toEqual({ ConfigMap: 1 });
  });

  it('names the file, the document and the field of what it cannot read', () => {
    const bad = service('web').replace('port: 80,', 'port: "eighty",');
    expect(() => readManifests([{ source: 'a.yaml', text: `${deployment('x', 1)}\n---\n${bad}` }])).toThrow(/^a\.yaml document 2: invalid Service field spec\.ports\.0\.port: /);
    expect(() => readManifests([{ source: 'b.yaml', text: 'kind: Service\nmetadata: {name: [unclosed' }])).toThrow(ManifestError);
    expect(() => readManifests([{ source: 'b.yaml', text: 'kind: Service\nmetadata: {name: [unclosed' }])).toThrow(/b\.yaml.*line \d+/);
    expect(() => readManifests([{ source: 'c.yaml', text: 'metadata: {name: x}' }])).toThrow('c.yaml: the object has no kind');
    expect(() => readManifests([{ source: 'd.yaml', text: '- 1\n- 2' }])).toThrow('d.yaml: expected a Kubernetes object (a mapping with kind), got a list');
    const many = JSON.stringify({ kind: 'List', items: Array.from({ length: MAX_PLAN_OBJECTS + 1 }, (_, i) => ({ kind: 'ConfigMap', metadata: { name: `c${i}` } })) });
    expect(() => readManifests([{ source: 'e.json', text: many }])).toThrow(`e.json items.${MAX_PLAN_OBJECTS}: more than ${MAX_PLAN_OBJECTS} objects`);
  });
});

describe('planManifests', () => {
  it('a Cluster-mode Service on a cluster larger than the CLB backend quota breaches it; Local mode with its pods does not', () => {
    const fleet = () => smallFleet({ nodes: 250 });
    const cluster = planManifests(fleet(), readManifests([{ source: 'svc.yaml', text: `${service('web')}\n---\n${deployment('web', 3)}` }]), { cluster: CLUSTER, now: NOW });
    expect(cluster.services).toEqual([{ service: 'default/web', action: 'create', source: 'svc.yaml document 1', workloads: ['Deployment/web'], pods: 3 }]);
    expect(cluster.step.firstBreach).toMatchObject({ checkId: 'CLB_BACKEND_QUOTA', before: { used: 0 }, after: { used: 250, limit: 200 } });
    expect(cluster.step.findings.appeared.some((f) => f.checkId === 'CLB_BACKEND_QUOTA' && f.severity === 'critical')).toBe(true);
    expect(cluster.convergence.services).toBe(1);
    expect(cluster.convergence.callsPerApi.CreateLoadBalancer).toBe(1);

    const local = planManifests(fleet(), readManifests([{ source: 'svc.yaml', text: `${service('web', {}, { externalTrafficPolicy: 'Local' })}\n---\n${deployment('web', 3)}` }]), { cluster: 'small', now: NOW });
    expect(local.cluster).toEqual({ id: CLUSTER, name: 'small' });
    expect(local.step.firstBreach).toBeNull();
    expect(local.step.quotas.find((q) => q.checkId === 'CLB_BACKEND_QUOTA')).toMatchObject({ after: { used: 3 } });
  });

  it('an update keeps the Service (no new CLB) and rewrites its backends; a deletion releases the CLB CCM created', () => {
    const fleet = smallFleet({ nodes: 20, clusterServices: 2 });
    const existing = fleet.accounts[0]!.regions[0]!.clusters[0]!.kubernetes!.services.map((s) => s.name).sort();
    const [first, second] = existing as [string, string];
    const update = `${service(first, { namespace: 'shop' }, { externalTrafficPolicy: 'Local' })}\n---\n${deployment(first, 2, 'shop')}`;
    const plan = planManifests(fleet, readManifests([{ source: '-', text: update }]), { cluster: CLUSTER, deletes: [`shop/${second}`], now: NOW });
    expect(plan.services.map((s) => [s.service, s.action, s.pods])).toEqual([
      [`shop/${second}`, 'delete', undefined],
      [`shop/${first}`, 'update', 2],
    ]);
    const instances = plan.step.quotas.find((q) => q.checkId === 'CLB_INSTANCE_QUOTA')!;
    expect([instances.before.used, instances.after.used]).toEqual([2, 1]);
    const backends = plan.step.quotas.filter((q) => q.checkId === 'CLB_BACKEND_QUOTA');
    expect(backends.map((q) => [q.before.used, q.after.used]).sort()).toEqual([[20, 0], [20, 2]]);
  });

  it('refuses what cannot be planned, naming it', () => {
    const m = readManifests([{ source: 'svc.yaml', text: service('web') }]);
    expect(() => planManifests(smallFleet(), m, { cluster: 'nope', now: NOW })).toThrow(/^--cluster: /);
    expect(() => planManifests(smallFleet(), m, { cluster: CLUSTER, deletes: ['shop/gone'], now: NOW })).toThrow(ScenarioError);
    expect(() => planManifests(smallFleet(), m, { cluster: CLUSTER, deletes: ['shop/gone'], now: NOW })).toThrow(/"shop\/gone" is not a Service of cluster c-forecast/);
    expect(() => planManifests(smallFleet(), readManifests([{ source: 'x.yaml', text: 'kind: ConfigMap\nmetadata: {name: c}' }]), { cluster: CLUSTER, now: NOW })).toThrow(
      'no Service to plan: the manifests hold no Service and no --delete was given',
    );
    const nlb = readManifests([{ source: 'nlb.yaml', text: service('edge', {}, { loadBalancerClass: 'alibabacloud.com/nlb' }) }]);
    expect(() => planManifests(smallFleet(), nlb, { cluster: CLUSTER, now: NOW })).toThrow(/NLB/);
    const twice = readManifests([{ source: 'two.yaml', text: `${service('web')}\n---\n${service('web')}` }]);
    expect(() => planManifests(smallFleet(), twice, { cluster: CLUSTER, now: NOW })).toThrow(/Service "default\/web" is given twice/);
  });
});
