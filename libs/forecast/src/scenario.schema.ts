/**
 * What-if scenario files (`apiVersion: fleet-audit/v1`, `kind: Scenario`): an ordered list of steps applied to
 * a copy of a fleet snapshot. Validated with zod; every error names the step (1-based index and kind) and the
 * field. Shape from issue 10 / research/next-features-anchors.md W1 (kube-scheduler-simulator's Scenario CRD
 * and cluster-capacity's one-spec answer are the anchors it improves on).
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { fleetAuditErrorKind } from '@app/errors';

/** The only version this code reads. */
export const SCENARIO_API_VERSION = 'fleet-audit/v1';

const name = z.string().min(1);
/**
 * Size limits that follow from real fleets (issue 23 item 1; README "What-if limits"): one step adds at most
 * MAX_ADD_NODES nodes (5,000 nodes is the largest cluster Kubernetes supports, kubernetes.io/docs/setup/best-practices/
 * cluster-large, so one step never grows a cluster past a size anyone runs) and at most MAX_ADD_SERVICES LoadBalancer
 * Services (each one CLB; the default CLB quota `slb_quota_instances_num` is 30-60 per account, ACK limits page
 * help.aliyun.com/zh/ack/product-overview/limits, and raised quotas stay in the hundreds); a
 * scenario has at most MAX_SCENARIO_STEPS steps. Within them the largest what-if stays inside the API's forecast
 * time budget (`npm run bench:whatif-size`).
 */
export const MAX_ADD_NODES = 5_000;
/** Most Services one addServices step adds (see MAX_ADD_NODES). */
export const MAX_ADD_SERVICES = 1_000;
/** Most steps of one scenario (see MAX_ADD_NODES). */
export const MAX_SCENARIO_STEPS = 100;
const nodeCount = z.number().int().min(1).max(MAX_ADD_NODES, `at most ${MAX_ADD_NODES} nodes per step (the largest cluster Kubernetes supports)`);
const serviceCount = z.number().int().min(1).max(MAX_ADD_SERVICES, `at most ${MAX_ADD_SERVICES} Services per step (one CLB each)`);
const labels = z.record(z.string(), z.string());

const addNodes = z.strictObject({
  cluster: name,
  count: nodeCount,
  /** Name of an existing node to copy (labels, ECS type, vSwitch); default: the first eligible worker. */
  like: name.optional(),
  /** Labels set on the new nodes (over the copied ones), e.g. a node pool label. */
  labels: labels.optional(),
});
const removeNodes = z.strictObject({ cluster: name, names: z.array(name).min(1) });
/** The `spec.loadBalancerClass` that sends a Service to CCM's NLB controller (research/nlb.md 1; CCM `NeedNLB`). */
const NLB_CLASS = 'alibabacloud.com/nlb';
const addServices = z.strictObject({
  cluster: name,
  namespace: name,
  count: serviceCount,
  externalTrafficPolicy: z.enum(['Cluster', 'Local']).default('Cluster'),
  ports: z.array(z.number().int().min(1).max(65535)).min(1).max(50).default([80]),
  podsPerService: z.number().int().min(0).max(10_000).default(2),
  /** Reuse this existing CLB (annotation `...-loadbalancer-id`, listeners forced) instead of one new CLB each. */
  reuseLoadBalancer: name.optional(),
  /** Name prefix of the new Services (default `whatif`). */
  namePrefix: name.optional(),
  /**
   * `alibabacloud.com/nlb`: NLB Services (CCM's NLB controller, v2.5.0+): one NLB each, one listener and one server
   * group per port, servers per mode as `expectedNlbServerGroups` builds them (research/nlb.md 4, 5). Default: CLB.
   */
  loadBalancerClass: z.literal(NLB_CLASS, { error: `the only class CCM takes is ${NLB_CLASS} (omit it for CLB)` }).optional(),
}).refine((a) => !(a.loadBalancerClass && a.reuseLoadBalancer), {
  path: ['reuseLoadBalancer'],
  message: 'names a CLB to reuse; an NLB Service (loadBalancerClass) gets a new NLB',
});
/**
 * Move CLB Services to NLB (delete and re-create each with `loadBalancerClass: alibabacloud.com/nlb`: the class is
 * immutable): CCM deletes the CLB it created (or, on a reused CLB, the Service's listeners and vServer groups) and
 * creates an NLB with one listener and one server group per port.
 */
