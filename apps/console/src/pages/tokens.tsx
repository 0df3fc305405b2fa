/** Tokens (admin, GET/POST/DELETE /v1/tokens): list, create (the secret shown once), revoke. */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api';
import { useCan } from '../app-context';
import { ErrorBox, Loading, PageTitle, TableWrap } from '../components';
import { day, when } from '../format';
import { useLoad } from '../hooks';
import type { Page, Role, Token } from '../types';

export function Tokens() {
  const isAdmin = useCan('admin');
  const { data, error, loading, reload } = useLoad(
    (signal) => (isAdmin ? api<Page<Token>>('/v1/tokens?limit=1000', { signal }) : Promise.resolve(null)),
    [isAdmin],
  );
  const [role, setRole] = useState<Role>('viewer');
  const [name, setName] = useState('');
  const [accounts, setAccounts] = useState('');
  const [days, setDays] = useState('30');
  const [created, setCreated] = useState<string | undefined>();
  const [problem, setProblem] = useState<ApiFailure | undefined>();
  if (!isAdmin) {
    return (
      <section>
        <PageTitle>Tokens</PageTitle>
        <p>Managing tokens needs an admin token.</p>
      </section>
    );
  }
  return (
    <section>
      <PageTitle>Tokens</PageTitle>
      <ErrorBox error={error ?? problem} />
      <form
        class="filters"
        aria-label="Create a token"
        onSubmit={async (e) => {
          e.preventDefault();
          setProblem(undefined);
          try {
            const list = accounts
              .split(',')
              .map((a) => a.trim())
              .filter(Boolean);
            const t = await api<{ token: string }>('/v1/tokens', {
              method: 'POST',
              body: { role, name, expiresInDays: Number(days), ...(list.length ? { accounts: list } : {}) },
            });
            setCreated(t.token);
            reload();
          } catch (err) {
            setProblem(err instanceof ApiFailure ? err : new ApiFailure(0, 'CLIENT', String(err)));
          }
        }}
      >
        <label>
          Name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>
          Accounts (comma separated; empty: every account)
          <input value={accounts} onInput={(e) => setAccounts(e.currentTarget.value)} />
        </label>
        <label>
          Expires in (days)
          <input inputMode="numeric" value={days} onInput={(e) => setDays(e.currentTarget.value)} />
        </label>
        <button type="submit">Create token</button>
      </form>
      {created && (
        <p class="notice" role="status">
          New token (shown once, copy it now): <code>{created}</code>
        </p>
      )}
      {loading && <Loading what="tokens" />}
      {data && (
        <TableWrap label="Tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Accounts</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((t) => (
              <tr key={t.id}>
                <td>
                  {t.name} <span class="muted small">{t.id}</span>
                </td>
                <td>{t.role}</td>
                <td>{t.accounts?.join(', ') ?? 'every account'}</td>
                <td>{day(t.expiresAt)}</td>
                <td>{when(t.lastUsedAt)}</td>
                <td>
                  {t.revokedAt ? (
                    `revoked ${day(t.revokedAt)}`
                  ) : (
                    <button
                      type="button"
                      class="link"
                      onClick={async () => {
                        try {
                          await api(`/v1/tokens/${t.id}`, { method: 'DELETE' });
                          reload();
                        } catch (err) {
                          setProblem(
                            err instanceof ApiFailure ? err : new ApiFailure(0, 'CLIENT', String(err)),
                          );
                        }
                      }}
                    >
                      Revoke
                    </button>
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
