/**
 * `fleet-audit scan --config FILE --dry-run`: what a live scan would read, before it reads it. One
 * DescribeClustersV1 per account and region (the only API called), then for every listed cluster
 * whether the scan config's `clusters.include` / `clusters.exclude` select it (and if not, which entry
 * leaves it out) and which API server endpoint its crawl would dial (`clusters.kubernetesEndpoint` and
 * its overrides; libs/collectors cluster-endpoint.ts).
 */
import type { ClusterPlan, ClusterPlanEntry, ScanConfig } from '@app/collectors';
import { loadCollectors } from '../lazy';
import { EXIT_ERROR, EXIT_OK } from '../cli-error';
import { cliStreams } from '../output/cli-streams';
import { terminalText } from '@app/domain';

/** `intranet https://10.0.0.253:6443 (auto, vpc-x)`: the endpoint column of a plan row. */
function endpointText(c: ClusterPlanEntry): string {
  const e = c.endpoint;
  const address = e.address ?? (e.kind === 'public' && e.hasPublic === false ? '(none: no public endpoint)' : '(address not listed)');
  return `${e.kind} ${address} (${e.mode.mode}${e.vpcId ? `, ${e.vpcId}` : ''})`;
}

/** Rows padded into columns (plain text: a plan is read once, then piped or pasted). */
function columns(rows: readonly string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

/** The plan as text: the clusters read with their endpoint, then the excluded ones with the reason, then the failures. */
export function renderClusterPlan(config: Pick<ScanConfig, 'name'>, plan: ClusterPlan): string {
  const read = plan.clusters.filter((c) => c.selected);
  const left = plan.clusters.filter((c) => !c.selected);
  const name = (c: ClusterPlanEntry) => terminalText(`${c.name || '(no name)'} (${c.clusterId})`);
  let out =
    `Scan plan of "${terminalText(config.name)}": ${read.length} of ${plan.clusters.length} listed cluster${plan.clusters.length === 1 ? '' : 's'} ` +
    `would be read, ${left.length} excluded (only DescribeClustersV1 was called)\n`;
  if (read.length > 0)
    out += `\nRead:\n${columns([['ACCOUNT', 'REGION', 'CLUSTER', 'ENDPOINT'], ...read.map((c) => [c.accountId, c.regionId, name(c), endpointText(c)])])}\n`;
  if (left.length > 0)
    out += `\nExcluded:\n${columns([['ACCOUNT', 'REGION', 'CLUSTER', 'WHY'], ...left.map((c) => [c.accountId, c.regionId, name(c), terminalText(c.reason ?? '')])])}\n`;
  if (plan.failures.length > 0)
    out += `\nNot listed (the scan would report these as coverage gaps):\n${plan.failures.map((f) => `  ${[f.accountId, f.regionId].filter(Boolean).join('/')}: ${terminalText(f.message)}`).join('\n')}\n`;
  return out;
}

/**
 * Print the plan of a live scan; returns 0, or 2 when a cluster list could not be read.
 * @param format `json` prints `{clusters, failures}`; anything else the text plan
 */
export async function runScanDryRun(config: ScanConfig, format: string): Promise<number> {
  const plan = await loadCollectors().planClusters(config);
  cliStreams().stdout.write(format === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : renderClusterPlan(config, plan));
  return plan.failures.length > 0 ? EXIT_ERROR : EXIT_OK;
}
