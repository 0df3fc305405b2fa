/**
 * Clusters (GET /v1/clusters) and one cluster: its Services with their CLB or NLB and the quota bars of each load
 * balancer (GraphQL `clusters.services`, GET /v1/quotas), headroom (GET /v1/forecasts/headroom: nodes, Cluster- and
 * Local-mode Services, NLB), the trend charts of the quotas it draws on with the p10-p90 band and exhaustion date
 * (GET /v1/forecasts/trends), and its CCM version with the CCM findings (version behaviour and RAM permission gaps).
 */
import { useState } from 'preact/hooks';
import { api, ApiFailure, query } from '../api';
import { TrendChart } from '../chart';
import { ErrorBox, Loading, PageTitle, QuotaBar, Sev, TableWrap } from '../components';
import { allQuotas, exhaustingTrends, quotaKey } from '../forecast';
import { day, num, resourceLabel } from '../format';
import { useLoad } from '../hooks';
import { CLUSTERS_QUERY } from '../queries';
import type { Cluster, Finding, Headroom, HeadroomFigure, Page, Quota, Trend } from '../types';
import { Linked } from './findings';

export function Clusters() {
  const { data, error, loading } = useLoad(
    (signal) => api<Page<Cluster>>('/v1/clusters?limit=1000', { signal }),
    [],
  );
  return (
    <section>
      <PageTitle>Clusters</PageTitle>
      <ErrorBox error={error} />
      {loading && <Loading what="clusters" />}
      {data && (
        <TableWrap label="Clusters">
          <thead>
            <tr>
              <th scope="col">Cluster</th>
              <th scope="col">Account / region</th>
              <th scope="col">Kubernetes</th>
              <th scope="col">CCM</th>
              <th scope="col">Network</th>
              <th scope="col" class="num">
                Nodes
              </th>
              <th scope="col" class="num">
                Services
              </th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((c) => (
              <tr key={c.clusterId} data-account={c.accountId}>
                <td>
                  <a href={`/clusters/${c.clusterId}`}>{c.name}</a>
                  {c.team && <div class="muted small">team {c.team}</div>}
                </td>
                <td>
                  {c.accountId}
                  <div class="muted small">{c.regionId}</div>
                </td>
                <td>{c.currentVersion ?? '–'}</td>
                <td>{c.ccmVersion ?? '–'}</td>
                <td>{c.networkPlugin}</td>
                <td class="num">{num(c.nodeCount)}</td>
                <td class="num">{num(c.serviceCount)}</td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      )}
    </section>
  );
}

interface GqlService {
  namespace: string;
  name: string;
  mode: string | null;
  externalTrafficPolicy: string | null;
  loadBalancerId: string | null;
  loadBalancerKind: string | null;
  nlbId: string | null;
  ports: { port: number; protocol: string; nodePort: number | null }[];
}
interface GqlCluster extends Cluster {
  services: { totalCount: number; nodes: GqlService[] };
}

/** A GraphQL call; GraphQL errors are thrown as ApiFailure with the first error's message. */
async function gql<T>(q: string, variables: Record<string, unknown>, signal: AbortSignal): Promise<T> {
  const r = await api<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>(
    '/graphql',
    { method: 'POST', body: { query: q, variables }, signal },
  );
  if (r.errors?.length)
    throw new ApiFailure(
      r.errors[0]!.extensions?.code === 'FORBIDDEN' ? 403 : 400,
      r.errors[0]!.extensions?.code ?? 'GRAPHQL',
      r.errors[0]!.message,
    );
  return r.data as T;
}

interface ClusterData {
  cluster: GqlCluster;
  quotas: Map<string, Quota[]>;
  headroom: Headroom | null;
  trends: Trend[];
  ccm: Finding[];
}

async function loadCluster(id: string, signal: AbortSignal): Promise<ClusterData> {
  const listed = (await api<Page<Cluster>>('/v1/clusters?limit=1000', { signal })).items.find(
    (c) => c.clusterId === id || c.name === id,
  );
  if (!listed) throw new ApiFailure(404, 'NOT_FOUND', `No cluster ${id} in this token's scope`);
  let cluster: GqlCluster | undefined;
  let after: string | null = null;
  for (let i = 0; i < 200 && !cluster; i++) {
    const d: {
      clusters: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: GqlCluster[] };
    } = await gql(CLUSTERS_QUERY, { accountId: listed.accountId, regionId: listed.regionId, after }, signal);
    cluster = d.clusters.nodes.find((c) => c.clusterId === listed.clusterId);
    if (!d.clusters.pageInfo.hasNextPage) break;
    after = d.clusters.pageInfo.endCursor;
  }
  if (!cluster) throw new ApiFailure(404, 'NOT_FOUND', `No cluster ${id} in this token's scope`);
  const c = cluster;
  const [quotaList, headroom, exhausting, own, findings] = await Promise.all([
    allQuotas(signal),
    api<{ headroom: Headroom[] }>(`/v1/forecasts/headroom${query({ clusterId: c.clusterId })}`, {
      signal,
    }).then(
      (h) => h.headroom[0] ?? null,
      () => null,
    ),
    exhaustingTrends({}, signal),
    api<{ trends: Trend[] }>(`/v1/forecasts/trends${query({ clusterId: c.clusterId })}`, { signal }).then(
      (t) => t.trends,
    ),
    api<Page<Finding>>(`/v1/findings${query({ clusterId: c.clusterId, limit: 1000 })}`, { signal }),
  ]);
  const lbIds = new Set(
    c.services.nodes.flatMap((s) => [s.loadBalancerId, s.nlbId]).filter((x): x is string => !!x),
  );
  const quotas = new Map<string, Quota[]>();
  for (const q of quotaList) {
    if (!lbIds.has(q.resource.id)) continue;
    quotas.set(q.resource.id, [...(quotas.get(q.resource.id) ?? []), q]);
  }
  // The quotas this cluster draws on: its load balancers', its own, and its account's quotas in its region.
  const mine = (t: Trend) =>
    lbIds.has(t.resource.id) ||
    t.resource.clusterId === c.clusterId ||
    (t.resource.kind === 'Region' &&
      t.resource.accountId === c.accountId &&
      t.resource.regionId === c.regionId);
  const seen = new Set<string>();
  const trends = [
    ...exhausting.filter(mine),
    ...own.sort((a, b) => b.used / b.limit - a.used / a.limit),
  ].filter((t) => !seen.has(quotaKey(t)) && seen.add(quotaKey(t)));
  return {
    cluster: c,
    quotas,
    headroom,
    trends,
    ccm: findings.items.filter((f) => f.checkId.startsWith('CCM_')),
  };
}

function Room({ label, h }: { label: string; h: HeadroomFigure | null }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td class="num">{h?.headroom === null || h === null ? '–' : num(h.headroom)}</td>
      <td>
        {h?.limitedBy
          ? `${h.limitedBy.checkId} on ${resourceLabel(h.limitedBy.resource)}`
          : h
            ? 'no quota in the way'
            : 'not planned'}
      </td>
    </tr>
  );
}

