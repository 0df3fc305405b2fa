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
import { DescribeInvocationResultsRequest, RunCommandRequest } from '@alicloud/ecs20140526';
import * as $dara from '@darabonba/typescript';
import {
  ecsIdFromProviderId,
  type WireEcsInstance,
  type WireKubernetes,
  type WireNodeSysctls,
} from '@app/domain';
import type { RegionClients } from './alibaba-clients.factory';
import { Absent, aliCall, type AccountScope } from './collect-scope.util';
import { CollectError, ScanAbortedError } from './collect-error.util';
import { readAllByToken } from './paging.util';
import { listAt, stringAt } from './wire-validate.util';

const runtime = () => new $dara.RuntimeOptions({});

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

/**
 * The ECS instances to ask: the nodes' instances (`spec.providerID`) that exist in the region's
 * instance list; when the nodes were not read, the region's instances tagged `ack.aliyun.com` with
 * the cluster id. Undefined when neither source was read.
 */
export function instancesToAsk(
  clusterId: string,
  kubernetes: WireKubernetes | undefined,
  ecsInstances: readonly WireEcsInstance[] | undefined,
): string[] | undefined {
  if (kubernetes) {
    const known = ecsInstances ? new Set(ecsInstances.map((i) => i.InstanceId)) : undefined;
    const ids = kubernetes.nodes
      .map((n) => ecsIdFromProviderId(n.spec?.providerID ?? undefined))
      .filter((id): id is string => id !== undefined && (known === undefined || known.has(id)));
    return [...new Set(ids)].sort();
  }
  if (ecsInstances)
    return ecsInstances
      .filter((i) =>
        (i.Tags?.Tag ?? []).some((t) => t.TagKey === ACK_CLUSTER_TAG && t.TagValue === clusterId),
      )
      .map((i) => i.InstanceId)
      .sort();
  return undefined;
}

/**
 * Read the port range of every node of a cluster.
 * @param kubernetes the cluster's nodes (the instances to ask); undefined when they were not read
 * @param ecsInstances the region's ECS instances when read: nodes whose instance is not listed
 *   there are not asked (RunCommand rejects the whole call for one unknown instance id); without
 *   nodes, the instances tagged with the cluster id are asked
 * @returns instance id -> {sysctl: value} for the nodes where the command succeeded; Absent when
 *   RunCommand is not served here
 * @throws CollectError when no instance list was read, a call failed, or the command failed on
 *   every node asked (e.g. no Cloud Assistant agent)
 */
export async function readNodeSysctls(
  scope: AccountScope,
  rc: RegionClients,
  clusterId: string,
  kubernetes: WireKubernetes | undefined,
  ecsInstances?: readonly WireEcsInstance[],
): Promise<WireNodeSysctls | Absent> {
  const target = `${scope.accountId}/${rc.regionId}/${clusterId}`;
  const ids = instancesToAsk(clusterId, kubernetes, ecsInstances);
  if (ids === undefined)
    throw new CollectError(
      'DependencyFailed',
      `RunCommand ${target}: neither the cluster's nodes nor the region's ECS instances were read, so the instances to ask are unknown`,
    );
  const out: WireNodeSysctls = {};
  /** Failed instances by error code: count and the first ErrorInfo seen. */
  const failures = new Map<string, { count: number; info: string }>();
  for (let i = 0; i < ids.length; i += RUN_COMMAND_BATCH) {
    const batch = ids.slice(i, i + RUN_COMMAND_BATCH);
    let invokeId: string | undefined;
    try {
      const resp = await aliCall(scope, 'RunCommand', target, () =>
        rc.ecs.runCommandWithOptions(
          new RunCommandRequest({
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
    } catch (e) {
      if (notServed(e))
        return new Absent(`not collected live: RunCommand is not served for ${target} (${e.errorCode})`);
      throw e;
    }
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
            new DescribeInvocationResultsRequest({
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
  if (ids.length > 0 && Object.keys(out).length === 0) {
    // Report the most frequent failure (ties: alphabetical), then the others with their counts.
    const ranked = [...failures.entries()].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1));
    const detail = ranked.map(([code, f]) => `${code} on ${f.count} (${f.info})`).join('; ');
    throw new CollectError(
      ranked[0]?.[0] ?? 'CommandFailed',
      `RunCommand ${target}: sysctl -n ${PORT_RANGE_SYSCTL} failed on all ${ids.length} node(s): ${detail || 'no result'}`,
    );
  }
  return out;
}
