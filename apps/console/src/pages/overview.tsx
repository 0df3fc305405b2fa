/**
 * Overview: the quotas nearest their limit first (used/limit bars, exhaustion date with its p10-p90 band), findings
 * by severity and by check, the coverage gaps of the latest scan named (a dataset not read is shown as not read,
 * never as healthy), the last scan and its age, and what changed since the scan of a week before.
 */
import { api, ApiFailure, query } from '../api';
import { ErrorBox, Loading, PageTitle, QuotaBar, Sev, TableWrap } from '../components';
import { allQuotas, exhaustingTrends, quotaKey } from '../forecast';
import { age, day, num, resourceLabel, when } from '../format';
import { useLoad } from '../hooks';
import type { Page, Quota, Scan, ScanDiffPage, Trend } from '../types';

/** Quotas shown on the overview. */
const TOP_QUOTAS = 10;

interface OverviewData {
  latest: Scan | null;
  quotas: Quota[];
  trends: Map<string, Trend>;
  diff: { against: Scan; counts: Record<string, number> } | null | ApiFailure;
}

/**
 * The scan to compare the latest with (a diff compares two scans of one fleet): the newest succeeded scan of the same
 * fleet at least 6 days older, else the oldest earlier one of that fleet.
 */
function weekBefore(scans: Scan[], latest: Scan): Scan | undefined {
  const t = new Date(latest.startedAt).getTime();
  const earlier = scans.filter(
    (s) =>
      s.status === 'succeeded' &&
      s.id !== latest.id &&
      s.fleetName === latest.fleetName &&
      new Date(s.startedAt).getTime() < t,
  );
  return earlier.find((s) => t - new Date(s.startedAt).getTime() >= 6 * 86_400_000) ?? earlier.at(-1);
}

async function loadOverview(signal: AbortSignal): Promise<OverviewData> {
  // The quotas and their trends do not depend on the scan list: asked for at once, beside it (first paint).
  const quotasAsked = allQuotas(signal);
  const trendsAsked = exhaustingTrends({}, signal);
  quotasAsked.catch(() => undefined);
  trendsAsked.catch(() => undefined);
  const scans = await api<Page<Scan>>(`/v1/scans${query({ limit: 100 })}`, { signal });
  const latestItem = scans.items.find((s) => s.status === 'succeeded');
  if (!latestItem) return { latest: null, quotas: [], trends: new Map(), diff: null };
  const against = weekBefore(scans.items, latestItem);
  const diffAsked: Promise<OverviewData['diff']> = against
    ? api<ScanDiffPage>(`/v1/scans/${latestItem.id}/diff${query({ against: against.id, limit: 1 })}`, {
        signal,
      }).then(
        (d) => ({ against, counts: (d.counts ?? {}) as Record<string, number> }),
        (e: unknown) => (e instanceof ApiFailure ? e : new ApiFailure(0, 'CLIENT', String(e))),
      )
    : Promise.resolve(null);
  const [latest, quotas, trends, diff] = await Promise.all([
    api<Scan>(`/v1/scans/${latestItem.id}`, { signal }),
    quotasAsked,
    trendsAsked,
    diffAsked,
  ]);
  return { latest, quotas, trends: new Map(trends.map((t) => [quotaKey(t), t])), diff };
}

function Exhaustion({ trend }: { trend: Trend | undefined }) {
  if (!trend) return <span class="muted">not trending up</span>;
  if (trend.status === 'exhausted') return <strong class="bad">exhausted</strong>;
  const { p10, p50, p90 } = trend.exhaustsAt;
  if (!p50) return <span class="muted">–</span>;
  // p10 is the earliest plausible date (fast growth), p90 the latest.
  return (
    <span>
      {day(p50)}{' '}
      <span class="muted">
        ({day(p10)} – {day(p90)})
      </span>
    </span>
  );
}

export function Overview() {
  const { data, error, loading } = useLoad(loadOverview, []);
  return (
    <section>
      <PageTitle>Overview</PageTitle>
      <ErrorBox error={error} />
      {loading && !data && <Loading what="the fleet" />}
      {data && !data.latest && <p>No succeeded scan yet: run one (`fleet-audit scan` or POST /v1/scans).</p>}
      {data?.latest && <OverviewBody data={data} latest={data.latest} />}
    </section>
  );
}

