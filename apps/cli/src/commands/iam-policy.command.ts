/**
 * `fleet-audit iam-policy [--config FILE]`: print the least-privilege RAM policy of the audit role,
 * one `service:Action` per OpenAPI action the live collectors call (libs/collectors ram-actions.ts,
 * the collectors' own call list; CALL-PLAN.md explains each call). With `--config`, the Cloud
 * Assistant actions are left out when `collector.nodeSysctls` is false, and the `sts:AssumeRole`
 * grant the base identity needs on the configured `auditRoleArn`s is printed on stderr.
 */
import { Command } from 'commander';
import { loadCollectors } from '../lazy';
import { EXIT_OK } from '../cli-error';
import { helpFooter } from './help-text.util';
import { cliStreams } from '../output/cli-streams';

/** Print the policy; returns 0. @throws ScanConfigError for a bad --config */
export async function runIamPolicyCommand(opts: { config?: string }): Promise<number> {
  const { leastPrivilegePolicy, assumeRoleStatement, loadScanConfig } = loadCollectors();
  const config = opts.config !== undefined ? loadScanConfig(opts.config) : undefined;
  cliStreams().stdout.write(`${JSON.stringify(leastPrivilegePolicy(config), null, 2)}\n`);
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
    .option('--config <file>', 'scan config: leaves out what it does not use (collector.nodeSysctls: false)')
    .addHelpText(
      'after',
      helpFooter([
        'fleet-audit iam-policy > fleet-audit-policy.json',
        'fleet-audit iam-policy --config scan.yaml',
        'aliyun ram CreatePolicy --PolicyName fleet-audit-readonly --PolicyDocument "$(fleet-audit iam-policy)"',
      ]),
    )
    .action((o: { config?: string }) => run(runIamPolicyCommand(o)));
}
