/** Small shared pieces of the pages: quota bars, error and loading states, severity badges, page headers. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { ApiFailure } from './api';
import { pct } from './format';

/** A used/limit bar: green below 70 %, amber to 90 %, red beyond; the numbers are written next to it. */
export function QuotaBar({ used, limit, label }: { used: number; limit: number; label?: string }) {
  const ratio = limit > 0 ? used / limit : 0;
  const level = ratio >= 0.9 ? 'high' : ratio >= 0.7 ? 'mid' : 'low';
  return (
    <span class="quota" title={label}>
      <span class={`bar bar-${level}`} aria-hidden="true">
        <span style={{ width: `${Math.min(100, ratio * 100).toFixed(1)}%` }} />
      </span>
      <span class="quota-text">
        {used.toLocaleString('en-US')} / {limit.toLocaleString('en-US')} ({pct(ratio)})
      </span>
    </span>
  );
}

/** A severity badge (text, not colour alone). */
export function Sev({ s }: { s: string }) {
  return <span class={`sev sev-${s}`}>{s}</span>;
}

/** Whether a page title was shown already (the first page of a visit keeps the browser's own focus order). */
let titled = false;

/**
 * The page title, focused when the user moves to another page (screen readers and keyboard users land on it, as on
 * a full page load); on the first page the focus stays where the browser puts it (the skip link comes first).
 */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (titled) ref.current?.focus({ preventScroll: true });
    titled = true;
  }, []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** An API error as the page shows it: the API's own message (never a stack trace). */
export function ErrorBox({ error }: { error: ApiFailure | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error.status === 403 ? 'Not allowed for this token: ' : error.status === 0 ? '' : `${error.status} `}
      {error.message}
    </p>
  );
}

/** "Loading..." announced politely. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A table that scrolls sideways on narrow screens instead of overflowing the page. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table>{children}</table>
    </div>
  );
}

/** A load balancer's Service, as the CLB and NLB detail pages list them. */
export interface LbService {
  clusterId: string;
  namespace: string;
  name: string;
  externalTrafficPolicy: string | null;
}

/** The quota bars of one load balancer (CLB or NLB page); `empty` is said when it has no quota sample. */
export function LbQuotaList({ quotas, empty }: { quotas: readonly { checkId: string; used: number; limit: number }[]; empty?: string }) {
  if (quotas.length === 0 && empty !== undefined) return <p class="muted">{empty}</p>;
  return (
    <ul>
      {quotas.map((q) => (
        <li key={q.checkId}>
          {q.checkId} <QuotaBar used={q.used} limit={q.limit} />
        </li>
      ))}
    </ul>
  );
}

/** The Services of one load balancer, each with its cluster link and traffic policy (CLB or NLB page). */
export function LbServiceList({ services }: { services: readonly LbService[] }) {
  return (
    <ul>
      {services.map((s) => (
        <li key={`${s.clusterId}/${s.namespace}/${s.name}`}>
          <a href={`/clusters/${s.clusterId}`}>{s.clusterId}</a> {s.namespace}/{s.name} ({s.externalTrafficPolicy ?? '–'})
        </li>
      ))}
    </ul>
  );
}
