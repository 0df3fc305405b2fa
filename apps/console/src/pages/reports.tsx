/**
 * Weekly reports (GET /v1/reports): list, open (the self-contained HTML in a new tab, from a blob of this page: the
 * token never goes into a URL) and download in each format (json, html, md, csv); build one now (operator).
 */
import { useState } from 'preact/hooks';
import { api, apiFetch, ApiFailure } from '../api';
import { useCan } from '../app-context';
import { ErrorBox, Loading, PageTitle, TableWrap } from '../components';
import { day, download, when } from '../format';
import { useLoad } from '../hooks';
import type { Page, Report } from '../types';

const FORMATS = {
  html: 'text/html',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
} as const;

export function Reports() {
  const canBuild = useCan('operator');
  const { data, error, loading, reload } = useLoad(
    (signal) => api<Page<Report>>('/v1/reports?limit=100', { signal }),
    [],
  );
  const [problem, setProblem] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);
  const fetchReport = async (r: Report, format: keyof typeof FORMATS) => {
    setProblem(undefined);
    try {
      const res = await apiFetch(`/v1/reports/${r.id}?format=${format}`);
      return new Blob([await res.arrayBuffer()], { type: FORMATS[format] });
    } catch (e) {
      setProblem(e instanceof ApiFailure ? e : new ApiFailure(0, 'CLIENT', String(e)));
      return undefined;
    }
  };
  return (
    <section>
      <PageTitle>Reports</PageTitle>
      <ErrorBox error={error ?? problem} />
      {canBuild && (
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await api('/v1/reports', { method: 'POST', body: {} });
              reload();
            } catch (e) {
              setProblem(e instanceof ApiFailure ? e : new ApiFailure(0, 'CLIENT', String(e)));
            } finally {
              setBusy(false);
            }
          }}
        >
          Build a report now
        </button>
      )}
      {loading && <Loading what="reports" />}
      {data && data.items.length === 0 && <p>No report yet.</p>}
      {data && data.items.length > 0 && (
        <TableWrap label="Reports">
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col">Built</th>
              <th scope="col">Status</th>
              <th scope="col">Open / download</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((r) => (
              <tr key={r.id}>
                <td>
                  {day(r.periodStart as string)} – {day(r.periodEnd as string)}
                </td>
                <td>{when(r.createdAt)}</td>
                <td>{r.status}</td>
                <td>
                  {r.status === 'ready' ? (
                    <>
                      <button
                        type="button"
                        class="link"
                        onClick={async () => {
                          const b = await fetchReport(r, 'html');
                          if (b) window.open(URL.createObjectURL(b), '_blank', 'noopener');
                        }}
                      >
                        Open
                      </button>
                      {(Object.keys(FORMATS) as (keyof typeof FORMATS)[]).map((f) => (
                        <button
                          key={f}
                          type="button"
                          class="link"
                          aria-label={`Download ${f}`}
                          onClick={async () => {
                            const b = await fetchReport(r, f);
                            if (b) download(`report-${day(r.periodEnd as string)}.${f}`, b);
                          }}
                        >
                          {f}
                        </button>
                      ))}
                    </>
                  ) : (
                    (r.error ?? '–')
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      )}
    </section>
  );
}
