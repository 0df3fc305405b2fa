/**
 * `fleet-audit rbac`: the Kubernetes access the crawl needs in every cluster, derived from the
 * collector's own list of Kubernetes calls (libs/collectors kubernetes-rbac.ts `KUBERNETES_CALLS`), as
 * `iam-policy` derives the RAM policy from the OpenAPI calls.
 *
 * - default: the least-privilege ClusterRole, and with `--user` its ClusterRoleBinding to the audit
 *   identity (the numeric id of the RAM user or role the kubeconfig acts as: research/reach.md 2.3);
 * - `--grant-plan --config FILE --role-id UID`: per account, the ACK `UpdateUserPermissions` request
 *   (`mode=patch`: adds the grant, keeps the uid's others; `GrantPermissions` replaces them all) that binds the
 *   ClusterRole (`is_custom: true`) in every cluster the scan config selects (research/reach.md 2.1). It reads
 *   only DescribeClustersV1 and writes nothing: a plan to review first;
 * - `--grant-policy`: the RAM policy of whoever applies that plan, kept apart from the read-only audit role.
 */
import { Command, Option } from 'commander';
import { dumpYaml } from '@app/domain';
import { loadCollectors } from '../lazy';
import { CliUsageError, EXIT_ERROR, EXIT_OK } from '../cli-error';
import { helpFooter } from './help-text.util';
import { cliStreams } from '../output/cli-streams';
import type { ScanConfig } from '@app/collectors';

/** Options of `rbac` after parsing. */
export interface RbacCommandOptions {
  /** RAM user or role ids bound to the ClusterRole (comma-separated). */
  user?: string;
  /** Name of the ClusterRole and binding. */
  name: string;
  format: 'yaml' | 'json';
  grantPlan?: boolean;
  grantPolicy?: boolean;
  config?: string;
  /** The audit RAM role's id (RoleId) in the audited accounts, for the grant plan. */
  roleId?: string;
}

/** One ACK permission grant (UpdateUserPermissions / GrantPermissions body item; research/reach.md 2.1). */
interface AckGrant {
  cluster: string;
  role_type: 'cluster';
  role_name: string;
  namespace: '';
  is_custom: true;
  is_ram_role: true;
}

/** One request of the grant plan: an account's UpdateUserPermissions call. */
export interface GrantPlanRequest {
  accountId: string;
  method: 'POST';
  /** ROA path and query of UpdateUserPermissions. */
  path: string;
  body: AckGrant[];
}

/**
 * The grant plan: per account, one UpdateUserPermissions (`mode=patch`) binding the custom ClusterRole to the
 * audit role in every selected cluster (sorted by cluster id).
 */
export function grantPlanOf(config: ScanConfig, clusters: { accountId: string; clusterId: string; selected: boolean }[], roleId: string, roleName: string): GrantPlanRequest[] {
  return [...new Set(config.accounts.map((a) => a.accountId))].map((accountId) => ({
    accountId,
    method: 'POST' as const,
    path: `/permissions/users/${roleId}/update?mode=patch`,
    body: clusters
      .filter((c) => c.accountId === accountId && c.selected)
      .map((c) => c.clusterId)
      .sort()
      .map((cluster) => ({ cluster, role_type: 'cluster' as const, role_name: roleName, namespace: '' as const, is_custom: true as const, is_ram_role: true as const })),
  }));
}

/** Run `rbac`; returns the exit code. @throws CliUsageError for a bad flag combination, ScanConfigError for a bad --config */
export async function runRbacCommand(opts: RbacCommandOptions): Promise<number> {
  const { leastPrivilegeClusterRole, clusterRoleBinding, grantPolicy, loadScanConfig, planClusters } = loadCollectors();
  const out = (docs: unknown[]) =>
    cliStreams().stdout.write(opts.format === 'json' ? `${JSON.stringify(docs.length === 1 ? docs[0] : docs, null, 2)}\n` : docs.map((d) => dumpYaml(d)).join('---\n'));
  if (opts.grantPolicy) {
    out([grantPolicy()]);
    return EXIT_OK;
  }
  if (opts.grantPlan) {
    if (opts.config === undefined || opts.roleId === undefined) throw new CliUsageError('--grant-plan needs --config FILE and --role-id UID (the audit RAM role id)');
    if (!/^\d+$/.test(opts.roleId)) throw new CliUsageError(`--role-id: expected the numeric id of a RAM role, got "${opts.roleId}"`);
    const config = loadScanConfig(opts.config);
    const plan = await planClusters(config);
    out([grantPlanOf(config, plan.clusters, opts.roleId, opts.name)]);
    for (const f of plan.failures)
      cliStreams().stderr.write(`fleet-audit: warning: ${[f.accountId, f.regionId].filter(Boolean).join('/')}: clusters not listed, so not in the plan: ${f.message}\n`);
    return plan.failures.length > 0 ? EXIT_ERROR : EXIT_OK;
  }
  const users = opts.user?.split(',').map((u) => u.trim()).filter((u) => u !== '') ?? [];
  const bad = users.find((u) => !/^\d+$/.test(u));
  if (bad !== undefined) throw new CliUsageError(`--user: expected the numeric id of a RAM user or role, got "${bad}"`);
  out([leastPrivilegeClusterRole(opts.name), ...(users.length > 0 ? [clusterRoleBinding(users, opts.name)] : [])]);
  if (users.length === 0)
    cliStreams().stderr.write('fleet-audit: no --user: printed the ClusterRole only; bind it with --user <RAM user or role id>, or through ACK (--grant-plan)\n');
  return EXIT_OK;
}

/** Build the `rbac` subcommand. */
export function rbacCommand(run: (p: Promise<number>) => void): Command {
  return new Command('rbac')
    .description('print the least-privilege Kubernetes ClusterRole (and ClusterRoleBinding) the crawl needs in every cluster: every list it makes')
    .option('--user <ids>', 'bind the ClusterRole to these RAM user or role ids (the identity of the ACK kubeconfig; comma-separated)')
    .option('--name <name>', 'name of the ClusterRole and its binding', 'fleet-audit-read')
    .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .option('--grant-plan', 'print the ACK UpdateUserPermissions requests (mode=patch) that bind the ClusterRole to --role-id in every cluster --config selects; writes nothing')
    .option('--config <file>', 'scan config of the clusters for --grant-plan')
    .option('--role-id <uid>', 'the audit RAM role id (RoleId) for --grant-plan')
    .option('--grant-policy', 'print the RAM policy needed to apply the grant plan (separate from the read-only audit policy)')
    .addHelpText(
      'after',
      helpFooter([
        'fleet-audit rbac --user 300000000000000001 | kubectl apply -f -',
        'fleet-audit rbac --grant-plan --config scan.yaml --role-id 300000000000000001',
        'fleet-audit rbac --grant-policy',
      ]),
    )
    .action((o: RbacCommandOptions) => run(runRbacCommand(o)));
}
