/**
 * Findings of the latest scan through GET /v1/findings: its filters (account, cluster by name, check, severity, team)
 * kept in the page address, cursor paging (nextCursor; back through the cursors already seen), each finding with
 * its message, remediation and documentation link; waive one (operator and up: owner, reason, category, expiry);
 * the current view as CSV. The waived filter applies to the page read (the API lists waived findings with their
 * waiver and has no filter for it).
 */
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiFailure, query } from '../api';
import { useCan } from '../app-context';
import { ErrorBox, Loading, PageTitle, Sev } from '../components';
import { day, download, toCsv } from '../format';
import { useLoad } from '../hooks';
import type { Cluster, Finding, Page } from '../types';

/** Findings per page. */
const PAGE_SIZE = 50;
const SEVERITIES = ['critical', 'warning', 'info'] as const;
const SORTS = { severity: 'most severe first (API order)', check: 'check', resource: 'resource' } as const;

/** Text with its http(s) URLs as links (remediation texts end with their documentation link). */
export function Linked({ text }: { text: string }) {
  const parts = text.split(/(https?:\/\/[^\s)]+)/g);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <a key={i} href={p} rel="noreferrer noopener" target="_blank">
            documentation
          </a>
        ) : (
          p
        ),
      )}
    </>
  );
}

function WaiveForm({ finding, onDone }: { finding: Finding; onDone: (msg: string) => void }) {
  const [owner, setOwner] = useState('');
  const [reason, setReason] = useState('');
  const [category, setCategory] = useState('accepted-risk');
  const [expires, setExpires] = useState(new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10));
  const [error, setError] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);
  const id = finding.fingerprint;
  const fieldError = (f: string) => error?.issues.find((i) => i.path === `body.${f}`)?.message;
  return (
    <form
      class="waive"
      aria-label={`Waive ${finding.checkId} on ${finding.resource.id}`}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const r = finding.resource;
          await api('/v1/waivers', {
            method: 'POST',
            body: {
              checkId: finding.checkId,
              accountId: r.accountId,
              regionId: r.regionId,
              ...(r.clusterId ? { clusterId: r.clusterId } : {}),
              resource: r.id,
              owner,
              reason,
              category,
              expiresAt: expires,
            },
          });
          onDone(`Waived ${finding.checkId} on ${r.id} until ${expires}.`);
        } catch (err) {
          setError(err instanceof ApiFailure ? err : new ApiFailure(0, 'CLIENT', String(err)));
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for={`owner-${id}`}>Owner</label>
      <input
        id={`owner-${id}`}
        required
        value={owner}
        onInput={(e) => setOwner(e.currentTarget.value)}
        aria-invalid={fieldError('owner') ? 'true' : undefined}
      />
      {fieldError('owner') && <span class="field-error">{fieldError('owner')}</span>}
      <label for={`reason-${id}`}>Reason (10 characters or more)</label>
      <textarea
        id={`reason-${id}`}
        required
        minLength={10}
        value={reason}
        onInput={(e) => setReason(e.currentTarget.value)}
        aria-invalid={fieldError('reason') ? 'true' : undefined}
      />
      {fieldError('reason') && <span class="field-error">{fieldError('reason')}</span>}
      <label for={`category-${id}`}>Category</label>
      <select id={`category-${id}`} value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
        <option value="accepted-risk">accepted risk</option>
        <option value="mitigated">mitigated</option>
        <option value="false-positive">false positive</option>
      </select>
      <label for={`expires-${id}`}>Expires</label>
      <input
        id={`expires-${id}`}
        type="date"
        required
        value={expires}
        onInput={(e) => setExpires(e.currentTarget.value)}
        aria-invalid={fieldError('expiresAt') ? 'true' : undefined}
      />
      {fieldError('expiresAt') && <span class="field-error">{fieldError('expiresAt')}</span>}
      {error && !error.issues.length && <ErrorBox error={error} />}
      <button type="submit" disabled={busy}>
        Waive
      </button>
    </form>
  );
}

