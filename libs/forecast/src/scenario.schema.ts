/**
 * What-if scenario files (`apiVersion: fleet-audit/v1`, `kind: Scenario`): an ordered list of steps applied to
 * a copy of a fleet snapshot. Validated with zod; every problem is reported at once, each naming the step (1-based
 * index and kind) and the field. Shape from research/next-features-anchors.md W1 (kube-scheduler-simulator's Scenario CRD
 * and cluster-capacity's one-spec answer are the anchors it improves on).
 */
import { z } from 'zod';
import { fleetAuditErrorKind } from '@app/errors';
import { k8sServiceSchema, loadYaml, YamlLoadError, type K8sServiceWire } from '@app/domain';

/** The only version this code reads. */
export const SCENARIO_API_VERSION = 'fleet-audit/v1';

const name = z.string().min(1);
/**
 * Size limits that follow from real fleets (README "What-if limits"): one step adds at most
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

const nsName = name.regex(/^[^/]+\/[^/]+$/, 'a Service as namespace/name');
/**
 * Applies Service manifests as `kubectl apply` would, then deletes Services as `kubectl delete` would (the step
 * `fleet-audit plan` builds from manifest files): each Service (core/v1, `metadata.namespace` defaulting to
 * `default`) replaces the cluster's Service of the same namespace/name (keeping its uid, the NodePorts the API server
 * allocated to the same port and protocol, its status and, without `replicas`, its endpoints) or is created (a NodePort
 * per port from the cluster's range, `healthCheckNodePort` in Local mode, a new CLB or NLB as CCM creates one);
 * `replicas` gives the ready pods behind a Service (`namespace/name` -> pods; the workloads that select it), placed
 * as addServices places them. `service`: the schema each Service is read with.
 */
function applyServicesOf<S extends z.ZodType<K8sServiceWire, unknown>>(service: S) {
  return z
    .strictObject({
      cluster: name,
      services: z.array(service).max(MAX_ADD_SERVICES, `at most ${MAX_ADD_SERVICES} Services per step`).default([]),
      replicas: z.record(nsName, z.number().int().min(0).max(100_000)).optional(),
      delete: z.array(nsName).max(MAX_ADD_SERVICES, `at most ${MAX_ADD_SERVICES} Services per step`).optional(),
    })
    .refine((a) => a.services.length > 0 || (a.delete?.length ?? 0) > 0, { path: ['services'], message: 'names no Service to apply or delete' });
}
const applyServices = applyServicesOf(k8sServiceSchema);

/**
 * The applyServices step's arguments where each Service is already an output of `k8sServiceSchema` (`PlanManifests`
 * holds only such Services): every other field is validated as `STEP_SCHEMAS.applyServices` validates it, the
 * Services are taken as they are (the same objects: the step maps them to its own Services and never writes them):
 * parsing them a second time would be most of `preparePlan`'s cost for one admission review.
 */
export const APPLY_PARSED_SERVICES = applyServicesOf(z.custom<K8sServiceWire>(() => true));

/** The step kinds and their argument schemas. */
export const STEP_SCHEMAS = { addNodes, removeNodes, addServices, setTrafficPolicy, upgradeCcm, scalePods, migrateToNlb, applyServices } as const;

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

/**
 * One problem of an invalid scenario, worded as a scenario with only this problem is refused:
 * `{ message: 'scenario field kind: Invalid input: expected "Scenario"', field: 'kind' }`,
 * `{ message: 'step 2 (addNodes) field addNodes.count: Too small: expected number to be >=1', step: 2, field: 'addNodes.count' }`,
 * `{ message: 'step 3: unknown step "addPods" (expected one of ...)', step: 3, field: 'addPods' }`.
 */
export interface ScenarioIssue {
  /** One line naming the step (when in a step), the field (when one) and what is wrong. */
  message: string;
  /** 1-based step number, when the problem is in a step. */
  step?: number;
  /** Dotted path of the field (`apiVersion`, `addNodes.count`, `addServices.ports.0`), when one is at fault. */
  field?: string;
}

/**
 * Most issues one ScenarioError lists (its `issues` and its message); the message counts the others (`and N more`).
 * A scenario has at most MAX_SCENARIO_STEPS steps of a few fields each, so a scenario of garbage could otherwise
 * make an answer of hundreds of lines; 50 covers any scenario someone is fixing by hand.
 */
export const MAX_SCENARIO_ISSUES = 50;

