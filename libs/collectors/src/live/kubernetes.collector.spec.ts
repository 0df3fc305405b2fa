import { createServer as createHttpServer } from 'node:http';
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

/**
 * A fake API server: every list has 3 items in pages of `limit`; the `continue` token of the
 * first `expireFirst` continued node-list requests answers 410 Expired.
 */
async function fakeApiServer(
  expireFirst: number,
): Promise<{ url: string; nodeLists: string[]; close: () => Promise<void> }> {
  const nodeLists: string[] = [];
  let expired = 0;
  const srv = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const cont = url.searchParams.get('continue');
    const limit = Number(url.searchParams.get('limit') ?? '500');
    const kind = url.pathname.split('/').pop() ?? '';
    if (kind === 'nodes') nodeLists.push(cont ?? 'first');
    res.setHeader('content-type', 'application/json');
    if (kind === 'nodes' && cont && expired < expireFirst) {
      expired++;
      res.writeHead(410);
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Expired',
          message: 'The provided continue parameter is too old',
          code: 410,
        }),
      );
      return;
    }
    const start = cont ? Number(cont) : 0;
    const names = ['a', 'b', 'c'].slice(start, start + limit);
    const next = start + limit < 3 ? String(start + limit) : undefined;
    const item = (n: string) =>
      kind === 'nodes'
        ? { metadata: { name: n }, spec: {} }
        : kind === 'events'
          ? { metadata: { name: n, namespace: 'd' }, involvedObject: { kind: 'Pod', name: n } }
          : kind === 'endpointslices'
            ? { metadata: { name: n, namespace: 'd' }, addressType: 'IPv4', endpoints: [] }
            : { metadata: { name: n, namespace: 'd' }, spec: {} };
    res.end(
      JSON.stringify({
        kind: 'List',
        apiVersion: 'v1',
        metadata: next ? { continue: next } : {},
        items: names.map(item),
      }),
    );
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as { port: number }).port}`,
    nodeLists,
    close: () =>
      new Promise<void>((r) => {
        srv.close(() => r());
        srv.closeAllConnections();
      }),
  };
}

/** readKubernetes of cluster a/r/c1 at the fake API server `url`, two items a page, restarting at most `maxRestarts` times. */
function readPagesOf(url: string, maxRestarts: number) {
  return readKubernetes(loadKubeconfig(kubeconfig(url, true), 'a/r/c1'), 'a/r/c1', runner(), { pageSize: 2, timeoutMs: 2000, maxRestarts });
}

describe('readKubernetes with an expired continue token (410)', () => {
  it('reads the list again from its first page', async () => {
    const api = await fakeApiServer(1);
    try {
      const k = await readPagesOf(api.url, 3);
      expect(k.nodes.map((n) => n.metadata?.name)).toEqual(['a', 'b', 'c']);
      expect(api.nodeLists).toEqual(['first', '2', 'first', '2']);
    } finally {
      await api.close();
    }
  });

  it('fails with Expired after maxRestarts restarts', async () => {
    const api = await fakeApiServer(100);
    try {
      const err = await readPagesOf(api.url, 2).catch((e: unknown) => e);
      expect(err).toMatchObject({ errorCode: 'Expired' });
      expect(api.nodeLists.filter((c) => c === 'first')).toHaveLength(3);
    } finally {
      await api.close();
    }
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
