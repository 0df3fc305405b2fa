/** Waivers (GET /v1/waivers), expiring soon first; revoke one (operator: its own; admin: any in scope). */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api';
import { useCan } from '../app-context';
import { ErrorBox, Loading, PageTitle, TableWrap } from '../components';
import { day, daysUntil } from '../format';
import { useLoad } from '../hooks';
import type { Page, Waiver } from '../types';

export function Waivers() {
  const canRevoke = useCan('operator');
  const { data, error, loading, reload } = useLoad(async (signal) => {
    const all: Waiver[] = [];
    let after: string | null = null;
    for (let i = 0; i < 20; i++) {
      const page: Page<Waiver> = await api<Page<Waiver>>(
        `/v1/waivers?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        { signal },
      );
      all.push(...page.items);
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
    return all.sort((a, b) => a.expiresAt.localeCompare(b.expiresAt));
  }, []);
  const [problem, setProblem] = useState<ApiFailure | undefined>();
  return (
    <section>
      <PageTitle>Waivers</PageTitle>
      <ErrorBox error={error ?? problem} />
      {loading && <Loading what="waivers" />}
      {data && data.length === 0 && <p>No waiver.</p>}
      {data && data.length > 0 && (
        <TableWrap label="Waivers, expiring soon first">
          <thead>
            <tr>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">Check</th>
              <th scope="col">Resource</th>
              <th scope="col">Owner</th>
              <th scope="col">Reason</th>
              {canRevoke && <th scope="col">Action</th>}
            </tr>
          </thead>
          <tbody>
            {data.map((w) => {
              const d = daysUntil(w.expiresAt);
              return (
                <tr key={w.id} data-account={w.accountId}>
                  <td>
                    {day(w.expiresAt)} <span class="muted small">{d < 0 ? 'expired' : `in ${d} d`}</span>
                  </td>
                  <td>
                    <span class={`tag tag-${w.state}`}>{w.state}</span>
                  </td>
                  <td>{w.checkId}</td>
                  <td>
                    {w.resource}
                    <div class="muted small">
                      {w.accountId}
                      {w.clusterId ? ` / ${w.clusterId}` : ''}
                    </div>
                  </td>
                  <td>{w.owner}</td>
                  <td>
                    {w.reason} <span class="muted small">({w.category})</span>
                  </td>
                  {canRevoke && (
                    <td>
                      <button
                        type="button"
                        class="link"
                        onClick={async () => {
                          setProblem(undefined);
                          try {
                            await api(`/v1/waivers/${w.id}`, { method: 'DELETE' });
                            reload();
                          } catch (e) {
                            setProblem(e instanceof ApiFailure ? e : new ApiFailure(0, 'CLIENT', String(e)));
                          }
                        }}
                      >
                        Revoke
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </TableWrap>
      )}
    </section>
  );
}
