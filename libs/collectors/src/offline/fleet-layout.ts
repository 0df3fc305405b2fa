/**
 * The one declaration of the fleet directory's files (docs/fleet-format.md, "Which files must be there"):
 * per level (fleet, account, region, cluster), every file the reader knows, the dataset (coverage `api`)
 * it belongs to, and whether it may be absent. `readFleetDirectory` follows this table and nothing else, and
 * `renderFleetLayoutTable` prints it for the format reference (a test keeps the two equal).
 *
 * Rule ("absence is not health"): a file may be absent only where the real API answers an
 * empty result in normal operation, so that reading absence as that empty answer is what a live scan would
 * see. Everywhere else absence is a coverage gap: the dataset is `failed` (errorCode `ENOENT`) and every check
 * that needs it says `skipped`. Configuration files (`fleet.yaml`, `account.yaml`: what a scan config says
 * for a live scan) are not API data: without them the directory is refused with one error line.
 */
import { KIND_DATA, type CoverageDataset } from '@app/domain';

/** The directory level a file sits in: `<fleet>/`, `accounts/<id>/`, `regions/<region>/`, `clusters/<id>/`. */
export type FleetLevel = 'fleet' | 'account' | 'region' | 'cluster';

/**
 * How the reader treats a file that is not there:
 * - `config`: the directory is refused (FleetValidationError naming the file);
 * - `required`: a coverage gap of the file's dataset (`failed`, `ENOENT`);
 * - `optional`: read as the API's empty answer (`whenAbsent` says which); the dataset stays `ok`, or is
 *   `absent` when none of its files is there.
 * Whatever the presence, a file that is there but cannot be read as a regular file (permission denied, a
 * symbolic link loop or a dangling link, a directory, a FIFO, socket or device) is a coverage gap.
 */
export type FilePresence = 'config' | 'required' | 'optional';

/** Kubernetes kinds the audit reads, each from its own file under `kubernetes/`. */
export type KubernetesKind = 'Node' | 'Service' | 'Pod' | 'EndpointSlice' | 'Event';

/** One file of the fleet directory format. */
export interface FleetFileSpec {
  level: FleetLevel;
  /** Path relative to the level's directory (`/`-separated). */
  path: string;
  /** The dataset the file is part of (coverage `api`); absent for configuration files. */
  dataset?: CoverageDataset;
  presence: FilePresence;
  /** What the file holds: the API call (or command) whose output it is. */
  holds: string;
  /**
   * For optional files: what absence means, i.e. the API's answer when there is nothing. For a required file
   * whose gap does more than fail its dataset: what it does.
   */
  whenAbsent?: string;
  /** For files under `kubernetes/`: the one kind the file lists (other audited kinds in it are refused). */
  kind?: KubernetesKind;
}

/**
 * Every file of the format. Sources for "the API answers empty": Events are kept for one hour by default
 * (kube-apiserver `--event-ttl`, https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/),
 * so a cluster without recent Service events lists none; Quota Center lists only quotas that apply, and
 * without a value the documented defaults apply (docs/checks.md quota checks name the limit's source).
 * Everything else is never empty for a real account / region / cluster that the dump claims to cover (an
 * empty answer is written as `[]` or an empty List), so its absence is a gap.
 */
