/**
 * Renderers of a scan outcome for the CLI: JSON (the contract of `scan --format json`) and a
 * human table. Pure functions returning strings; the caller writes them.
 */
import type { ScanOutcome } from '@app/audit';
import { clusterLabel, severityRank, type Finding, type Severity, type SkippedResult } from '@app/domain';
import { boxTable, wrapText } from './text-wrap.util';
import { cliStreams } from './cli-streams';

/**
 * The JSON document printed by `scan --format json`: `{"scan": {...}, "findings": [...]}` where each
 * finding has checkId, severity, resource {kind,id,accountId,regionId,clusterId,clusterName,namespace,name},
 * message, remediation, source, fingerprint and the figures (used, limit, ratio, ...). `scan` carries
 * the summary (counts per severity, per check and per result status), the coverage and `skipped`: the
 * (check, resource) pairs not evaluated, with the reason.
 */
export function renderJson(outcome: ScanOutcome): string {
  return `${JSON.stringify({ scan: outcome.scan, findings: outcome.findings }, null, 2)}\n`;
}

function resourceLabel(f: Finding): string {
  const r = f.resource;
  const where = [r.accountId, r.regionId, r.clusterId ? clusterLabel(r.clusterId, r.clusterName) : undefined].filter(Boolean).join('/');
  return `${r.kind} ${r.id}\n${where}`;
}

/** How `renderTable` lays out and colours its output. */
export interface TableRenderOptions {
  /** Terminal width in columns; every line of the output fits in it (minimum 40). Default: stdout's, else 120. */
  width?: number;
  /** Colour the severity cells (ANSI). Default false; the CLI turns it on for a TTY without NO_COLOR. */
  color?: boolean;
  /**
   * Show only findings at or above this severity: the table, the findings line and "By check" count those
   * only, and name how many of all findings they are (with `summaryOnly` too: `--severity critical --summary`
   * prints the critical counts, not every severity's).
   */
  minSeverity?: Severity;
  /** Counts only: no findings table. */
  summaryOnly?: boolean;
  /**
   * A first look (`demo`): the summary (counts, by check, coverage) before the table, and only the `top`
   * most severe findings in it, with a fifth column "what to do" (the finding's remediation), followed by
   * `moreHint` (how to see the rest). Default: every finding, four columns, summary after the table.
   */
  preview?: { top: number; moreHint: string };
}

const SEVERITY_COLOUR: Record<Severity, string> = { critical: '\u001b[31m', warning: '\u001b[33m', info: '\u001b[36m' };

/**
 * Whether to colour output written to a stream: only a TTY, and never when `NO_COLOR` is set to a
 * non-empty value (https://no-color.org).
 * @param noColor the validated `NO_COLOR` (libs/config `cli.noColor`; the CLI passes `cliConfig().cli.noColor`)
 */
export function colourWanted(stream: { isTTY?: boolean }, noColor: boolean): boolean {
  return stream.isTTY === true && !noColor;
}

/** Findings at or above `min` (all when unset). */
export function findingsAtOrAbove(findings: readonly Finding[], min?: Severity): Finding[] {
  if (!min) return [...findings];
  const r = severityRank(min);
  return findings.filter((f) => severityRank(f.severity) >= r);
}

/**
 * Content widths of the four columns (severity, check, resource, message) for a terminal `width`:
 * the borders and padding take 13 columns (boxTable), severity 8, and the rest is shared so that the message
 * column gets what check ids (up to 27) and resource labels (up to 40) leave.
 */
function columnWidths(width: number): [number, number, number, number] {
  const rest = Math.max(27, width - 13 - 8);
  const check = Math.min(27, Math.max(8, Math.floor(rest * 0.28)));
  const resource = Math.min(40, Math.max(8, Math.floor(rest * 0.3)));
  return [8, check, resource, Math.max(8, rest - check - resource)];
}

/**
 * Content widths of the five columns of a preview (severity, check, resource, message, what to do): the borders
 * and padding take 16 columns, severity 8; check and resource get a quarter each of the rest (at most 27 / 32),
 * message and the remediation share what is left.
 */
function previewColumnWidths(width: number): [number, number, number, number, number] {
  const rest = Math.max(40, width - 16 - 8);
  const check = Math.min(27, Math.max(8, Math.floor(rest * 0.22)));
  const resource = Math.min(32, Math.max(8, Math.floor(rest * 0.22)));
  const text = Math.max(16, rest - check - resource);
  const message = Math.max(8, Math.floor(text / 2));
  return [8, check, resource, message, Math.max(8, text - message)];
}

/** Counts of `findings` per severity and per check (check ids in first-seen order). */
function countsOf(findings: readonly Finding[]): { bySeverity: Record<Severity, number>; byCheck: Record<string, number> } {
  const bySeverity: Record<Severity, number> = { critical: 0, warning: 0, info: 0 };
  const byCheck: Record<string, number> = {};
  for (const f of findings) {
    bySeverity[f.severity] += 1;
    byCheck[f.checkId] = (byCheck[f.checkId] ?? 0) + 1;
  }
  return { bySeverity, byCheck };
}

/**
 * A table of findings (severity, check, resource, message) followed by a summary line per
 * severity and the coverage gaps (targets that could not be read). Every line fits in `width`
 * columns: cells wrap on word boundaries (check ids after `_`), summary lines wrap too.
 */
