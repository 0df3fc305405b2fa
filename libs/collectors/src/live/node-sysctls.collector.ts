/**
 * Reads each node's ephemeral port range (`sysctl -n net.ipv4.ip_local_port_range`) through ECS
 * Cloud Assistant (research/alibaba-cloud-api.md section 4, RunCommand / DescribeInvocationResults):
 *  - RunCommand `Type=RunShellScript`, plain-text command, up to 100 instances per call;
 *  - DescribeInvocationResults `InvokeId`, `ContentEncoding=PlainText` (Base64 otherwise),
 *    `MaxResults` <= 50 + `NextToken`, polled until every instance reached a final status.
 * The instances are the cluster's nodes (ECS id = text after the first `.` of `spec.providerID`,
 * CCM's rule), else the instances ACK tagged with the cluster id. Output is what `sysctl -n` prints (`32768\t60999`), stored as in
 * `node-sysctls.json`. Nodes whose command did not succeed are left out (their range is unknown).
 * On by default; `collector.nodeSysctls: false` turns it off where the audit role must not run
 * commands on nodes (RunCommand needs `ecs:RunCommand`, beyond read-only policies; without it the
 * dataset is `failed` with the API's Forbidden code).
 */
import { ecsIdFromProviderId, type WireKubernetes, type WireNodeSysctls } from '@app/domain';
import type { RegionClients } from './alibaba-clients.factory';
import { dara, ecsSdk } from './sdk-modules';
import { Absent, aliCall, type AccountScope } from './collect-scope.util';
import { CollectError, ScanAbortedError } from './collect-error.util';
import { readAllByToken } from './paging.util';
import { describeAllInstances } from './region.collector';
import { listAt, stringAt } from './wire-validate.util';

const runtime = () => new (dara().RuntimeOptions)({});

/** The sysctl read, as `node-sysctls.json` keys it. */
export const PORT_RANGE_SYSCTL = 'net.ipv4.ip_local_port_range';
/** Instances per RunCommand call (API limit `InstanceId.N`, N = 1-100). */
const RUN_COMMAND_BATCH = 100;
/** Per-instance statuses after which nothing changes (ECS InvocationStatus; research 4 notes the list is partly unverified). */
const FINAL = new Set([
  'Success',
  'Failed',
  'Error',
  'Timeout',
  'Cancelled',
  'Terminated',
  'Invalid',
  'Aborted',
  'Stopped',
]);
/** Command timeout on the node, seconds. */
const COMMAND_TIMEOUT_S = 30;
/** Poll interval of DescribeInvocationResults, milliseconds (ECS throttling doc: poll at 1-2 s). */
const POLL_INTERVAL_MS = 1000;
/** Give up polling after this long, milliseconds. */
const POLL_DEADLINE_MS = 120_000;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ScanAbortedError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new ScanAbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function notServed(e: unknown): e is CollectError {
  return (
    e instanceof CollectError &&
    (e.notFound || /^(InvalidAction|InvalidApi|UnsupportedOperation|InvalidVersion)/.test(e.errorCode))
  );
}

/** ACK's tag on the ECS instances of a cluster's nodes (value: the cluster id). */
export const ACK_CLUSTER_TAG = 'ack.aliyun.com';

/** The ECS instance ids of a cluster's nodes (`spec.providerID`, CCM's rule), sorted, unique. */
export function nodeInstanceIds(kubernetes: WireKubernetes): string[] {
  const ids = kubernetes.nodes
    .map((n) => ecsIdFromProviderId(n.spec?.providerID ?? undefined))
    .filter((id): id is string => id !== undefined);
  return [...new Set(ids)].sort();
}

/** ECS DescribeInstances with filters, all pages; returns the instance ids. */
async function describeInstanceIds(
  scope: AccountScope,
  rc: RegionClients,
  target: string,
  filter: { instanceIds?: string[]; tag?: { key: string; value: string } },
): Promise<string[]> {
  const items = await describeAllInstances(scope, rc, target, 100, {
    ...(filter.instanceIds ? { instanceIds: JSON.stringify(filter.instanceIds) } : {}),
    ...(filter.tag ? { tag: [new (ecsSdk().DescribeInstancesRequestTag)(filter.tag)] } : {}),
  });
  return items
    .map((i) => stringAt(i, 'InstanceId'))
    .filter((id): id is string => id !== undefined)
    .sort();
}

/** RunCommand's answer when one of the instance ids does not exist (the whole call is refused). */
function unknownInstance(e: unknown): boolean {
  return e instanceof CollectError && /^InvalidInstance(Id)?\.NotFound/.test(e.errorCode);
}

