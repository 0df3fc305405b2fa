/**
 * `fleet-audit iam-policy [--config FILE] [--node-sysctls]`: print the least-privilege RAM policy of the
 * audit role, one `service:Action` per OpenAPI action the live collectors call (libs/collectors
 * ram-actions.ts, the collectors' own call list; CALL-PLAN.md explains each call). Read-only by default:
 * the Cloud Assistant actions (`ecs:RunCommand`, `ecs:DescribeInvocationResults`, which can run commands
 * on every node) are printed only with `--node-sysctls` or a `--config` that sets `collector.nodeSysctls:
 * true`. With `--config`, the `sts:AssumeRole` grant the base identity needs on the configured
 * `auditRoleArn`s is printed on stderr. `--trust <account-id|role-arn>` prints instead the trust policy of the
 * audit role in an audited account: who may AssumeRole it (cross-account access, research/reach.md 3.1).
 * `--quota-requests` prints instead the separate write policy of `quota request --apply` (Quota Center applications).
 */
import { Command } from 'commander';
import { loadCollectors } from '../lazy';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { helpFooter } from './help-text.util';
import { cliStreams } from '../output/cli-streams';

/** Print the policy; returns 0. @throws ScanConfigError for a bad --config, CliUsageError for a bad --trust */
export async function runIamPolicyCommand(opts: { config?: string; nodeSysctls?: boolean; trust?: string; quotaRequests?: boolean }): Promise<number> {
  const { leastPrivilegePolicy, assumeRoleStatement, loadScanConfig, trustPolicy, quotaRequestPolicy } = loadCollectors();
  if (opts.quotaRequests === true) {
    if (opts.trust !== undefined || opts.nodeSysctls === true) throw new CliUsageError('--quota-requests prints the write policy of quota applications alone: drop --trust and --node-sysctls');
    cliStreams().stdout.write(`${JSON.stringify(quotaRequestPolicy(), null, 2)}\n`);
    cliStreams().stderr.write('fleet-audit: this is a write policy (it files Quota Center applications): attach it only to whoever runs `quota request --apply`, not to the audit role\n');
    return EXIT_OK;
  }
  if (opts.trust !== undefined) {
    let trust;
    try {
      trust = trustPolicy(opts.trust.split(',').map((t) => t.trim()));
    } catch (e) {
      throw new CliUsageError(`--trust ${opts.trust}: ${(e as Error).message}`);
    }
    cliStreams().stdout.write(`${JSON.stringify(trust, null, 2)}\n`);
    return EXIT_OK;
  }
  const config = opts.config !== undefined ? loadScanConfig(opts.config) : undefined;
  const policy = leastPrivilegePolicy(config, { nodeSysctls: opts.nodeSysctls === true });
  cliStreams().stdout.write(`${JSON.stringify(policy, null, 2)}\n`);
  if (policy.Statement.some((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]).includes('ecs:RunCommand')))
    cliStreams().stderr.write(
      'fleet-audit: this policy includes ecs:RunCommand (node sysctl collection): the role can run commands on every ECS instance of the account; the audit runs only `sysctl -n net.ipv4.ip_local_port_range`\n',
    );
  const assume = config ? assumeRoleStatement(config) : undefined;
  if (assume)
    cliStreams().stderr.write(
      `fleet-audit: the base identity (AccessKey / RRSA role) also needs, on the audit roles:\n${JSON.stringify(assume, null, 2)}\n`,
    );
  return EXIT_OK;
}

/** Build the `iam-policy` subcommand. */
export function iamPolicyCommand(run: (p: Promise<number>) => void): Command {
  return new Command('iam-policy')
    .description('print the least-privilege RAM policy (JSON) the audit role needs: every API action the crawler calls')
    .option('--config <file>', 'scan config: the policy of what it uses (ecs:RunCommand only with collector.nodeSysctls: true)')
    .option('--node-sysctls', 'add the Cloud Assistant actions of node sysctl collection (ecs:RunCommand, ecs:DescribeInvocationResults: not read-only)')
    .option('--trust <account-or-role>', 'print instead the trust policy of the audit role in an audited account: which account id(s) or role ARN(s) may AssumeRole it (comma-separated)')
    .option('--quota-requests', 'print instead the separate write policy of `quota request --apply` (CreateQuotaApplication and the reads it needs)')
    .addHelpText(
      'after',
      helpFooter([
        'fleet-audit iam-policy > fleet-audit-policy.json',
        'fleet-audit iam-policy --config scan.yaml',
        'fleet-audit iam-policy --node-sysctls   # also the NodePort-overlap checks (runs sysctl on nodes)',
        'aliyun ram CreatePolicy --PolicyName fleet-audit-readonly --PolicyDocument "$(fleet-audit iam-policy)"',
        'fleet-audit iam-policy --trust 1234567890123456   # the audit role\'s trust policy in each audited account',
        'fleet-audit iam-policy --quota-requests > fleet-audit-quota-requests.json   # write policy: quota request --apply',
      ]),
    )
    .action((o: { config?: string; nodeSysctls?: boolean; trust?: string; quotaRequests?: boolean }) => run(runIamPolicyCommand(o)));
}
