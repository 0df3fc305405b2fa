import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CallRunner } from './call-runner.util';
import { CollectError } from './collect-error.util';
import { loadKubeconfig, readKubernetes, toWireJson } from './kubernetes.collector';

const kubeconfig = (server: string, skipTls: boolean) =>
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: k',
    '  cluster:',
    `    server: ${server}`,
    ...(skipTls ? ['    insecure-skip-tls-verify: true'] : []),
    'contexts:',
    '- name: c',
    '  context: {cluster: k, user: u}',
    'current-context: c',
    'users:',
    '- name: u',
    '  user: {token: t0ken}',
  ].join('\n');

const runner = () =>
  new CallRunner({ schedule: (_api, fn) => fn(), maxAttempts: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 2 });

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('loadKubeconfig', () => {
  it('rejects text that is not a kubeconfig', () => {
    const e = (() => {
      try {
        loadKubeconfig('{{{ not yaml', 'a/r/c1');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(CollectError);
    expect((e as CollectError).errorCode).toBe('InvalidKubeconfig');
    expect((e as CollectError).message).toMatch(
      /^DescribeClusterUserKubeconfig a\/r\/c1: the kubeconfig cannot be parsed/,
    );
  });

  it('rejects a kubeconfig without a current cluster server', () => {
    expect(() =>
      loadKubeconfig('apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n', 't'),
    ).toThrow(/no current context with a cluster server/);
  });

  it('rejects a plain-HTTP server without insecure-skip-tls-verify (client-node would refuse it)', () => {
    expect(() => loadKubeconfig(kubeconfig('http://127.0.0.1:1', false), 't')).toThrow(
      /plain-HTTP server http:\/\/127\.0\.0\.1:1 without insecure-skip-tls-verify/,
    );
    expect(loadKubeconfig(kubeconfig('http://127.0.0.1:1', true), 't').getCurrentCluster()?.server).toBe(
      'http://127.0.0.1:1',
    );
  });
});

describe('readKubernetes', () => {
  it('fails with the connection error when the API server is unreachable', async () => {
    const port = await closedPort();
    const kc = loadKubeconfig(kubeconfig(`http://127.0.0.1:${port}`, true), 'a/r/c1');
    const err = await readKubernetes(kc, 'a/r/c1', runner(), { pageSize: 10, timeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CollectError);
    expect((err as CollectError).errorCode).toBe('ECONNREFUSED');
    expect((err as CollectError).message).toMatch(
      /a\/r\/c1: ECONNREFUSED: the Kubernetes API server is unreachable/,
    );
  });
});

describe('toWireJson', () => {
  it('turns Dates into ISO strings and drops unset fields', () => {
    expect(
      toWireJson({
        metadata: { name: 'n', creationTimestamp: new Date('2024-05-01T10:00:00Z'), labels: undefined },
      }),
    ).toEqual({
      metadata: { name: 'n', creationTimestamp: '2024-05-01T10:00:00.000Z' },
    });
  });
});