/**
 * Read the port range of every node of a cluster.
 *
 * Instances asked: the nodes' instances (`spec.providerID`); when the nodes were not read, the
 * region's instances tagged `ack.aliyun.com` = cluster id (DescribeInstances with a tag filter).
 * RunCommand refuses the whole call when one instance id is unknown (`InvalidInstance.NotFound`,
 * e.g. a node whose instance was released): then DescribeInstances with those ids tells which
 * exist, and RunCommand is sent again for those only. So the usual plan is one RunCommand per 100
 * nodes and one DescribeInvocationResults per 50 nodes per poll, with no ECS listing.
 * @param kubernetes the cluster's nodes; undefined when they were not read
 * @returns instance id -> {sysctl: value} for the nodes where the command succeeded; Absent when
 *   RunCommand is not served here
 * @throws CollectError when a call failed, or the command failed on every node asked (e.g. no
 *   Cloud Assistant agent)
 */
export async function readNodeSysctls(
  scope: AccountScope,
  rc: RegionClients,
  clusterId: string,
  kubernetes: WireKubernetes | undefined,
): Promise<WireNodeSysctls | Absent> {
  const target = `${scope.accountId}/${rc.regionId}/${clusterId}`;
  const ids = kubernetes
    ? nodeInstanceIds(kubernetes)
    : await describeInstanceIds(scope, rc, target, { tag: { key: ACK_CLUSTER_TAG, value: clusterId } });
  const out: WireNodeSysctls = {};
  /** Failed instances by error code: count and the first ErrorInfo seen. */
  const failures = new Map<string, { count: number; info: string }>();
  let asked = 0;
  for (let i = 0; i < ids.length; i += RUN_COMMAND_BATCH) {
    let batch = ids.slice(i, i + RUN_COMMAND_BATCH);
    let invokeId: string | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const resp = await aliCall(scope, 'RunCommand', target, () =>
          rc.ecs.runCommandWithOptions(
            new (ecsSdk().RunCommandRequest)({
              regionId: rc.regionId,
              type: 'RunShellScript',
              commandContent: `sysctl -n ${PORT_RANGE_SYSCTL}`,
              contentEncoding: 'PlainText',
              instanceId: batch,
              timeout: COMMAND_TIMEOUT_S,
              name: 'fleet-audit-read-port-range',
            }),
            runtime(),
          ),
        );
        invokeId = stringAt(resp.body?.toMap(), 'InvokeId');
        break;
      } catch (e) {
        if (attempt === 0 && unknownInstance(e)) {
          batch = await describeInstanceIds(scope, rc, target, { instanceIds: batch });
          if (batch.length === 0) break;
          continue;
        }
        if (notServed(e))
          return new Absent(`not collected live: RunCommand is not served for ${target} (${e.errorCode})`);
        throw e;
      }
    }
    if (batch.length === 0) continue;
    asked += batch.length;
    if (!invokeId)
      throw new CollectError(
        'InvalidResponse',
        `RunCommand ${target}: malformed response at $.InvokeId: expected a string`,
      );
    const deadline = Date.now() + POLL_DEADLINE_MS;
    for (;;) {
      const results = await readAllByToken(async (token) => {
        const resp = await aliCall(scope, 'DescribeInvocationResults', `${target}/${invokeId}`, () =>
          rc.ecs.describeInvocationResultsWithOptions(
            new (ecsSdk().DescribeInvocationResultsRequest)({
              regionId: rc.regionId,
              invokeId,
              contentEncoding: 'PlainText',
              maxResults: 50,
              ...(token ? { nextToken: token } : {}),
            }),
            runtime(),
          ),
        );
        const body = resp.body?.toMap() ?? {};
        return {
          items: listAt(
            body,
            'DescribeInvocationResults',
            target,
            'Invocation',
            'InvocationResults',
            'InvocationResult',
          ),
          nextToken: stringAt(body, 'Invocation', 'NextToken'),
        };
      }, `DescribeInvocationResults ${target}`);
      const done = results.filter((r) => FINAL.has(stringAt(r, 'InvocationStatus') ?? ''));
      if (done.length >= batch.length || Date.now() > deadline) {
        for (const r of done) {
          const id = stringAt(r, 'InstanceId');
          const output = stringAt(r, 'Output')?.trim();
          if (id && stringAt(r, 'InvocationStatus') === 'Success' && output)
            out[id] = { [PORT_RANGE_SYSCTL]: output };
          else {
            const code = stringAt(r, 'ErrorCode') || stringAt(r, 'InvocationStatus') || 'CommandFailed';
            const f = failures.get(code) ?? {
              count: 0,
              info: stringAt(r, 'ErrorInfo') || stringAt(r, 'Output')?.trim() || 'no output',
            };
            f.count++;
            failures.set(code, f);
          }
        }
        break;
      }
      await sleep(POLL_INTERVAL_MS, scope.signal);
    }
  }
  if (asked > 0 && Object.keys(out).length === 0) {
    // Report the most frequent failure (ties: alphabetical), then the others with their counts.
    const ranked = [...failures.entries()].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1));
    const detail = ranked.map(([code, f]) => `${code} on ${f.count} (${f.info})`).join('; ');
    throw new CollectError(
      ranked[0]?.[0] ?? 'CommandFailed',
      `RunCommand ${target}: sysctl -n ${PORT_RANGE_SYSCTL} failed on all ${asked} node(s): ${detail || 'no result'}`,
    );
  }
  return out;
}
