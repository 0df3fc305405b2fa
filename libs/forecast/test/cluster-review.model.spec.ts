/**
 * The admission review model (libs/forecast cluster-review.model.ts) answers exactly what `plan` answers for one
 * Service: for each cluster and Service of a matrix (Cluster and Local mode, a listener breach, intranet with a
 * vSwitch, ENI backends, an annotation too new for the CCM, NLB, an update of an existing Service, a reuse by id),
 * the model's quotas, first breach, findings, planned Services and convergence equal `planManifests` on the whole
 * snapshot, on the sample fleet and on a fleet of the bench fleet's shape (one region of 12 clusters of 100 nodes and
 * 22 LoadBalancer Services each). Where the model falls back to the whole what-if it says why, and it falls back only
 * on the reuse of a load balancer it holds as a stub and on the rare results it cannot compute exactly. Most answers
 * run the per-Service checks on the reviewed Service alone (the model's increment), and some take the region checks'
 * results from an earlier review of the same signature (Services naming vSwitches come after those), so these
 * comparisons test both.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateFleet, generateSpecSchema, loadFleetDirectory } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot } from '@app/domain';
import type { PartialAuditSettings } from '@app/checks';
import { ClusterReviewModel, planManifests, readManifests, regionBaseline, type PlanResult } from '@app/forecast';
import { millionBackendSpec } from '../../../bench/bench-support';

const SAMPLE = join(__dirname, '..', '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');

/** A LoadBalancer Service manifest; `spec` and `annotations` as flow-style YAML fragments. */
function service(name: string, spec: string, annotations = '{}', namespace = 'shop'): string {
  return `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: ${namespace}, annotations: ${annotations}}\nspec: {type: LoadBalancer, selector: {app: ${name}}, ${spec}}\n`;
}

const A = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer';
const ports = (n: number) => `ports: [${Array.from({ length: n }, (_, i) => `{name: p${i}, port: ${8000 + i}, targetPort: 8080}`).join(', ')}]`;

/** The matrix of new Services (name -> manifest), planned on every cluster under test. */
const NEW_SERVICES: Record<string, string> = {
  cluster2: service('rv-cluster', ports(2)),
  local: service('rv-local', `externalTrafficPolicy: Local, ${ports(1)}`),
  wide: service('rv-wide', `externalTrafficPolicy: Local, ${ports(51)}`),
  intranet: service('rv-intranet', ports(1), `{${A}-address-type: intranet}`),
  eni: service('rv-eni', ports(1), '{service.beta.kubernetes.io/backend-type: eni}'),
  tooNew: service('rv-new-annotation', ports(1), `{${A}-default-weight: "50", ${A}-preserve-lb-on-delete: "on"}`),
  nlb: service('rv-nlb', `loadBalancerClass: alibabacloud.com/nlb, ${ports(1)}`),
};

/** The parts of a plan a review answers from (headroom is not computed by the model). */
function answerOf(p: PlanResult) {
  return { services: p.services, quotas: p.step.quotas, firstBreach: p.step.firstBreach, findings: p.step.findings, convergence: p.convergence };
}

/** Plans `text` both ways on `clusterId`; the model's answer, or its fallback reason, and whether it equals `plan`. */
function compare(snapshot: FleetSnapshot, model: ClusterReviewModel, clusterId: string, text: string, settings?: PartialAuditSettings): { fallback?: string } {
  const manifests = readManifests([{ source: 'admission request', text }]);
  let full: PlanResult | Error;
  try {
    full = planManifests(snapshot, manifests, { cluster: clusterId, now: NOW, ...(settings ? { settings } : {}) });
  } catch (e) {
    full = e as Error;
  }
  let fast: ReturnType<ClusterReviewModel['review']> | Error;
  try {
    fast = model.review(manifests.services[0]!.manifest);
  } catch (e) {
    fast = e as Error;
  }
  if (full instanceof Error) {
    // The same refusal, with the same message.
    expect(fast).toBeInstanceOf(Error);
    expect((fast as Error).message).toBe(full.message);
    return {};
  }
  if (fast instanceof Error) throw fast;
  if ('fallback' in fast) return { fallback: `${fast.fallback}: ${fast.detail}` };
  expect(answerOf(fast.plan)).toEqual(answerOf(full));
  return {};
}