function FindingItem({
  f,
  canWaive,
  onWaived,
}: {
  f: Finding;
  canWaive: boolean;
  onWaived: (msg: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const r = f.resource;
  return (
    <li class="finding" data-check={f.checkId} data-account={r.accountId}>
      <div class="finding-head">
        <Sev s={f.severity} /> <strong>{f.checkId}</strong>{' '}
        {f.waiver && (
          <span class="tag tag-waived" title={`${f.waiver.owner}: ${f.waiver.reason}`}>
            waived until {day(f.waiver.expiresAt)}
          </span>
        )}
        <span class="muted small">
          {' '}
          {r.kind} {r.namespace ? `${r.namespace}/` : ''}
          {r.name ?? r.id} ·{' '}
          {r.clusterId ? <a href={`/clusters/${r.clusterId}`}>{r.clusterName ?? r.clusterId}</a> : r.regionId}{' '}
          · account {r.accountId}
        </span>
      </div>
      <p>{f.message}</p>
      <p class="remediation">
        <strong>Fix:</strong> <Linked text={f.remediation} />
      </p>
      {canWaive && !f.waiver && (
        <>
          <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
            Waive…
          </button>
          {open && <WaiveForm finding={f} onDone={onWaived} />}
        </>
      )}
    </li>
  );
}

export function Findings() {
  const loc = useLocation();
  const q = loc.query;
  const canWaive = useCan('operator');
  const [cursors, setCursors] = useState<string[]>([]);
  const [notice, setNotice] = useState<string | undefined>();
  const [sort, setSort] = useState<keyof typeof SORTS>('severity');
  const clusters = useLoad((signal) => api<Page<Cluster>>('/v1/clusters?limit=1000', { signal }), []);
  const cluster = clusters.data?.items.find((c) => c.name === q.cluster || c.clusterId === q.cluster);
  const after = cursors.at(-1);
  const unknownCluster = q.cluster && clusters.data && !cluster;
  const page = useLoad(
    (signal) =>
      unknownCluster
        ? Promise.resolve(null)
        : api<Page<Finding>>(
            `/v1/findings${query({ accountId: q.accountId, clusterId: cluster?.clusterId, checkId: q.checkId, severity: q.severity, team: q.team, limit: PAGE_SIZE, after })}`,
            { signal },
          ),
    [
      q.accountId,
      cluster?.clusterId,
      q.checkId,
      q.severity,
      q.team,
      after,
      unknownCluster,
      q.cluster && !clusters.data,
    ],
  );
  const items = useMemo(() => {
    let list = page.data?.items ?? [];
    if (q.waived === 'yes') list = list.filter((f) => f.waiver);
    if (q.waived === 'no') list = list.filter((f) => !f.waiver);
    if (sort === 'check') list = [...list].sort((a, b) => a.checkId.localeCompare(b.checkId));
    if (sort === 'resource') list = [...list].sort((a, b) => a.resource.id.localeCompare(b.resource.id));
    return list;
  }, [page.data, q.waived, sort]);

  const setFilter = (name: string, value: string) => {
    const next = { ...q, [name]: value };
    setCursors([]);
    loc.route(`/findings${query(next)}`, true);
  };
  const accounts = [...new Set(clusters.data?.items.map((c) => c.accountId) ?? [])].sort();
  const csv = () =>
    download(
      'findings.csv',
      new Blob(
        [
          toCsv(
            [
              'severity',
              'checkId',
              'accountId',
              'regionId',
              'clusterId',
              'clusterName',
              'resourceKind',
              'resourceId',
              'namespace',
              'name',
              'message',
              'remediation',
              'waivedUntil',
            ],
            items.map((f) => [
              f.severity,
              f.checkId,
              f.resource.accountId,
              f.resource.regionId,
              f.resource.clusterId,
              f.resource.clusterName,
              f.resource.kind,
              f.resource.id,
              f.resource.namespace,
              f.resource.name,
              f.message,
              f.remediation,
              f.waiver?.expiresAt,
            ]),
          ),
        ],
        { type: 'text/csv' },
      ),
    );

  return (
    <section>
      <PageTitle>Findings</PageTitle>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Account
          <select
            name="accountId"
            value={q.accountId ?? ''}
            onChange={(e) => setFilter('accountId', e.currentTarget.value)}
          >
            <option value="">any</option>
            {accounts.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Cluster
          <select
            name="cluster"
            value={cluster?.name ?? q.cluster ?? ''}
            onChange={(e) => setFilter('cluster', e.currentTarget.value)}
          >
            <option value="">any</option>
            {clusters.data?.items.map((c) => (
              <option key={c.clusterId} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Check
          <input
            name="checkId"
            value={q.checkId ?? ''}
            placeholder="CLB_BACKEND_QUOTA"
            onChange={(e) => setFilter('checkId', e.currentTarget.value.trim().toUpperCase())}
          />
        </label>
        <label>
          Severity
          <select
            name="severity"
            value={q.severity ?? ''}
            onChange={(e) => setFilter('severity', e.currentTarget.value)}
          >
            <option value="">any</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Waived
          <select
            name="waived"
            value={q.waived ?? ''}
            onChange={(e) => setFilter('waived', e.currentTarget.value)}
          >
            <option value="">any</option>
            <option value="no">not waived</option>
            <option value="yes">waived</option>
          </select>
        </label>
        <label>
          Sort
          <select
            name="sort"
            value={sort}
            onChange={(e) => setSort(e.currentTarget.value as keyof typeof SORTS)}
          >
            {Object.entries(SORTS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" onClick={csv} disabled={!items.length}>
          Download CSV
        </button>
      </form>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {unknownCluster && <p class="error">No cluster named “{q.cluster}” in this token's scope.</p>}
      <ErrorBox error={page.error} />
      {page.loading && <Loading what="findings" />}
      {page.data && (
        <>
          <p class="muted" id="findings-count" aria-live="polite">
            {page.data.total ?? '?'} findings match; showing {items.length} on this page.
          </p>
          <ul class="findings">
            {items.map((f) => (
              <FindingItem
                key={f.fingerprint}
                f={f}
                canWaive={canWaive}
                onWaived={(msg) => {
                  setNotice(msg);
                  page.reload();
                }}
              />
            ))}
          </ul>
          <nav class="pager" aria-label="Pages of findings">
            <button
              type="button"
              class="secondary"
              disabled={cursors.length === 0}
              onClick={() => setCursors(cursors.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              class="secondary"
              disabled={!page.data.nextCursor}
              onClick={() => page.data?.nextCursor && setCursors([...cursors, page.data.nextCursor])}
            >
              Next page
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
