/**
 * `fleet-audit plan`: what a change to Kubernetes manifests does to a cluster's load-balancer quotas and findings,
 * before it ships. The manifests (kubectl's conventions: multi-document YAML, `List` kinds) give the Services to
 * apply and the workloads that select them; they are applied as one what-if step (`applyServices`, scenario.apply.ts)
 * to the target cluster of a stored scan or a fleet directory, and the answer is the what-if's: each quota before and
 * after, the first breach, the findings the change adds or resolves, and CCM's work to converge.
 *
 * Workloads: a Service's pods are the `spec.replicas` (default 1, the API server's default) of the Deployments,
 * StatefulSets, ReplicaSets and ReplicationControllers of its namespace whose pod template labels match its selector
 * (Kubernetes' Service selector semantics: every selector label equal); a DaemonSet's pods are one per node the
 * scheduler can place a pod on, counted on the cluster. A Service no workload of the manifests selects keeps the
 * pods it has in the cluster (a new one has none). Anchors: kubectl apply (documents and lists), Polaris' CLI audit
 * of local YAML (research/next-features-anchors.md), kube-score.
 */
import { k8sServiceSchema, loadYamlDocuments, schedulableBackendNode, YamlLoadError, type FleetSnapshot, type K8sServiceWire } from '@app/domain';
import type { PartialAuditSettings } from '@app/checks';
import { z } from 'zod';
import { APPLY_PARSED_SERVICES, ScenarioError, type Scenario, type ScenarioStep } from './scenario.schema';
import { locateCluster } from './scenario.location';
import { runWhatIf, type WhatIfResult, type WhatIfStep } from './whatif.runner';
import type { ConvergenceSettings } from './convergence.model';

/** Kinds whose pods are `spec.replicas` of their template. */
const REPLICATED_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);

/** A workload of the manifests: where its pods run and how many (a DaemonSet's count is the cluster's). */
export interface ManifestWorkload {
  kind: string;
  namespace: string;
  name: string;
  /** Pod template labels. */
  labels: Readonly<Record<string, string>>;
  /** `spec.replicas` (default 1); `undefined` for a DaemonSet (one pod per schedulable node). */
  replicas: number | undefined;
}

/** What a set of manifest files holds, for a plan. */
export interface PlanManifests {
  /** The Services (core/v1), validated, in document order, each with where it came from. */
  services: { manifest: K8sServiceWire; source: string }[];
  workloads: ManifestWorkload[];
  /** Objects of other kinds, counted per kind (a plan judges Services and their workloads only). */
  ignored: Record<string, number>;
}

/** A manifest that cannot be read: names the source, the document (1-based, when the file has several) and the field. */
export class ManifestError extends ScenarioError {}

const workloadSchema = z.looseObject({
  kind: z.string(),
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().min(1).optional() }),
  spec: z
    .looseObject({
      replicas: z.number().int().min(0).max(100_000).nullish(),
      template: z.looseObject({ metadata: z.looseObject({ labels: z.record(z.string(), z.string()).nullish() }).nullish() }).nullish(),
    })
    .nullish(),
});

/** Most objects one plan reads (Services and workloads together), a bound on the work one request can ask for. */
export const MAX_PLAN_OBJECTS = 10_000;

/**
 * Reads manifest texts: every YAML document of each (JSON is YAML), `List` kinds (`kind: List` or any `...List` with
 * `items`) unfolded, empty documents skipped.
 * @param files each text with the name errors give it (a path, `-` for stdin, `request body`)
 * @param defaultNamespace the namespace of objects that name none (kubectl's: `default`)
 * @throws ManifestError naming the file, the document and the field: a YAML syntax error, a document that is not an
 *   object with `kind`, a Service or workload that does not validate, more than MAX_PLAN_OBJECTS objects
 */