/** The matrix on each cluster: new Services, an update of its first LoadBalancer Service, a reuse of its own CLB and of another cluster's. */
function runMatrix(
  snapshot: FleetSnapshot,
  clusterIds: readonly string[],
  settings?: PartialAuditSettings,
): { answered: number; fallbacks: string[]; alone: number; regionRemembered: number; counted: number; serviceChecks: Set<string>; countingChecks: Set<string>; twinClbs: number } {
  let answered = 0;
  let twinClbs = 0;
  let alone = 0;
  let regionRemembered = 0;
  let counted = 0;
  const countingChecks = new Set<string>();
  const serviceChecks = new Set<string>();
  const fallbacks: string[] = [];
  for (const clusterId of clusterIds) {
    const options = { now: NOW, ...(settings ? { settings } : {}) };
    const model = new ClusterReviewModel(snapshot, clusterId, regionBaseline(snapshot, clusterId, options), options);
    const cluster = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters)).find((c) => c.clusterId === clusterId)!;
    const region = snapshot.accounts.flatMap((a) => a.regions).find((r) => r.clusters.includes(cluster))!;
    const cases: Record<string, string> = { ...NEW_SERVICES };
    const existing = cluster.kubernetes?.services.find((s) => s.type === 'LoadBalancer' && !s.loadBalancerClass);
    if (existing) cases.update = service(existing.name, `${ports(3)}`, '{}', existing.namespace);
    const own = region.loadBalancers?.find((c) => Object.values(c.tags).includes(clusterId));
    if (own) cases.reuseOwn = service('rv-reuse-own', ports(1), `{${A}-id: ${own.loadBalancerId}}`);
    const foreign = region.loadBalancers?.find((c) => !Object.values(c.tags).includes(clusterId) && c.listeners.length > 0);
    if (foreign) cases.reuseForeign = service('rv-reuse-foreign', ports(1), `{${A}-id: ${foreign.loadBalancerId}}`);
    // After the reviews above, the region checks' results they left in the model's memo must not answer these: the
    // same shape as an earlier Service under another name (the memo's answer is right), a Service naming one of the
    // region's vSwitches (it joins that vSwitch's users) and one naming a vSwitch that does not exist (critical).
    cases.cluster2Again = service('rv-cluster-again', ports(2));
    const vSwitch = region.vSwitches?.[0]?.vSwitchId;
    if (vSwitch) cases.vSwitch = service('rv-vswitch', ports(1), `{${A}-address-type: intranet, ${A}-vswitch-id: ${vSwitch}}`);
    cases.vSwitchMissing = service('rv-vswitch-missing', ports(1), `{${A}-address-type: intranet, ${A}-vswitch-id: vsw-missing000000}`);
    cases.intranetAgain = service('rv-intranet-again', ports(1), `{${A}-address-type: intranet}`);
    for (const [name, text] of Object.entries(cases)) {
      const r = compare(snapshot, model, clusterId, text, settings);
      if (r.fallback) fallbacks.push(`${cluster.name} ${name} ${r.fallback}`);
      else answered++;
    }
    alone += model.answered.serviceAlone;
    regionRemembered += model.answered.regionRemembered;
    counted += model.answered.counted;
    for (const id of model.serviceChecks) serviceChecks.add(id);
    for (const id of model.countingChecks) countingChecks.add(id);
    twinClbs += model.size.twinClbs;
  }
  return { answered, fallbacks, alone, regionRemembered, counted, serviceChecks, countingChecks, twinClbs };
}

