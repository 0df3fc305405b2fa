import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WireKubernetes } from '@app/domain';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccountClients } from './alibaba-clients.factory';
import { CallRunner } from './call-runner.util';
import { Absent, CoverageRecorder, type AccountScope } from './collect-scope.util';
import { PORT_RANGE_SYSCTL, readNodeSysctls } from './node-sysctls.collector';
import { collectorSettingsSchema } from './scan-config';

/**
 * A fake ECS: RunCommand (refused whole with 404 InvalidInstance.NotFound when an id is not in
 * `known`), DescribeInvocationResults (Running once, then final), DescribeInstances (filters
 * `InstanceIds` and `Tag.1.*` over `known`).
 */
let server: Server;
let endpoint: string;
let actions: string[] = [];
let served = true;
let polls = 0;
let runQuery: URLSearchParams | undefined;
let allFail = false;
let pollQuery: URLSearchParams | undefined;
let describeQueries: URLSearchParams[] = [];
/** Instances that exist, with their `ack.aliyun.com` tag. */
const known: Record<string, string> = { 'i-a': 'c1', 'i-b': 'c1', 'i-x': 'c2' };

beforeAll(async () => {
  server = createServer((req, res) => {
    const action = String(req.headers['x-acs-action']);
    const url = new URL(req.url ?? '/', 'http://x');
    actions.push(action);
    res.setHeader('content-type', 'application/json');
    if (!served) {
      res.writeHead(404);
      res.end(
        JSON.stringify({
          RequestId: 'R',
          Code: 'InvalidAction.NotFound',
          Message: 'Specified api is not found',
        }),
      );
      return;
    }
    if (action === 'DescribeInstances') {
      describeQueries.push(url.searchParams);
      const ids = url.searchParams.get('InstanceIds');
      const tag = url.searchParams.get('Tag.1.Value');
      const list = Object.entries(known)
        .filter(
          ([id, c]) => (ids ? (JSON.parse(ids) as string[]).includes(id) : true) && (tag ? c === tag : true),
        )
        .map(([id, c]) => ({ InstanceId: id, Tags: { Tag: [{ TagKey: 'ack.aliyun.com', TagValue: c }] } }));
      res.end(JSON.stringify({ RequestId: 'R', NextToken: '', Instances: { Instance: list } }));
      return;
    }
    if (action === 'RunCommand') {
      runQuery = url.searchParams;
      const asked = [...url.searchParams.entries()]
        .filter(([k]) => k.startsWith('InstanceId.'))
        .map(([, v]) => v);
      if (asked.some((id) => !(id in known))) {
        res.writeHead(404);
        res.end(
          JSON.stringify({
            RequestId: 'R',
            Code: 'InvalidInstance.NotFound',
            Message: 'The specified instance does not exist.',
          }),
        );
        return;
      }
      res.end(JSON.stringify({ RequestId: 'R', CommandId: 'c-1', InvokeId: 't-1' }));
      return;
    }
    polls++;
    pollQuery = url.searchParams;
    const running = polls === 1;
    const asked = [...(runQuery?.entries() ?? [])]
      .filter(([k]) => k.startsWith('InstanceId.'))
      .map(([, v]) => v);
    const resultOf = (id: string) =>
      allFail
        ? {
            InstanceId: id,
            InvocationStatus: 'Failed',
            ErrorCode: 'CommandFailed',
            ErrorInfo: 'agent not installed',
            Output: '',
          }
        : id === 'i-a'
          ? {
              InstanceId: id,
              InvocationStatus: running ? 'Running' : 'Success',
              Output: running ? '' : '32768\t60999\n',
            }
          : { InstanceId: id, InvocationStatus: 'Failed', Output: 'sysctl: permission denied' };
    res.end(
      JSON.stringify({
        RequestId: 'R',
        Invocation: { InvocationResults: { InvocationResult: asked.map(resultOf) } },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  actions = [];
  polls = 0;
  served = true;
  allFail = false;
  runQuery = undefined;
  describeQueries = [];
});

function scope(): AccountScope {
  const runner = new CallRunner({
    schedule: (_api, fn) => fn(),
    maxAttempts: 1,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 1,
  });
  return {
    accountId: '1',
    clients: createAccountClients(
      { endpoint, protocol: 'http', readTimeoutMs: 5000, connectTimeoutMs: 2000 },
      { kind: 'static', accessKeyId: 'ak-test', accessKeySecret: 'sk-test' },
    ),
    runner,
    kubeRunner: runner,
    settings: collectorSettingsSchema.parse({}),
    coverage: new CoverageRecorder(),
  };
}

const nodes = (...providerIds: string[]): WireKubernetes => ({
  nodes: providerIds.map((p, i) => ({ metadata: { name: `n${i}` }, spec: { providerID: p } })),
  services: [],
  pods: [],
  endpointSlices: [],
  events: [],
});

/**
 * readNodeSysctls of cluster c1 in cn-hangzhou through a fresh scope, over nodes with these providerIDs (none: the
 * cluster's nodes were not read).
 */
function readC1(...providerIds: string[]) {
  const s = scope();
  return readNodeSysctls(s, s.clients.region('cn-hangzhou'), 'c1', providerIds.length > 0 ? nodes(...providerIds) : undefined);
}

describe('readNodeSysctls', () => {
  it('runs sysctl on the nodes and polls until every instance is final; failed nodes are left out', async () => {
    const out = await readC1('cn-hangzhou.i-a', 'cn-hangzhou.i-b');
    expect(out).toEqual({ 'i-a': { [PORT_RANGE_SYSCTL]: '32768\t60999' } });
    expect(actions).toEqual(['RunCommand', 'DescribeInvocationResults', 'DescribeInvocationResults']);
    expect(runQuery?.get('CommandContent')).toBe(`sysctl -n ${PORT_RANGE_SYSCTL}`);
    expect(runQuery?.get('Type')).toBe('RunShellScript');
    expect([runQuery?.get('InstanceId.1'), runQuery?.get('InstanceId.2')]).toEqual(['i-a', 'i-b']);
    expect(pollQuery?.get('InvokeId')).toBe('t-1');
    expect(pollQuery?.get('ContentEncoding')).toBe('PlainText');
  });

  it('fails (not an empty map) when the command failed on every node', async () => {
    allFail = true;
    const err = await readC1('cn-hangzhou.i-a', 'cn-hangzhou.i-b').catch((e: unknown) => e);
    expect(err).toMatchObject({ errorCode: 'CommandFailed' });
    expect((err as Error).message).toMatch(
      /failed on all 2 node\(s\): CommandFailed on 2 \(agent not installed\)/,
    );
  });

  it('asks again with the existing instances only when RunCommand refuses an unknown one', async () => {
    const out = await readC1('cn-hangzhou.i-a', 'cn-hangzhou.i-gone');
    expect(out).toEqual({ 'i-a': { [PORT_RANGE_SYSCTL]: '32768\t60999' } });
    expect(actions.slice(0, 3)).toEqual(['RunCommand', 'DescribeInstances', 'RunCommand']);
    expect(JSON.parse(describeQueries[0].get('InstanceIds') ?? '[]')).toEqual(['i-a', 'i-gone']);
    expect(runQuery?.get('InstanceId.1')).toBe('i-a');
    expect(runQuery?.has('InstanceId.2')).toBe(false);
  });

  it('is absent when Cloud Assistant is not served', async () => {
    served = false;
    const out = await readC1('cn-hangzhou.i-a');
    expect(out).toBeInstanceOf(Absent);
    expect((out as Absent).message).toMatch(/RunCommand is not served/);
  });

  it('falls back to the instances tagged with the cluster id when the nodes were not read', async () => {
    const out = await readC1();
    expect(out).toEqual({ 'i-a': { [PORT_RANGE_SYSCTL]: '32768\t60999' } });
    expect(describeQueries[0].get('Tag.1.Key')).toBe('ack.aliyun.com');
    expect(describeQueries[0].get('Tag.1.Value')).toBe('c1');
    expect([runQuery?.get('InstanceId.1'), runQuery?.get('InstanceId.2')]).toEqual(['i-a', 'i-b']);
  });
});
