/**
 * Reads each node's ephemeral port range (`sysctl -n net.ipv4.ip_local_port_range`) through ECS
 * Cloud Assistant (research/alibaba-cloud-api.md section 4, RunCommand / DescribeInvocationResults):
 *  - RunCommand `Type=RunShellScript`, plain-text command, up to 100 instances per call;
 *  - DescribeInvocationResults `InvokeId`, `ContentEncoding=PlainText` (Base64 otherwise),
 *    `MaxResults` <= 50 + `NextToken`, polled until every instance reached a final status.
 * The instances are the cluster's nodes (ECS id = text after the first `.` of `spec.providerID`,
 * CCM's rule). Output is what `sysctl -n` prints (`32768\t60999`), stored as in
 * `node-sysctls.json`. Nodes whose command did not succeed are left out (their range is unknown).
 * Off by default (`collector.nodeSysctls`): RunCommand executes on customer nodes and needs
 * `ecs:RunCommand`, a write permission an audit role may not have.
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

/**
 * Read the port range of every node of a cluster.
 * @param kubernetes the cluster's nodes (the instances to ask); undefined when they were not read
 * @param ecsInstances the region's ECS instances when read: nodes whose instance is not listed
 *   there are not asked (RunCommand rejects the whole call for one unknown instance id)
 * @returns instance id -> {sysctl: value} for the nodes where the command succeeded; Absent when
 *   RunCommand is not served here
 * @throws CollectError when the nodes were not read, a call failed, or the command failed on
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
  if (!kubernetes)
    throw new CollectError(
      'DependencyFailed',
      `RunCommand ${target}: the cluster's nodes were not read, so the ECS instances to ask are unknown`,
    );
  const known = ecsInstances ? new Set(ecsInstances.map((i) => i.InstanceId)) : undefined;
  const ids = [
    ...new Set(
      kubernetes.nodes
        .map((n) => ecsIdFromProviderId(n.spec?.providerID ?? undefined))
        .filter((id): id is string => id !== undefined && (known === undefined || known.has(id))),
    ),
  ].sort();
  const out: WireNodeSysctls = {};
  let firstFailure: { code: string; info: string } | undefined;
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
          else
            firstFailure ??= {
              code: stringAt(r, 'ErrorCode') || stringAt(r, 'InvocationStatus') || 'CommandFailed',
              info: stringAt(r, 'ErrorInfo') || stringAt(r, 'Output')?.trim() || 'no output',
            };
        }
        break;
      }
      await sleep(POLL_INTERVAL_MS, scope.signal);
    }
  }
  if (ids.length > 0 && Object.keys(out).length === 0)
    throw new CollectError(
      firstFailure?.code ?? 'CommandFailed',
      `RunCommand ${target}: sysctl -n ${PORT_RANGE_SYSCTL} failed on all ${ids.length} node(s): ${firstFailure?.info ?? 'no result'}`,
    );
  return out;
}