describe('ClusterReviewModel: the same answer as plan, Service by Service', () => {
  it('on the sample fleet (every cluster)', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const ids = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters.map((c) => c.clusterId)));
    const before = JSON.stringify(snapshot);
    // One model per cluster answers every review of the matrix in turn: a review that left anything behind in the
    // model would change the answers after it.
    const { answered, fallbacks, alone, regionRemembered } = runMatrix(snapshot, ids);
    expect(JSON.stringify(snapshot), 'the snapshot is left as it was').toBe(before);
    // Most answers ran the Service checks on the reviewed Service alone (the increment compared with plan above).
    expect(alone).toBeGreaterThan(answered / 2);
    // Reviews whose region checks' results came from an earlier review of the same signature (the second Service of
    // a shape, at least, on every cluster whose region checks allow it), compared with plan like every other answer.
    expect(regionRemembered).toBeGreaterThanOrEqual(10);
    // The model answers every review but those on a CLB other clusters use (reused across clusters: storefront's
    // status page CLB) or held as a stub (another cluster's CLB), and a Service naming a vSwitch only other clusters
    // use (the region's result on it is not the slice's).
    expect(answered).toBe(77);
    for (const f of fallbacks) expect(f).toMatch(/ (update shared-lb|reuseForeign (shared-lb|names-stub)): lb-\S+$| vSwitch untrusted-result: VSWITCH_IP_EXHAUSTION on VSwitch vsw-\S+$/);
    expect(fallbacks.filter((f) => f.includes(' vSwitch ')).length, 'the vSwitch case falls back somewhere').toBeGreaterThan(0);
  });

  it('on the bench fleet\'s shape (one region of 12 clusters, both CCM versions)', () => {
    const spec = generateSpecSchema.parse({ ...millionBackendSpec(22, { nlb: true }), accounts: 1, clusters: 12 });
    const snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
    const clusters = snapshot.accounts[0]!.regions[0]!.clusters;
    const ids = [clusters[0]!, clusters[1]!].map((c) => c.clusterId);
    expect(new Set([clusters[0]!.ccmVersion, clusters[1]!.ccmVersion]).size).toBe(2);
    const { answered, fallbacks, alone, counted, serviceChecks, countingChecks, twinClbs } = runMatrix(snapshot, ids);
    expect(answered).toBe(26);
    // The per-Service checks of the bench shape run on the reviewed Service alone; those that count over the cluster
    // (a node's attachments, Cluster-mode blowup) are answered from the counts the step moves (compared with plan above).
    expect(serviceChecks).toContain('LB_CONFIG_DRIFT');
    expect(serviceChecks).toContain('CLB_BACKEND_QUOTA');
    expect(serviceChecks).not.toContain('ECS_LB_ATTACHMENT_QUOTA');
    expect(serviceChecks).not.toContain('CLUSTER_MODE_BLOWUP');
    expect([...countingChecks].sort()).toEqual(['CLUSTER_MODE_BLOWUP', 'ECS_LB_ATTACHMENT_QUOTA']);
    expect(alone).toBeGreaterThanOrEqual(14);
    expect(counted).toBeGreaterThanOrEqual(10);
    // The reviews answered from the counts audited the slice with the other Services' CLBs as backend twins.
    expect(twinClbs).toBeGreaterThan(0);
    for (const f of fallbacks) expect(f).toMatch(/ reuseForeign names-stub: lb-\S+$/);
  });

  it("keeps the scan's failed coverage of its own cluster, region and account (a skipped result's reason names it as the region's does)", () => {
    const spec = generateSpecSchema.parse({ ...millionBackendSpec(22), accounts: 1, clusters: 4 });
    const snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
    const account = snapshot.accounts[0]!;
    const region = account.regions[0]!;
    const [target, other] = region.clusters;
    // Node port ranges not read on two clusters (NODEPORT_EPHEMERAL_OVERLAP skips them naming the coverage message), and
    // the scan's failures recorded for the target cluster, the other cluster, the region and the account.
    delete target!.nodeLocalPortRanges;
    delete other!.nodeLocalPortRanges;
    const at = { accountId: account.accountId, regionId: region.regionId };
    const failures = [
      { ...at, clusterId: target!.clusterId, api: 'sysctls' as const, status: 'failed' as const, errorCode: 'Timeout', message: 'node sysctls timed out' },
      { ...at, clusterId: other!.clusterId, api: 'sysctls' as const, status: 'failed' as const, errorCode: 'Forbidden', message: 'no exec on nodes' },
      { ...at, api: 'nlb' as const, status: 'failed' as const, errorCode: 'Forbidden.RAM', message: 'no NLB permission' },
      { accountId: account.accountId, api: 'ram' as const, status: 'failed' as const, errorCode: 'Forbidden.RAM', message: 'no RAM permission' },
    ];
    const model = (s: FleetSnapshot) => new ClusterReviewModel(s, target!.clusterId, regionBaseline(s, target!.clusterId, { now: NOW }), { now: NOW });
    const plain = model(snapshot);
    const failed = model({ ...snapshot, coverage: [...snapshot.coverage, ...failures] });
    // The slice's results are compared with the region's when the model is built: a reason the slice words without the
    // coverage message the region's result has would leave that result untrusted.
    expect(failed.size.untrusted).toBe(plain.size.untrusted);
    const failedSnapshot = { ...snapshot, coverage: [...snapshot.coverage, ...failures] };
    expect(compare(failedSnapshot, failed, target!.clusterId, NEW_SERVICES.cluster2!)).toEqual({});
  });

  it("on the bench fleet's shape with a quota ratio one attachment above the busiest node (a review that reaches it is not answered from the counts)", () => {
    const spec = generateSpecSchema.parse({ ...millionBackendSpec(22, { nlb: true }), accounts: 1, clusters: 12 });
    const snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
    const clusterId = snapshot.accounts[0]!.regions[0]!.clusters[0]!.clusterId;
    // The cluster's nodes are backends of 15 or 16 CLBs, of an attachment quota of 50. With a warning from 17/50, a
    // review whose CLB attaches the busiest nodes gives them a finding: the counts do not answer it, the whole slice
    // does; a review that attaches no node (Local mode without pods, ENI, NLB) is answered from the counts. Every
    // answer equals plan's.
    const { answered, counted } = runMatrix(snapshot, [clusterId], { quota: { warningRatio: 0.34, criticalRatio: 0.36 } });
    expect(answered).toBe(13);
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(answered / 2);
  });
});
