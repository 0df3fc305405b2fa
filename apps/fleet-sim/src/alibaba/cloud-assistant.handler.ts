/**
 * ECS 2014-05-26 Cloud Assistant (RPC): RunCommand and DescribeInvocationResults, answering
 * `sysctl` reads from the fleet's `node-sysctls.json` (`shared/fleet-format.md`).
 *
 * Source: `research/alibaba-cloud-api.md` section 4:
 * - RunCommand: `RegionId`, `Type` (RunShellScript | RunBatScript | RunPowerShellScript),
 *   `CommandContent` (`ContentEncoding` PlainText | Base64), `InstanceId.N` (1-100) ->
 *   `{RequestId, CommandId, InvokeId}`;
 * - DescribeInvocationResults: `RegionId`, `InvokeId`, `InstanceId`, `CommandId`,
 *   `InvokeRecordStatus`, `ContentEncoding` (default Base64: `Output` is Base64 unless
 *   PlainText), `MaxResults` (1-50, default 10) / `NextToken` ->
 *   `{RequestId, Invocation:{TotalCount, PageSize, NextToken, InvocationResults:{InvocationResult:[]}}}`.
 * Simulated execution is immediate (every result is final at once). The only command run is
 * `sysctl [-n] KEY...`: an instance whose values are in the fleet succeeds with what `sysctl`
 * prints (the stored value verbatim); one without them fails (exit 1) so its value stays
 * unknown, as when `node-sysctls.json` is absent offline; an instance that is not Running fails
 * with `InstanceNotRunning`; any other command fails with exit 127. Unknown instance ids are
 * 404 `InvalidInstance.NotFound`.
 */
import { randomBytes } from 'node:crypto';
import type { RegionEntry } from '../fleet/fleet-index.repository';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler } from './acs-request';
import type { InvocationInstanceResult } from './invocation.store';
import { tokenPage } from './paging.util';

const SCRIPT_TYPES = new Set(['RunShellScript', 'RunBatScript', 'RunPowerShellScript']);

function ecsRegion(req: AcsRequest, regionId: string): RegionEntry {
  const region = req.account.regionById.get(regionId);
  if (!region?.ecs) {
    if (region) throw AcsError.forbidden('Ecs', `ECS instances of ${regionId}`);
    throw new AcsError(404, 'InvalidInstance.NotFound', 'The specified instance does not exist.');
  }
  return region;
}

/** Run one simulated command on one instance. */
function execute(command: string, region: RegionEntry, instanceId: string): InvocationInstanceResult {
  const base = { InstanceId: instanceId, ErrorCode: '', ErrorInfo: '' };
  const status = region.ecs?.byId.get(instanceId)?.Status;
  if (status !== undefined && status !== 'Running')
    return {
      ...base,
      InvocationStatus: 'Failed',
      ExitCode: 0,
      Output: '',
      ErrorCode: 'InstanceNotRunning',
      ErrorInfo: `the instance is ${status}`,
    };
  const words = command.trim().split(/\s+/);
  if (words[0] !== 'sysctl' || words.length < 2)
    return {
      ...base,
      InvocationStatus: 'Failed',
      ExitCode: 127,
      Output: `sh: ${words[0] ?? ''}: command not supported by the fleet simulator\n`,
      ErrorCode: 'CommandFailed',
      ErrorInfo: 'command not supported',
    };
  const valuesOnly = words.includes('-n');
  const keys = words.slice(1).filter((w) => !w.startsWith('-'));
  const known = region.sysctlsByInstance.get(instanceId) ?? {};
  const missing = keys.filter((k) => known[k] === undefined);
  if (missing.length > 0)
    return {
      ...base,
      InvocationStatus: 'Failed',
      ExitCode: 1,
      Output: '',
      ErrorCode: 'CommandFailed',
      ErrorInfo: `the simulated fleet has no value of ${missing.join(', ')} for this instance`,
    };
  const output = keys
    .map((k) => (valuesOnly ? (known[k] as string) : `${k} = ${known[k] as string}`))
    .join('\n');
  return { ...base, InvocationStatus: 'Success', ExitCode: 0, Output: `${output}\n` };
}