export function readManifests(files: readonly { source: string; text: string }[], defaultNamespace = 'default'): PlanManifests {
  const out: PlanManifests = { services: [], workloads: [], ignored: {} };
  let objects = 0;
  const visit = (value: unknown, where: string): void => {
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) throw new ManifestError(`${where}: expected a Kubernetes object (a mapping with kind), got ${Array.isArray(value) ? 'a list' : typeof value}`);
    const kind = (value as { kind?: unknown }).kind;
    if (typeof kind !== 'string' || kind === '') throw new ManifestError(`${where}: the object has no kind`, undefined, 'kind');
    const items = (value as { items?: unknown }).items;
    if (kind.endsWith('List') && Array.isArray(items)) {
      items.forEach((item, i) => visit(item, `${where} items.${i}`));
      return;
    }
    if (++objects > MAX_PLAN_OBJECTS) throw new ManifestError(`${where}: more than ${MAX_PLAN_OBJECTS} objects; plan fewer manifests at once`);
    const namespaced = withNamespace(value as Record<string, unknown>, defaultNamespace);
    if (kind === 'Service') {
      const parsed = k8sServiceSchema.safeParse(namespaced);
      if (!parsed.success) throw invalid(where, 'Service', parsed.error);
      out.services.push({ manifest: parsed.data, source: where });
      return;
    }
    if (REPLICATED_KINDS.has(kind) || kind === 'DaemonSet') {
      const parsed = workloadSchema.safeParse(namespaced);
      if (!parsed.success) throw invalid(where, kind, parsed.error);
      const w = parsed.data;
      out.workloads.push({
        kind,
        namespace: w.metadata.namespace ?? defaultNamespace,
        name: w.metadata.name,
        labels: w.spec?.template?.metadata?.labels ?? {},
        replicas: kind === 'DaemonSet' ? undefined : (w.spec?.replicas ?? 1),
      });
      return;
    }
    out.ignored[kind] = (out.ignored[kind] ?? 0) + 1;
  };
  for (const file of files) {
    let docs: unknown[];
    try {
      docs = loadYamlDocuments(file.text, file.source);
    } catch (e) {
      if (e instanceof YamlLoadError) throw new ManifestError(e.message);
      throw e;
    }
    docs.forEach((doc, i) => visit(doc, docs.length > 1 ? `${file.source} document ${i + 1}` : file.source));
  }
  return out;
}

function withNamespace(obj: Record<string, unknown>, ns: string): Record<string, unknown> {
  const metadata = obj.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return obj;
  const m = metadata as Record<string, unknown>;
  return m.namespace === undefined || m.namespace === null ? { ...obj, metadata: { ...m, namespace: ns } } : obj;
}

function invalid(where: string, kind: string, error: z.ZodError): ManifestError {
  const first = error.issues[0]!;
  const field = first.path.map(String).join('.');
  return new ManifestError(`${where}: invalid ${kind}${field ? ` field ${field}` : ''}: ${first.message}`, undefined, field || undefined);
}

/** How one Service of the plan changes. */
export interface PlannedService {
  /** `namespace/name`. */
  service: string;
  action: 'create' | 'update' | 'delete';
  /** Where the manifest came from (file and document); absent for a deletion. */
  source?: string;
  /** Ready pods behind it after the change; `undefined`: the pods it has in the cluster (no workload selects it). */
  pods?: number;
  /** The workloads of the manifests that select it (`Kind/name`). */
  workloads: string[];
}

/** The answer of a plan: the what-if step of the change, with the Services it touches. */
export interface PlanResult {
  cluster: { id: string; name: string };
  services: PlannedService[];
  /** Quotas before and after, the first breach, findings added / resolved / changed, headroom after. */
  step: WhatIfStep;
  convergence: WhatIfResult['convergence'];
  /** Objects the plan did not judge, per kind. */
  ignored: Record<string, number>;
}

/** Options of `planManifests`. */
export interface PlanOptions {
  /** The target cluster, by id or name. */
  cluster: string;
  /** Services to delete, `namespace/name`. */
  deletes?: readonly string[];
  now: Date;
  settings?: PartialAuditSettings;
  convergence?: Partial<ConvergenceSettings>;
}

/** A plan ready to run: the one-step scenario of the change and what the answer reports besides the what-if. */
export interface PreparedPlan {
  cluster: PlanResult['cluster'];
  services: PlannedService[];
  scenario: Scenario;
  ignored: Record<string, number>;
}

/**
 * Turns manifests into the one-step scenario of the change on the snapshot's cluster (no analysis yet: cheap), so a
 * caller can run it where it runs what-ifs (the API's forecast pool) and finish it with `planResultOf`. The manifests'
 * Services must be outputs of `k8sServiceSchema` (as `readManifests` gives them): they are not validated again.
 * @throws ScenarioError naming the field: an unknown or ambiguous cluster, nothing to apply, a step argument out of
 *   bounds (more than MAX_ADD_SERVICES Services)
 */