/**
 * An invalid scenario. `message`, `step` and `field` describe the first problem when there is one (`step 2 (addNodes)
 * field addNodes.count: ...`); with several, `message` lists them all on one line (`scenario: 3 problems: field
 * apiVersion: ...; field kind: ...; step 2 (addNodes) field addNodes.count: ...`, at most MAX_SCENARIO_ISSUES, then
 * `; and N more`) while `step` and `field` stay those of the first. `issues` holds every listed problem in document
 * order: the header's, then each step's by number (within the header or a step, its declared fields in schema order,
 * then its unknown fields).
 */
export class ScenarioError extends fleetAuditErrorKind('ScenarioError', 'SCENARIO_INVALID', true) {
  // permanent: the scenario file must change.
  /**
   * Each problem (at most MAX_SCENARIO_ISSUES), in document order; never empty. With one problem it is
   * `[{ message, step, field }]` of this error itself (the errors of runWhatIf, an unparsable file).
   */
  readonly issues: readonly ScenarioIssue[];

  /**
   * @param message one line; with several issues, the list of them (see the class comment)
   * @param step 1-based step number of the (first) problem, when it is in a step
   * @param field dotted path of the (first) problem's field
   * @param issues every problem (default: the one this error describes)
   */
  constructor(
    message: string,
    /** 1-based step number, when the (first) error is in a step. */
    readonly step?: number,
    /** Dotted path of the (first) error's field. */
    readonly field?: string,
    issues?: readonly ScenarioIssue[],
  ) {
    super(message);
    this.issues = issues && issues.length > 0 ? issues.map(issueOf) : [issueOf({ message, step, field })];
  }
}

/** A copy of `i` without its unset keys (plain data: it crosses thread boundaries and becomes JSON). */
function issueOf(i: { message: string; step?: number | undefined; field?: string | undefined }): ScenarioIssue {
  return { message: i.message, ...(i.step !== undefined ? { step: i.step } : {}), ...(i.field ? { field: i.field } : {}) };
}

/** A problem found by parseScenario: the issue, and how the list of several names it (`field kind: ...`). */
interface Found extends ScenarioIssue {
  listed: string;
}

const header = z.strictObject({
  apiVersion: z.literal(SCENARIO_API_VERSION),
  kind: z.literal('Scenario'),
  name: name,
  steps: z.array(z.unknown()).min(1).max(MAX_SCENARIO_STEPS, `at most ${MAX_SCENARIO_STEPS} steps per scenario`),
});

/** Longest key name quoted in a message, characters (a longer one is cut, with `…`). */
const MAX_QUOTED_KEY = 64;
/** Most key names listed in one message (the rest are counted: `and N more`). */
const MAX_LISTED_KEYS = 10;

/**
 * A key name of the scenario as a message quotes it: as it is when it is a plain identifier (letters, digits, `_`,
 * `-`, `.`), otherwise as a JSON string, so that a newline or a control character in a user's key cannot break the
 * one-line message (the CLI's error line, a log line); cut at MAX_QUOTED_KEY characters either way.
 */
function keyText(key: string): string {
  const cut = cutKey(key);
  return /^[A-Za-z0-9_.-]+$/.test(key) && cut === key ? key : JSON.stringify(cut);
}

/** A user's key name cut at MAX_QUOTED_KEY characters (`…` marks the cut). */
function cutKey(key: string): string {
  return key.length > MAX_QUOTED_KEY ? `${key.slice(0, MAX_QUOTED_KEY)}…` : key;
}