const migrateToNlb = z.strictObject({
  cluster: name,
  /** `namespace/name` of each CLB Service (no patterns: a migration names what it moves). */
  services: z
    .array(name.regex(/^[^/]+\/[^/]+$/, 'a Service as namespace/name'))
    .min(1)
    .max(MAX_ADD_SERVICES, `at most ${MAX_ADD_SERVICES} Services per step (one NLB each)`),
});
const setTrafficPolicy = z.strictObject({
  cluster: name,
  /** `namespace/name` patterns; `*` matches any run of characters. */
  services: z.array(name).min(1),
  policy: z.enum(['Cluster', 'Local']),
});
const upgradeCcm = z.strictObject({ cluster: name, version: z.string().regex(/^v\d+\.\d+\.\d+/, 'a CCM version like v2.12.1') });
const scalePods = z.strictObject({ cluster: name, service: name, replicas: z.number().int().min(0).max(100_000) });

/** The step kinds and their argument schemas. */
export const STEP_SCHEMAS = { addNodes, removeNodes, addServices, setTrafficPolicy, upgradeCcm, scalePods, migrateToNlb } as const;

/** A step kind. */
export type StepKind = keyof typeof STEP_SCHEMAS;

/** A parsed step: its kind, arguments (defaults applied) and 1-based position. */
export type ScenarioStep = {
  [K in StepKind]: { kind: K; index: number; name: string; args: z.output<(typeof STEP_SCHEMAS)[K]> };
}[StepKind];

/** A parsed scenario. */
export interface Scenario {
  apiVersion: typeof SCENARIO_API_VERSION;
  kind: 'Scenario';
  name: string;
  steps: ScenarioStep[];
}

/** An invalid scenario; `message` names the step and the field. */
export class ScenarioError extends fleetAuditErrorKind('ScenarioError', 'SCENARIO_INVALID', true) {
  // permanent: the scenario file must change.
  constructor(
    message: string,
    /** 1-based step number, when the error is in a step. */
    readonly step?: number,
    /** Dotted path of the field. */
    readonly field?: string,
  ) {
    super(message);
  }
}

const header = z.strictObject({
  apiVersion: z.literal(SCENARIO_API_VERSION),
  kind: z.literal('Scenario'),
  name: name,
  steps: z.array(z.unknown()).min(1).max(MAX_SCENARIO_STEPS, `at most ${MAX_SCENARIO_STEPS} steps per scenario`),
});

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  return issue.message;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/**
 * Validates a scenario object (already parsed from YAML/JSON).
 * @throws ScenarioError naming the step (`steps[3] (addServices)`) and the field
 */
export function parseScenario(input: unknown): Scenario {
  const h = header.safeParse(input);
  if (!h.success) {
    const issue = h.error.issues[0]!;
    const field = pathText(issue.path);
    throw new ScenarioError(`scenario${field ? ` field ${field}` : ''}: ${issueText(issue)}`, undefined, field || undefined);
  }
  const steps: ScenarioStep[] = [];
  h.data.steps.forEach((raw, i) => {
    const index = i + 1;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new ScenarioError(`step ${index}: expected an object with one key (${Object.keys(STEP_SCHEMAS).join(', ')})`, index);
    const keys = Object.keys(raw);
    if (keys.length !== 1)
      throw new ScenarioError(`step ${index}: expected exactly one key (${Object.keys(STEP_SCHEMAS).join(', ')}), got ${keys.length === 0 ? 'none' : keys.join(', ')}`, index);
    const kind = keys[0]!;
    if (!Object.prototype.hasOwnProperty.call(STEP_SCHEMAS, kind))
      throw new ScenarioError(`step ${index}: unknown step "${kind}" (expected one of ${Object.keys(STEP_SCHEMAS).join(', ')})`, index, kind);
    const schema = STEP_SCHEMAS[kind as StepKind];
    const parsed = schema.safeParse((raw as Record<string, unknown>)[kind]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = [kind, ...issue.path.map(String)].join('.');
      throw new ScenarioError(`step ${index} (${kind}) field ${field}: ${issueText(issue)}`, index, field);
    }
    steps.push({ kind, index, name: `${index}. ${kind}`, args: parsed.data } as ScenarioStep);
  });
  return { apiVersion: SCENARIO_API_VERSION, kind: 'Scenario', name: h.data.name, steps };
}

/**
 * Parses scenario text (YAML or JSON; JSON is YAML).
 * @param source what to name in errors (a file path, `request body`)
 * @throws ScenarioError for unparsable text or an invalid scenario
 */
export function parseScenarioText(text: string, source = 'scenario'): Scenario {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ScenarioError(`${source}: not valid YAML/JSON: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
  }
  try {
    return parseScenario(doc);
  } catch (e) {
    if (e instanceof ScenarioError) throw new ScenarioError(`${source}: ${e.message}`, e.step, e.field);
    throw e;
  }
}
