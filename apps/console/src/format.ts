/** Display helpers: numbers, ratios, dates and ages as the console shows them (UTC, ISO dates). */

/** `0.84` -> `84%`. */
export function pct(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined ? '–' : `${Math.round(ratio * 100)}%`;
}

/** An ISO date-time as `2026-12-07 12:40 UTC`, or '–'. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** An ISO date-time as `2026-12-07`, or '–'. */
export function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '–';
}

/** How long ago `iso` was, relative to `now`: `5 min ago`, `3 h ago`, `2 d ago`. */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '–';
  const s = Math.max(0, (now - new Date(iso).getTime()) / 1000);
  if (s < 90) return `${Math.round(s)} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** A count with thousands separators. */
export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString('en-US');
}

/** Days from now until `iso` (negative when past), rounded down. */
export function daysUntil(iso: string, now = Date.now()): number {
  return Math.floor((new Date(iso).getTime() - now) / 86_400_000);
}

/** The display name of a resource: `kind id (name)`. */
export function resourceLabel(r: { kind: string; id: string; name?: string | null }): string {
  return r.name && r.name !== r.id ? `${r.kind} ${r.id} (${r.name})` : `${r.kind} ${r.id}`;
}

/**
 * CSV text (RFC 4180: fields quoted when they hold a comma, quote or line break; quotes doubled). A field starting
 * with `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet does not run it as a formula (OWASP CSV injection).
 */
export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  const cell = (v: string | number | null | undefined) => {
    let s = v === null || v === undefined ? '' : String(v);
    if (/^[=+\-@]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Offer `body` as a file download named `name` (no request: a blob URL of this page). */
export function download(name: string, body: Blob): void {
  const url = URL.createObjectURL(body);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