const isoSeconds = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** ECS RunCommand. */
export const runCommand: RpcHandler = (req, ctx) => {
  const p = req.params;
  const regionId = p.required('RegionId');
  const type = p.required('Type');
  if (!SCRIPT_TYPES.has(type))
    throw AcsError.invalidParameter(
      'Type',
      'It must be RunShellScript, RunBatScript or RunPowerShellScript.',
    );
  const content = p.required('CommandContent');
  const encoding = p.str('ContentEncoding') ?? 'PlainText';
  if (encoding !== 'PlainText' && encoding !== 'Base64')
    throw AcsError.invalidParameter('ContentEncoding', 'It must be PlainText or Base64.');
  const command = encoding === 'Base64' ? Buffer.from(content, 'base64').toString('utf8') : content;
  const instanceIds = p.repeated('InstanceId');
  if (instanceIds.length === 0) throw AcsError.missingParameter('InstanceId.1');
  if (instanceIds.length > 100)
    throw AcsError.invalidParameter('InstanceId', 'At most 100 instances are allowed.');
  const region = ecsRegion(req, regionId);
  for (const id of instanceIds)
    if (!region.ecs?.byId.has(id))
      throw new AcsError(404, 'InvalidInstance.NotFound', 'The specified instance does not exist.');
  const invokeId = `t-sim${randomBytes(10).toString('hex')}`;
  const commandId = `c-sim${randomBytes(10).toString('hex')}`;
  ctx.invocations.add({
    invokeId,
    commandId,
    accountId: req.account.accountId,
    regionId,
    time: isoSeconds(ctx.now()),
    results: instanceIds.map((id) => execute(command, region, id)),
  });
  return { CommandId: commandId, InvokeId: invokeId };
};

/** ECS DescribeInvocationResults. */
export const describeInvocationResults: RpcHandler = (req, ctx) => {
  const p = req.params;
  const regionId = p.required('RegionId');
  const encoding = p.str('ContentEncoding') ?? 'Base64';
  const maxResults = p.int('MaxResults') ?? 10;
  if (maxResults < 1 || maxResults > 50)
    throw AcsError.invalidParameter('MaxResults', 'It must be between 1 and 50.');
  const invokeId = p.str('InvokeId');
  const instanceId = p.str('InstanceId');
  const commandId = p.str('CommandId');
  const recordStatus = p.str('InvokeRecordStatus');
  const invocations =
    invokeId !== undefined
      ? [ctx.invocations.get(req.account.accountId, invokeId)].filter((i) => i?.regionId === regionId)
      : ctx.invocations.list(req.account.accountId, regionId);
  const all = invocations.flatMap((inv) =>
    inv === undefined || (commandId !== undefined && inv.commandId !== commandId)
      ? []
      : inv.results
          .filter((r) => instanceId === undefined || r.InstanceId === instanceId)
          .filter(
            (r) =>
              recordStatus === undefined ||
              recordStatus === 'Finished' ||
              recordStatus === r.InvocationStatus,
          )
          .map((r) => ({
            CommandId: inv.commandId,
            InvokeId: inv.invokeId,
            InstanceId: r.InstanceId,
            InvocationStatus: r.InvocationStatus,
            InvokeRecordStatus: 'Finished',
            ExitCode: r.ExitCode,
            Output: encoding === 'PlainText' ? r.Output : Buffer.from(r.Output, 'utf8').toString('base64'),
            ErrorCode: r.ErrorCode,
            ErrorInfo: r.ErrorInfo,
            Dropped: 0,
            Repeats: 1,
            Username: 'root',
            StartTime: inv.time,
            FinishedTime: inv.time,
            StopTime: '',
          })),
  );
  const scope = `ecs:DescribeInvocationResults:${req.account.accountId}:${regionId}:${invokeId ?? ''}:${instanceId ?? ''}:${commandId ?? ''}:${recordStatus ?? ''}`;
  const { items, next } = tokenPage(all, maxResults, scope, p.str('NextToken'));
  return {
    Invocation: {
      TotalCount: all.length,
      PageSize: maxResults,
      NextToken: next ?? '',
      InvocationResults: { InvocationResult: items },
    },
  };
};
