/** Scans (GET /v1/scans, cursor paging), one scan with its coverage, and the diff of two (GET /v1/scans/:id/diff). */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, query } from '../api';
import { ErrorBox, Loading, PageTitle, Sev, TableWrap } from '../components';
import { age, num, resourceLabel, when } from '../format';
import { useLoad } from '../hooks';
import type { Page, Scan, ScanDiffPage } from '../types';

export function Scans() {
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const { data, error, loading } = useLoad(
    (signal) => api<Page<Scan>>(`/v1/scans${query({ limit: 50, after })}`, { signal }),
    [after],
  );
  return (
    <section>
      <PageTitle>Scans</PageTitle>
      <ErrorBox error={error} />
      {loading && <Loading what="scans" />}
      {data && (
        <>
          <TableWrap label="Scans">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col">Fleet</th>
                <th scope="col" class="num">
                  Findings
                </th>
                <th scope="col">Critical / warning / info</th>
                <th scope="col">Coverage (ok / not read / failed)</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={`/scans/${s.id}`}>{when(s.startedAt)}</a>{' '}
                    <span class="muted small">{age(s.startedAt)}</span>
                  </td>
                  <td>{s.status}</td>
                  <td>
                    {s.fleetName ?? '–'} <span class="muted small">{s.source}</span>
                  </td>
                  <td class="num">{num(s.summary?.findings)}</td>
                  <td>
                    {s.summary?.bySeverity
                      ? `${s.summary.bySeverity.critical ?? 0} / ${s.summary.bySeverity.warning ?? 0} / ${s.summary.bySeverity.info ?? 0}`
                      : '–'}
                  </td>
                  {/* A scoped token's summary carries no fleet-wide coverage counts. */}
                  <td>
                    {s.summary?.coverage
                      ? `${s.summary.coverage.ok} / ${s.summary.coverage.absent} / ${s.summary.coverage.failed}`
                      : '–'}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
          <nav class="pager" aria-label="Pages of scans">
            <button
              type="button"
              class="secondary"
              disabled={!cursors.length}
              onClick={() => setCursors(cursors.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              class="secondary"
              disabled={!data.nextCursor}
              onClick={() => data.nextCursor && setCursors([...cursors, data.nextCursor])}
            >
              Next page
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

export function ScanPage({ id }: { id: string }) {
  const loc = useLocation();
  const against = loc.query.against;
  const scan = useLoad((signal) => api<Scan>(`/v1/scans/${encodeURIComponent(id)}`, { signal }), [id]);
  const others = useLoad((signal) => api<Page<Scan>>('/v1/scans?limit=100', { signal }), []);
  const diff = useLoad(
    (signal) =>
      api<ScanDiffPage>(`/v1/scans/${encodeURIComponent(id)}/diff${query({ against, limit: 200 })}`, {
        signal,
      }),
    [id, against],
  );
  const s = scan.data;
  const gaps = (s?.coverage ?? []).filter((c) => c.status !== 'ok');
  return (
    <section>
      <PageTitle>Scan {s ? when(s.startedAt) : id}</PageTitle>
      <ErrorBox error={scan.error} />
      {scan.loading && <Loading what="the scan" />}
      {s && (
        <>
          <p>
            {s.status} · {s.fleetName ?? '–'} · {s.source} · {num(s.summary?.findings)} findings{' '}
            {s.error && <span class="bad">{s.error}</span>}
          </p>
          <h2>Coverage gaps</h2>
          {gaps.length === 0 ? (
            <p>Every dataset was read.</p>
          ) : (
            <ul class="gaps">
              {gaps.map((g, i) => (
                <li key={i}>
                  <strong>{g.api}</strong>{' '}
                  <span class={`tag tag-${g.status}`}>{g.status === 'absent' ? 'not read' : g.status}</span>{' '}
                  {[g.accountId, g.regionId, g.clusterId].filter(Boolean).join(' / ')}
                  {g.message && <div class="muted small">{g.message}</div>}
                </li>
              ))}
            </ul>
          )}
          <h2>Diff</h2>
          <label for="against">Compare with</label>{' '}
          <select
            id="against"
            value={against ?? ''}
            onChange={(e) => loc.route(`/scans/${id}${query({ against: e.currentTarget.value })}`, true)}
          >
            <option value="">the previous scan of this fleet</option>
            {others.data?.items
              .filter((o) => o.id !== id && o.status === 'succeeded')
              .map((o) => (
                <option key={o.id} value={o.id}>
                  {when(o.startedAt)}
                </option>
              ))}
          </select>
          {diff.error && <p class="muted">{diff.error.message}</p>}
          {diff.data && (
            <>
              <p>
                {num(diff.data.counts?.new ?? 0)} new · {num(diff.data.counts?.resolved ?? 0)} resolved ·{' '}
                {num(diff.data.counts?.persisting ?? 0)} persisting ·{' '}
                {num(diff.data.counts?.severityChanged ?? 0)} changed severity
              </p>
              <ul class="findings">
                {diff.data.items
                  .filter((d) => d.change !== 'persisting')
                  .map((d, i) => (
                    <li key={i}>
                      <span class={`tag tag-${d.change}`}>{d.change}</span>{' '}
                      {d.severity && <Sev s={d.severity} />} {d.checkId} · {resourceLabel(d.resource)}{' '}
                      {d.message && <div class="muted small">{d.message}</div>}
                    </li>
                  ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