export function preparePlan(snapshot: FleetSnapshot, manifests: PlanManifests, options: Pick<PlanOptions, 'cluster' | 'deletes'>): PreparedPlan {
  const loc = locateCluster(snapshot, options.cluster);
  if ('error' in loc) throw new ScenarioError(`--cluster: ${loc.error}`, undefined, 'cluster');
  // Read only for a DaemonSet's pods (one per schedulable node); counted once, when first asked.
  let schedulable: number | undefined;
  const schedulableNodes = () =>
    (schedulable ??= (loc.cluster.kubernetes?.nodes ?? []).filter((n) => !n.unschedulable && schedulableBackendNode(n, loc.cluster.ccmVersion)).length);
  const existing = new Set((loc.cluster.kubernetes?.services ?? []).map((s) => `${s.namespace}/${s.name}`));
  const replicas: Record<string, number> = {};
  const services: PlannedService[] = [];
  for (const key of options.deletes ?? []) services.push({ service: key, action: 'delete', workloads: [] });
  for (const { manifest, source } of manifests.services) {
    const key = `${manifest.metadata.namespace}/${manifest.metadata.name}`;
    const selector = manifest.spec.selector ?? undefined;
    const selecting = selector && Object.keys(selector).length > 0
      ? manifests.workloads.filter((w) => w.namespace === manifest.metadata.namespace && Object.entries(selector).every(([k, v]) => w.labels[k] === v))
      : [];
    const planned: PlannedService = {
      service: key,
      action: existing.has(key) && !(options.deletes ?? []).includes(key) ? 'update' : 'create',
      source,
      workloads: selecting.map((w) => `${w.kind}/${w.name}`),
    };
    if (selecting.length > 0) {
      const pods = selecting.reduce((n, w) => n + (w.replicas ?? schedulableNodes()), 0);
      replicas[key] = pods;
      planned.pods = pods;
    } else if (planned.action === 'create') planned.pods = 0;
    services.push(planned);
  }
  // The Services were validated when the manifests were read (`PlanManifests`): the rest is validated here.
  const args = APPLY_PARSED_SERVICES.safeParse({
    cluster: loc.cluster.clusterId,
    services: manifests.services.map((s) => s.manifest),
    ...(Object.keys(replicas).length > 0 ? { replicas } : {}),
    ...(options.deletes && options.deletes.length > 0 ? { delete: [...options.deletes] } : {}),
  });
  if (!args.success) {
    const issue = args.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    throw new ScenarioError(field === 'services' && issue.message.startsWith('names no') ? 'no Service to plan: the manifests hold no Service and no --delete was given' : `${field}: ${issue.message}`, undefined, field);
  }
  const step = { kind: 'applyServices', index: 1, name: 'plan', args: args.data } as ScenarioStep;
  return {
    cluster: { id: loc.cluster.clusterId, name: loc.cluster.name },
    services,
    scenario: { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'plan', steps: [step] },
    ignored: manifests.ignored,
  };
}

/** The plan's answer from the what-if result of its scenario (`preparePlan`). */
export function planResultOf(prepared: PreparedPlan, result: WhatIfResult): PlanResult {
  return { cluster: prepared.cluster, services: prepared.services, step: result.steps[0]!, convergence: result.convergence, ignored: prepared.ignored };
}

/**
 * Applies the manifests to the cluster of a snapshot as one what-if step and answers what it does
 * (`preparePlan`, then `runWhatIf`, then `planResultOf`).
 * @throws ScenarioError naming the field: an unknown or ambiguous cluster, a deletion of a Service the cluster lacks,
 *   a Service given twice, an NLB Service where the region's NLB data was not read, nothing to apply
 */
export function planManifests(snapshot: FleetSnapshot, manifests: PlanManifests, options: PlanOptions): PlanResult {
  const prepared = preparePlan(snapshot, manifests, options);
  const result = runWhatIf(snapshot, prepared.scenario, {
    now: options.now,
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.convergence ? { convergence: options.convergence } : {}),
  });
  return planResultOf(prepared, result);
}
