/**
 * One CLB (GET /v1/load-balancers/:id): listeners, vServer groups with their backends (ECS instances) and the quotas
 * each backend counts against (GET /v1/quotas), the Services using it, and what CCM would set beside what is there
 * (the LB_CONFIG_DRIFT findings of this load balancer).
 */
import { api, query } from '../api';
import { ErrorBox, LbQuotaList, LbServiceList, Loading, PageTitle, QuotaBar, TableWrap } from '../components';
import { allQuotas } from '../forecast';
import { useLoad } from '../hooks';
import type { Finding, LoadBalancer, Page, Quota } from '../types';

interface Detail {
  scanId: string;
  loadBalancer: LoadBalancer;
  services: { clusterId: string; namespace: string; name: string; externalTrafficPolicy: string | null }[];
  serverGroups: {
    vServerGroupId: string;
    name: string | null;
    isDefault: boolean;
    backends: { serverId: string; serverIp: string | null; port: number; weight: number; type: string }[];
  }[];
  quotas: Quota[];
}

export function LoadBalancerPage({ id }: { id: string }) {
  const { data, error, loading } = useLoad(
    async (signal) => {
      const [detail, quotas, drift] = await Promise.all([
        api<Detail>(`/v1/load-balancers/${encodeURIComponent(id)}`, { signal }),
        allQuotas(signal),
        api<Page<Finding>>(`/v1/findings${query({ checkId: 'LB_CONFIG_DRIFT', limit: 1000 })}`, { signal }),
      ]);
      const byResource = new Map<string, Quota[]>();
      for (const q of quotas) byResource.set(q.resource.id, [...(byResource.get(q.resource.id) ?? []), q]);
      return { detail, byResource, drift: drift.items.filter((f) => f.resource.id === id) };
    },
    [id],
  );
  const lb = data?.detail.loadBalancer;
  return (
    <section>
      <PageTitle>Load balancer {id}</PageTitle>
      <ErrorBox error={error} />
      {loading && <Loading what="the load balancer" />}
      {data && lb && (
        <>
          <p>
            {lb.name ?? '–'} · {lb.addressType ?? '–'} {lb.address ?? ''} · {lb.spec ?? '–'} · owner{' '}
            {lb.owner ?? '–'} · account {lb.accountId} / {lb.regionId}
          </p>
          <h2>Quotas</h2>
          <LbQuotaList quotas={data.detail.quotas} />
          <h2>Services</h2>
          <LbServiceList services={data.detail.services} />
          <h2>Listeners</h2>
          <TableWrap label="Listeners">
            <thead>
              <tr>
                <th scope="col">Port</th>
                <th scope="col">Protocol</th>
                <th scope="col">vServer group</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {lb.listeners.map((l) => (
                <tr key={`${l.protocol}/${l.port}`}>
                  <td>{l.port}</td>
                  <td>{l.protocol}</td>
                  <td>{l.vServerGroupId ?? '–'}</td>
                  <td>{l.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
          <h2>vServer groups and backends</h2>
          {data.detail.serverGroups.map((g) => (
            <div key={g.vServerGroupId}>
              <h3>
                {g.vServerGroupId} {g.name && <span class="muted small">{g.name}</span>}
              </h3>
              <TableWrap label={`Backends of ${g.vServerGroupId}`}>
                <thead>
                  <tr>
                    <th scope="col">ECS instance</th>
                    <th scope="col">Port</th>
                    <th scope="col">Weight</th>
                    <th scope="col">Quotas it counts against</th>
                  </tr>
                </thead>
                <tbody>
                  {g.backends.map((b) => (
                    <tr key={`${b.serverId}:${b.port}`}>
                      <td>
                        {b.serverId} <span class="muted small">{b.serverIp ?? ''}</span>
                      </td>
                      <td>{b.port}</td>
                      <td>{b.weight}</td>
                      <td>
                        {(data.byResource.get(b.serverId) ?? []).map((q) => (
                          <div key={q.checkId} class="small">
                            {q.checkId} <QuotaBar used={q.used} limit={q.limit} />
                          </div>
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </TableWrap>
            </div>
          ))}
          <h2>What CCM would set</h2>
          {data.drift.length === 0 ? (
            <p>No configuration drift found on this load balancer.</p>
          ) : (
            <ul>
              {data.drift.map((f) => (
                <li key={f.fingerprint}>{f.message}</li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
