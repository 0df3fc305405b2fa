/**
 * The oracle the ClusterReviewModel specs share (cluster-review.model.spec.ts, cluster-review.bench-shape.spec.ts): a
 * matrix of Services (Cluster and Local mode, a listener breach, intranet with a vSwitch, ENI backends, an annotation
 * too new for the CCM, NLB, an update of an existing Service, a reuse by id) reviewed by the model and planned by
 * `planManifests` on the whole snapshot, whose quotas, first breach, findings, planned Services and convergence must
 * be equal. One model per cluster answers every review of the matrix in turn, so a review that left anything behind
 * in the model would change the answers after it.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FleetSnapshot } from '@app/domain';
import type { PartialAuditSettings } from '@app/checks';
import { ClusterReviewModel, planManifests, readManifests, regionBaseline, type PlanResult } from '@app/forecast';

export const SAMPLE = join(__dirname, '..', '..', '..', 'examples', 'fleets', 'sample');
export const NOW = new Date('2026-11-22T00:00:00Z');

/** A LoadBalancer Service manifest; `spec` and `annotations` as flow-style YAML fragments. */
function service(name: string, spec: string, annotations = '{}', namespace = 'shop'): string {
  return `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: ${namespace}, annotations: ${annotations}}\nspec: {type: LoadBalancer, selector: {app: ${name}}, ${spec}}\n`;
}

const A = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer';
const ports = (n: number) => `ports: [${Array.from({ length: n }, (_, i) => `{name: p${i}, port: ${8000 + i}, targetPort: 8080}`).join(', ')}]`;

/** The matrix of new Services (name -> manifest), planned on every cluster under test. */
export const NEW_SERVICES: Record<string, string> = {
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
export function compare(snapshot: FleetSnapshot, model: ClusterReviewModel, clusterId: string, text: string, settings?: PartialAuditSettings): { fallback?: string } {
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
export function runMatrix(
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