export function ClusterPage({ id }: { id: string }) {
  const { data, error, loading } = useLoad((signal) => loadCluster(id, signal), [id]);
  const [shown, setShown] = useState(0);
  const c = data?.cluster;
  return (
    <section>
      <PageTitle>Cluster {c?.name ?? id}</PageTitle>
      <ErrorBox error={error} />
      {loading && <Loading what="the cluster" />}
      {data && c && (
        <>
          <dl class="facts">
            <dt>Id</dt>
            <dd>{c.clusterId}</dd>
            <dt>Account / region</dt>
            <dd>
              {c.accountId} / {c.regionId}
            </dd>
            <dt>Kubernetes</dt>
            <dd>{c.currentVersion ?? '–'}</dd>
            <dt>CCM</dt>
            <dd id="ccm-version">{c.ccmVersion ?? 'unknown'}</dd>
            <dt>Network</dt>
            <dd>{c.networkPlugin}</dd>
            <dt>Nodes</dt>
            <dd>{num(c.nodeCount)}</dd>
          </dl>

          <h2>Headroom</h2>
          {data.headroom ? (
            <TableWrap label="Headroom">
              <thead>
                <tr>
                  <th scope="col">How many more</th>
                  <th scope="col" class="num">
                    Room
                  </th>
                  <th scope="col">Limited by</th>
                </tr>
              </thead>
              <tbody>
                <Room label="Nodes" h={data.headroom.nodes} />
                <Room label="Cluster-mode Services (CLB)" h={data.headroom.clusterModeServices} />
                <Room label="Local-mode Services (CLB)" h={data.headroom.localServices} />
                <Room label="Cluster-mode Services (NLB)" h={data.headroom.nlbClusterModeServices} />
                <Room label="Local-mode Services (NLB)" h={data.headroom.nlbLocalServices} />
              </tbody>
            </TableWrap>
          ) : (
            <p class="muted">No headroom answer for this cluster.</p>
          )}
          {data.headroom?.nlbNotPlanned && <p class="muted">NLB: {data.headroom.nlbNotPlanned.message}</p>}

          <h2>Trends</h2>
          {data.trends.length === 0 ? (
            <p class="muted">No quota history for this cluster yet.</p>
          ) : (
            <>
              <label for="trend-select">Quota</label>{' '}
              <select
                id="trend-select"
                value={String(shown)}
                onChange={(e) => setShown(Number(e.currentTarget.value))}
              >
                {data.trends.map((t, i) => (
                  <option key={quotaKey(t)} value={String(i)}>
                    {t.checkId} · {resourceLabel(t.resource)} ·{' '}
                    {t.status === 'ok' ? `exhausts ${day(t.exhaustsAt.p50)}` : t.status.replace('_', ' ')}
                  </option>
                ))}
              </select>
              <TrendChart
                trend={data.trends[Math.min(shown, data.trends.length - 1)]!}
                title={`${data.trends[Math.min(shown, data.trends.length - 1)]!.checkId} on ${resourceLabel(data.trends[Math.min(shown, data.trends.length - 1)]!.resource)}`}
              />
            </>
          )}

          <h2>Services ({num(c.services.totalCount)})</h2>
          {c.services.totalCount > c.services.nodes.length && (
            <p class="muted">
              The first {c.services.nodes.length} of {num(c.services.totalCount)} Services.
            </p>
          )}
          <TableWrap label="Services">
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col">Mode</th>
                <th scope="col">Ports</th>
                <th scope="col">Load balancer</th>
                <th scope="col">Quotas</th>
              </tr>
            </thead>
            <tbody>
              {c.services.nodes.map((s) => {
                const lb = s.loadBalancerId ?? s.nlbId;
                return (
                  <tr key={`${s.namespace}/${s.name}`}>
                    <td>
                      {s.namespace}/{s.name}
                    </td>
                    <td>{s.externalTrafficPolicy ?? '–'}</td>
                    <td>{s.ports.map((p) => p.port).join(', ')}</td>
                    <td>
                      {lb ? (
                        s.loadBalancerId ? (
                          <a href={`/load-balancers/${lb}`}>CLB {lb}</a>
                        ) : (
                          <a href={`/nlbs/${lb}`}>NLB {lb}</a>
                        )
                      ) : (
                        <span class="muted">none</span>
                      )}
                    </td>
                    <td>
                      {(lb ? (data.quotas.get(lb) ?? []) : []).map((q) => (
                        <div key={q.checkId} class="small">
                          {q.checkId} <QuotaBar used={q.used} limit={q.limit} />
                        </div>
                      ))}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </TableWrap>

          <h2>CCM version and RAM gaps</h2>
          {data.ccm.length === 0 ? (
            <p>No CCM finding on this cluster.</p>
          ) : (
            <ul class="findings" id="ccm-findings">
              {data.ccm.map((f) => (
                <li key={f.fingerprint} class="finding">
                  <Sev s={f.severity} /> <strong>{f.checkId}</strong>
                  <p>{f.message}</p>
                  <p class="remediation">
                    <strong>Fix:</strong> <Linked text={f.remediation} />
                  </p>
                </li>
              ))}
            </ul>
          )}
          <p>
            <a href={`/findings?cluster=${encodeURIComponent(c.name)}`}>Every finding of {c.name}</a>
          </p>
        </>
      )}
    </section>
  );
}