function OverviewBody({ data, latest }: { data: OverviewData; latest: Scan }) {
  const summary = latest.summary;
  const gaps = (latest.coverage ?? []).filter((c) => c.status !== 'ok');
  const byCheck = Object.entries(summary?.byCheck ?? {}).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );
  return (
    <>
      <div class="cards">
        <div class="card" id="last-scan">
          <h2>Last scan</h2>
          <p>
            <a href={`/scans/${latest.id}`}>{when(latest.startedAt)}</a>{' '}
            <span class="age">({age(latest.finishedAt ?? latest.startedAt)})</span>
          </p>
          <p class="muted">
            {latest.fleetName ?? '–'} · {latest.source} · {num(summary?.accounts)} accounts ·{' '}
            {num(summary?.clusters)} clusters
          </p>
        </div>
        <div class="card" id="by-severity">
          <h2>Findings by severity</h2>
          <ul class="sevs">
            {(['critical', 'warning', 'info'] as const).map((s) => (
              <li key={s}>
                <a href={`/findings?severity=${s}`}>
                  <Sev s={s} /> <strong>{num(summary?.bySeverity?.[s] ?? 0)}</strong>
                </a>
              </li>
            ))}
          </ul>
          <p class="muted">{num(summary?.findings)} findings in all</p>
        </div>
        <div class="card" id="changes">
          <h2>Since last week</h2>
          <Changes diff={data.diff} />
        </div>
      </div>

      <h2 id="quotas-heading">Quotas nearest their limit</h2>
      {data.quotas.length === 0 ? (
        <p class="muted">
          No quota samples in the latest scan
          {gaps.some((g) => g.api === 'quotas') ? ' (quotas were not read: see the coverage gaps)' : ''}.
        </p>
      ) : (
        <TableWrap label="Quotas nearest their limit">
          <thead>
            <tr>
              <th scope="col">Quota</th>
              <th scope="col">Resource</th>
              <th scope="col">Used / limit</th>
              <th scope="col">Exhausts (p50, p10 – p90)</th>
            </tr>
          </thead>
          <tbody>
            {data.quotas.slice(0, TOP_QUOTAS).map((q) => (
              <tr key={quotaKey(q)}>
                <td>
                  <a href={`/findings?checkId=${q.checkId}`}>{q.checkId}</a>
                </td>
                <td>
                  {q.resource.kind === 'LoadBalancer' ? (
                    <a href={`/load-balancers/${q.resource.id}`}>{resourceLabel(q.resource)}</a>
                  ) : (
                    resourceLabel(q.resource)
                  )}
                  <div class="muted small">
                    {q.resource.accountId} · {q.resource.regionId}
                  </div>
                </td>
                <td>
                  <QuotaBar used={q.used} limit={q.limit} />
                </td>
                <td>
                  <Exhaustion trend={data.trends.get(quotaKey(q))} />
                </td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      )}

      <h2>Coverage gaps</h2>
      {gaps.length === 0 ? (
        <p>Every dataset of the latest scan was read.</p>
      ) : (
        <>
          <p>
            {gaps.length} dataset{gaps.length === 1 ? ' was' : 's were'} not read: what depends on{' '}
            {gaps.length === 1 ? 'it' : 'them'} is unknown, not healthy.
          </p>
          <ul class="gaps" id="coverage-gaps">
            {gaps.map((g, i) => (
              <li key={i}>
                <strong>{g.api}</strong>{' '}
                <span class={`tag tag-${g.status}`}>{g.status === 'absent' ? 'not read' : g.status}</span>{' '}
                {[g.accountId, g.regionId, g.clusterId].filter(Boolean).join(' / ')}
                {g.message && <div class="muted small">{g.message}</div>}
              </li>
            ))}
          </ul>
        </>
      )}

      <h2>Findings by check</h2>
      <TableWrap label="Findings by check">
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col" class="num">
              Findings
            </th>
          </tr>
        </thead>
        <tbody>
          {byCheck.map(([check, n]) => (
            <tr key={check}>
              <td>
                <a href={`/findings?checkId=${check}`}>{check}</a>
              </td>
              <td class="num">{num(n)}</td>
            </tr>
          ))}
        </tbody>
      </TableWrap>
    </>
  );
}

function Changes({ diff }: { diff: OverviewData['diff'] }) {
  if (diff === null) return <p class="muted">No earlier scan to compare with.</p>;
  if (diff instanceof ApiFailure) return <p class="muted">{diff.message}</p>;
  const c = diff.counts;
  return (
    <>
      <p>
        <strong>{num(c.new ?? 0)}</strong> new · <strong>{num(c.resolved ?? 0)}</strong> resolved ·{' '}
        {num(c.severityChanged ?? 0)} changed severity
      </p>
      <p class="muted small">against the scan of {when(diff.against.startedAt)}</p>
    </>
  );
}