/** Key names as a message lists them (`keyText` each, at most MAX_LISTED_KEYS, then `and N more`). */
function keysText(keys: readonly string[]): string {
  const listed = keys.slice(0, MAX_LISTED_KEYS).map(keyText).join(', ');
  return keys.length > MAX_LISTED_KEYS ? `${listed} and ${keys.length - MAX_LISTED_KEYS} more` : listed;
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${keysText(issue.keys)}`;
  return issue.message;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** The error of the problems found, in document order (see ScenarioError). */
function scenarioErrorOf(found: Found[]): ScenarioError {
  const kept = found.slice(0, MAX_SCENARIO_ISSUES);
  const first = kept[0]!;
  const more = found.length - kept.length;
  const message =
    found.length === 1
      ? first.message
      : `scenario: ${found.length} problems: ${kept.map((f) => f.listed).join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
  return new ScenarioError(message, first.step, first.field, kept.map(issueOf));
}

/** The problems of one step (none when it is valid), as the single-step messages word them. */
function checkStep(raw: unknown, index: number): { ok: true; step: ScenarioStep } | { ok: false; problems: Found[] } {
  const found = (message: string, field?: string): Found => ({ message, listed: message, step: index, ...(field ? { field } : {}) });
  const one = (message: string, field?: string) => ({ ok: false as const, problems: [found(message, field)] });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return one(`step ${index}: expected an object with one key (${Object.keys(STEP_SCHEMAS).join(', ')})`);
  const keys = Object.keys(raw);
  if (keys.length !== 1)
    return one(`step ${index}: expected exactly one key (${Object.keys(STEP_SCHEMAS).join(', ')}), got ${keys.length === 0 ? 'none' : keysText(keys)}`);
  const kind = keys[0]!;
  if (!Object.prototype.hasOwnProperty.call(STEP_SCHEMAS, kind))
    return one(`step ${index}: unknown step ${JSON.stringify(cutKey(kind))} (expected one of ${Object.keys(STEP_SCHEMAS).join(', ')})`, kind);
  const parsed = STEP_SCHEMAS[kind as StepKind].safeParse((raw as Record<string, unknown>)[kind]);
  if (parsed.success) return { ok: true, step: { kind, index, name: `${index}. ${kind}`, args: parsed.data } as ScenarioStep };
  const problems = parsed.error.issues.map((issue) => {
    const field = [kind, ...issue.path.map(String)].join('.');
    // A path can hold a user's key (a `labels` record): quoted in the message (keyText), as given in `field`.
    const shown = [kind, ...issue.path.map((k) => (typeof k === 'number' ? String(k) : keyText(String(k))))].join('.');
    return found(`step ${index} (${kind}) field ${shown}: ${issueText(issue)}`, field);
  });
  return { ok: false, problems };
}

/**
 * Validates a scenario object (already parsed from YAML/JSON), reporting every problem at once: each header field's
 * (`apiVersion`, `kind`, `name`, `steps`, unknown fields) and each step's (not an object, not exactly one key, an
 * unknown step kind, then every problem of its arguments), in document order. The steps are checked whenever
 * `steps` is a list of at most MAX_SCENARIO_STEPS, even when a header field is wrong.
 * @returns the scenario, each step's arguments with their defaults applied
 * @throws ScenarioError listing the problems (at most MAX_SCENARIO_ISSUES; see ScenarioError), its `step` and
 *   `field` those of the first: `scenario field apiVersion: ...`, `step 3 (addServices) field addServices.count: ...`
 */
export function parseScenario(input: unknown): Scenario {
  const found: Found[] = [];
  const h = header.safeParse(input);
  if (!h.success) {
    for (const issue of h.error.issues) {
      const field = pathText(issue.path);
      const text = issueText(issue);
      found.push({ message: `scenario${field ? ` field ${field}` : ''}: ${text}`, listed: field ? `field ${field}: ${text}` : text, ...(field ? { field } : {}) });
    }
  }
  const rawSteps = h.success ? h.data.steps : (input as { steps?: unknown } | null)?.steps;
  const steps: ScenarioStep[] = [];
  if (Array.isArray(rawSteps) && rawSteps.length <= MAX_SCENARIO_STEPS) {
    rawSteps.forEach((raw: unknown, i) => {
      const r = checkStep(raw, i + 1);
      if (r.ok) steps.push(r.step);
      else found.push(...r.problems);
    });
  }
  if (found.length > 0 || !h.success) throw scenarioErrorOf(found);
  return { apiVersion: SCENARIO_API_VERSION, kind: 'Scenario', name: h.data.name, steps };
}

/**
 * The one document of a scenario text (YAML or JSON; JSON is YAML), read by the product's YAML loader (libs/domain
 * `loadYaml`: alias expansion bounded, so a small body of nested anchors cannot hold a forecast thread).
 * @param source what to name in errors (a file path, `body`)
 * @throws ScenarioError `<source>: not valid YAML/JSON: line L, column C: <reason>` (line and column when the parser
 *   gives them)
 */
export function scenarioDocument(text: string, source: string): unknown {
  try {
    return loadYaml(text, source);
  } catch (e) {
    if (!(e instanceof YamlLoadError)) throw e;
    const at = e.line === undefined ? '' : `line ${e.line}${e.column === undefined ? '' : `, column ${e.column}`}: `;
    throw new ScenarioError(`${source}: not valid YAML/JSON: ${at}${e.reason}`);
  }
}

/**
 * Parses scenario text (YAML or JSON; JSON is YAML).
 * @param source what to name in errors (a file path, `request body`): the prefix of the message and of each issue's
 * @throws ScenarioError for unparsable text or an invalid scenario (every problem, as parseScenario)
 */
export function parseScenarioText(text: string, source = 'scenario'): Scenario {
  const doc = scenarioDocument(text, source);
  try {
    return parseScenario(doc);
  } catch (e) {
    if (e instanceof ScenarioError)
      throw new ScenarioError(`${source}: ${e.message}`, e.step, e.field, e.issues.map((i) => ({ ...i, message: `${source}: ${i.message}` })));
    throw e;
  }
}