export const FLEET_FILES: readonly FleetFileSpec[] = [
  { level: 'fleet', path: 'fleet.yaml', presence: 'config', holds: '`name`, `description`; optional `generate:` block' },
  { level: 'account', path: 'account.yaml', presence: 'config', holds: '`accountId`, `name`, `regions`, `auditRoleArn` (optional)' },
  { level: 'account', path: 'ram/roles.json', dataset: 'ram', presence: 'required', holds: 'RAM ListRoles -> Roles.Role[]' },
  { level: 'account', path: 'ram/policies.json', dataset: 'ram', presence: 'required', holds: 'GetPolicy + GetPolicyVersion of the attached policies' },
  { level: 'account', path: 'ram/role-policies.json', dataset: 'ram', presence: 'required', holds: 'ListPoliciesForRole per role' },
  { level: 'region', path: 'load-balancers.json', dataset: 'slb', presence: 'required', holds: 'DescribeLoadBalancerAttribute bodies, one per CLB' },
  { level: 'region', path: 'vserver-groups.json', dataset: 'slb', presence: 'required', holds: 'DescribeVServerGroupAttribute bodies, one per vServer group' },
  // Each load-balancer kind's files under `<dataset>/` (e.g. the four `nlb/` files), all required.
  ...KIND_DATA.flatMap((d) =>
    d.files.map(
      (f): FleetFileSpec => ({
        level: 'region',
        path: `${d.dataset}/${f.file}`,
        dataset: d.dataset,
        presence: 'required',
        holds: f.holds,
        ...(f.whenAbsent !== undefined ? { whenAbsent: f.whenAbsent } : {}),
      }),
    ),
  ),
  { level: 'region', path: 'ecs-instances.json', dataset: 'ecs', presence: 'required', holds: 'DescribeInstances -> Instances.Instance[]' },
  { level: 'region', path: 'vswitches.json', dataset: 'vpc', presence: 'required', holds: 'DescribeVSwitches -> VSwitches.VSwitch[]' },
  {
    level: 'region',
    path: 'quotas.json',
    dataset: 'quotas',
    presence: 'optional',
    holds: 'Quota Center ListProductQuotas (ProductCode slb and nlb) -> Quotas[]',
    whenAbsent: 'no quota values, the documented defaults apply (coverage `absent`)',
  },
  {
    level: 'region',
    path: 'quota-applications.json',
    dataset: 'quota-applications',
    presence: 'optional',
    holds: 'Quota Center ListQuotaApplications (ProductCode slb and nlb, dimension regionId) -> QuotaApplications[]',
    whenAbsent: 'no applications known: QUOTA_APPLICATION_REFUSED makes no claim for the region (coverage `absent`)',
  },
  {
    level: 'cluster',
    path: 'cluster.json',
    dataset: 'cluster',
    presence: 'required',
    holds: 'ACK DescribeClusterDetail body',
    whenAbsent: '`cluster` failed (`ENOENT`); the cluster is left out, so the region\'s cluster list `cs` is a gap too',
  },
  { level: 'cluster', path: 'addons.json', dataset: 'addons', presence: 'required', holds: 'ListClusterAddonInstances body' },
  { level: 'cluster', path: 'resources.json', dataset: 'resources', presence: 'required', holds: 'DescribeClusterResources body' },
  { level: 'cluster', path: 'node-sysctls.json', dataset: 'sysctls', presence: 'required', holds: '`net.ipv4.ip_local_port_range` per ECS instance (Cloud Assistant)' },
  { level: 'cluster', path: 'kubernetes/nodes.yaml', dataset: 'kubernetes', presence: 'required', holds: 'kubectl get nodes -o yaml', kind: 'Node' },
  { level: 'cluster', path: 'kubernetes/services.yaml', dataset: 'kubernetes', presence: 'required', holds: 'kubectl get services -A -o yaml', kind: 'Service' },
  { level: 'cluster', path: 'kubernetes/pods.yaml', dataset: 'kubernetes', presence: 'required', holds: 'kubectl get pods -A -o yaml (kube-system included)', kind: 'Pod' },
  {
    level: 'cluster',
    path: 'kubernetes/endpointslices.yaml',
    dataset: 'kubernetes',
    presence: 'required',
    holds: 'kubectl get endpointslices -A -o yaml',
    kind: 'EndpointSlice',
  },
  {
    level: 'cluster',
    path: 'kubernetes/events.yaml',
    dataset: 'kubernetes',
    presence: 'optional',
    holds: 'kubectl get events -A -o yaml',
    kind: 'Event',
    whenAbsent: 'no Events (the API keeps them one hour; a quiet cluster lists none)',
  },
];

/** The files of one level, in declaration order. */
export function fleetFilesAt(level: FleetLevel): readonly FleetFileSpec[] {
  return FLEET_FILES.filter((f) => f.level === level);
}

/** The datasets of one level, in declaration order, each with its files. */
export function datasetsAt(level: FleetLevel): { dataset: CoverageDataset; files: FleetFileSpec[] }[] {
  const out: { dataset: CoverageDataset; files: FleetFileSpec[] }[] = [];
  for (const f of fleetFilesAt(level)) {
    if (!f.dataset) continue;
    const d = out.find((x) => x.dataset === f.dataset);
    if (d) d.files.push(f);
    else out.push({ dataset: f.dataset, files: [f] });
  }
  return out;
}

const LEVEL_DIR: Record<FleetLevel, string> = {
  fleet: '`<fleet>/`',
  account: '`accounts/<accountId>/`',
  region: '`…/regions/<regionId>/`',
  cluster: '`…/clusters/<clusterId>/`',
};

/** What the absence of a file does, as the format reference says it. */
function absenceText(f: FleetFileSpec): string {
  if (f.presence === 'config') return '**refused**: one error line naming the file (exit 2)';
  if (f.presence === 'optional') return `allowed: ${f.whenAbsent ?? 'read as empty'}`;
  return `**gap**: ${f.whenAbsent ?? `\`${f.dataset}\` failed (\`ENOENT\`)`}`;
}

/**
 * The declaration as a Markdown table (directory, file, dataset, what absence does), as docs/fleet-format.md
 * prints it.
 */
export function renderFleetLayoutTable(): string {
  const rows = FLEET_FILES.map((f) => `| ${LEVEL_DIR[f.level]} | \`${f.path}\` | ${f.dataset ? `\`${f.dataset}\`` : '-'} | ${absenceText(f)} |`);
  return ['| directory | file | dataset | if absent |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