export function renderTable(outcome: ScanOutcome, opts: TableRenderOptions = {}): string {
  const width = Math.max(40, Math.floor(opts.width ?? cliStreams().stdout.columns ?? 120));
  const withFix = opts.preview !== undefined;
  const widths = withFix ? previewColumnWidths(width) : columnWidths(width);
  const [, checkW, resW, msgW] = widths;
  const matching = findingsAtOrAbove(outcome.findings, opts.minSeverity);
  // A preview keeps the most severe first (stable: catalogue order within a severity).
  const shown = opts.preview
    ? matching
        .map((f, i) => ({ f, i }))
        .sort((a, b) => severityRank(b.f.severity) - severityRank(a.f.severity) || a.i - b.i)
        .slice(0, opts.preview.top)
        .map((x) => x.f)
    : matching;
  const rows = shown.map((f) => [
    [opts.color ? `${SEVERITY_COLOUR[f.severity]}${f.severity}\u001b[39m` : f.severity],
    wrapText(f.checkId, checkW),
    resourceLabel(f)
      .split('\n')
      .flatMap((l) => wrapText(l, resW)),
    wrapText(f.message, msgW),
    ...(withFix ? [wrapText(f.remediation, widths[4] as number)] : []),
  ]);
  const s = outcome.scan.summary;
  const lines: string[] = [];
  lines.push(`Scan ${outcome.scan.id} of fleet "${outcome.scan.fleetName}" (${outcome.scan.source}): ${s.accounts} accounts, ${s.clusters} clusters, ${s.loadBalancers} CLB instances.`);
  const body: string[] = [];
  if (!opts.summaryOnly && shown.length > 0) body.push(boxTable(['severity', 'check', 'resource', 'message', ...(withFix ? ['what to do'] : [])], rows, widths));
  if (!opts.summaryOnly && opts.minSeverity && shown.length < outcome.findings.length)
    lines.push(`Showing ${shown.length} of ${outcome.findings.length} findings (--severity ${opts.minSeverity}).`);
  const tail: string[] = [];
  const evaluated = `checks evaluated: ${s.results.pass} pass, ${s.results.fail} fail, ${s.results.skipped} skipped.`;
  let byCheckCounts: Record<string, number> = s.byCheck;
  if (opts.minSeverity) {
    // The display filter applies to the counts as well: only the severities asked for are named.
    const c = countsOf(matching);
    const r = severityRank(opts.minSeverity);
    const named = (['critical', 'warning', 'info'] as const).filter((sev) => severityRank(sev) >= r).map((sev) => `${sev} ${c.bySeverity[sev]}`);
    tail.push(`Findings at or above ${opts.minSeverity}: ${matching.length} (${named.join(', ')}) of ${s.findings} in all; ${evaluated}`);
    byCheckCounts = c.byCheck;
  } else {
    tail.push(`Findings: ${s.findings} (critical ${s.bySeverity.critical}, warning ${s.bySeverity.warning}, info ${s.bySeverity.info}); ${evaluated}`);
  }
  const byCheck = Object.entries(byCheckCounts)
    .map(([id, n]) => `${id} ${n}`)
    .join(', ');
  if (byCheck) tail.push(`By check: ${byCheck}.`);
  const gaps = outcome.scan.coverage.filter((c) => c.status === 'failed');
  if (gaps.length > 0) {
    tail.push(`Coverage gaps (not read, no claim made about them): ${gaps.length}`);
    for (const g of gaps.slice(0, 20))
      tail.push(`  - ${[g.accountId, g.regionId, g.clusterId].filter(Boolean).join('/')} ${g.api}: ${g.errorCode ?? 'error'} ${g.message ?? ''}`.trimEnd());
    if (gaps.length > 20) tail.push(`  ... and ${gaps.length - 20} more`);
  } else {
    tail.push(`Coverage: ${s.coverage.ok} datasets read, ${s.coverage.absent} absent, none failed.`);
  }
  tail.push(...skippedLines(outcome.scan.skipped));
  const fit = (l: string): string[] => {
    const indent = /^ */.exec(l)?.[0] ?? '';
    const cont = indent ? `${indent}  ` : '  ';
    return wrapText(l.slice(indent.length), width - cont.length).map((x, i) => (i === 0 ? indent : cont) + x);
  };
  if (opts.preview && !opts.summaryOnly) {
    const more =
      shown.length < matching.length
        ? `The ${shown.length} most severe of ${matching.length} findings; all of them: ${opts.preview.moreHint}`
        : `All ${matching.length} findings; also: ${opts.preview.moreHint}`;
    return `${[...lines.flatMap(fit), ...tail.flatMap(fit), ...body, ...fit(more)].join('\n')}\n`;
  }
  return `${[...lines.flatMap(fit), ...body, ...tail.flatMap(fit)].join('\n')}\n`;
}

/** The skipped results grouped by reason (one line per reason, naming its checks), at most 20 lines. */
function skippedLines(skipped: readonly SkippedResult[]): string[] {
  if (skipped.length === 0) return [];
  const byReason = new Map<string, Set<string>>();
  for (const k of skipped) {
    const checks = byReason.get(k.reason) ?? new Set<string>();
    checks.add(k.checkId);
    byReason.set(k.reason, checks);
  }
  const out = [`Not evaluated (skipped, no claim made): ${skipped.length} results, ${byReason.size} reasons`];
  for (const [reason, checks] of [...byReason.entries()].slice(0, 20))
    out.push(`  - ${[...checks].sort().join(', ')}: ${reason}`);
  if (byReason.size > 20) out.push(`  ... and ${byReason.size - 20} more reasons (see --format json: scan.skipped)`);
  return out;
}
