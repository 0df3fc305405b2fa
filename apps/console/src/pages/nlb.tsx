/**
 * One NLB (GET /v1/nlbs/:id): listeners, server groups with their servers (ECS instances or ENIs) and the quotas each
 * ECS instance counts against (GET /v1/quotas), the Services using it and its own quotas.
 */
import { api } from '../api';
import { ErrorBox, LbQuotaList, LbServiceList, Loading, PageTitle, QuotaBar, TableWrap } from '../components';
import { allQuotas } from '../forecast';
import { useLoad } from '../hooks';
import type { Quota } from '../types';

interface NlbDetail {
  scanId: string;
  nlb: {
    nlbId: string;
    accountId: string;
    regionId: string;
    name: string | null;
    addressType: string | null;
    dnsName: string | null;
    zoneIds: string[];
    status: string | null;
    owner: string | null;
    listeners: {
      listenerId: string;
      protocol: string;
      port: number | null;
      startPort: number | null;
      endPort: number | null;
      serverGroupId: string | null;
      description: string | null;
    }[];
    serverGroups: {
      serverGroupId: string;
      name: string | null;
      protocol: string | null;
      servers: {
        serverId: string;
        serverIp: string | null;
        type: string;
        port: number | null;
        weight: number | null;
        zoneId: string | null;
      }[];
    }[];
  };
  services: { clusterId: string; namespace: string; name: string; externalTrafficPolicy: string | null }[];
  quotas: Quota[];
}

export function NlbPage({ id }: { id: string }) {
  const { data, error, loading } = useLoad(
    async (signal) => {
      const [detail, quotas] = await Promise.all([
        api<NlbDetail>(`/v1/nlbs/${encodeURIComponent(id)}`, { signal }),
        allQuotas(signal),
      ]);
      const byResource = new Map<string, Quota[]>();
      for (const q of quotas) byResource.set(q.resource.id, [...(byResource.get(q.resource.id) ?? []), q]);
      return { detail, byResource };
    },
    [id],
  );
  const nlb = data?.detail.nlb;
  return (
    <section>
      <PageTitle>NLB {id}</PageTitle>
      <ErrorBox error={error} />
      {loading && <Loading what="the NLB" />}
      {data && nlb && (
        <>
          <p>
            {nlb.name ?? '–'} · {nlb.addressType ?? '–'} {nlb.dnsName ?? ''} · zones{' '}
            {nlb.zoneIds.join(', ') || '–'} · owner {nlb.owner ?? '–'} · account {nlb.accountId} /{' '}
            {nlb.regionId}
          </p>
          <h2>Quotas</h2>
          <LbQuotaList quotas={data.detail.quotas} empty="No quota sample of this NLB." />
          <h2>Services</h2>
          <LbServiceList services={data.detail.services} />
          <h2>Listeners</h2>
          <TableWrap label="Listeners">
            <thead>
              <tr>
                <th scope="col">Port</th>
                <th scope="col">Protocol</th>
                <th scope="col">Server group</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {nlb.listeners.map((l) => (
                <tr key={l.listenerId}>
                  <td>{l.port ?? `${l.startPort}-${l.endPort}`}</td>
                  <td>{l.protocol}</td>
                  <td>{l.serverGroupId ?? '–'}</td>
                  <td>{l.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
          <h2>Server groups and servers</h2>
          {nlb.serverGroups.map((g) => (
            <div key={g.serverGroupId}>
              <h3>
                {g.serverGroupId} {g.name && <span class="muted small">{g.name}</span>}
              </h3>
              <TableWrap label={`Servers of ${g.serverGroupId}`}>
                <thead>
                  <tr>
                    <th scope="col">Server</th>
                    <th scope="col">Type</th>
                    <th scope="col">Port</th>
                    <th scope="col">Quotas it counts against</th>
                  </tr>
                </thead>
                <tbody>
                  {g.servers.map((s) => (
                    <tr key={`${s.serverId}:${s.port}`}>
                      <td>
                        {s.serverId} <span class="muted small">{s.serverIp ?? ''}</span>
                      </td>
                      <td>{s.type}</td>
                      <td>{s.port ?? '–'}</td>
                      <td>
                        {(data.byResource.get(s.serverId) ?? []).map((q) => (
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
        </>
      )}
    </section>
  );
}
