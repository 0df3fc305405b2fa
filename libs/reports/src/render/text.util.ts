/** Small text helpers shared by the renderers (escaping per output format, number formatting). */
import { clusterLabel, escapeMarkdownText, terminalText } from '@app/domain';
import type { ReportFinding } from '../report.model';

/**
 * HTML text / attribute escaping (the five characters with meaning in HTML), after escape sequences and other
 * control characters are dropped (libs/domain terminalText: a page printed on a terminal stays inert).
 */
export function escapeHtml(s: string): string {
  return terminalText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A Markdown table cell: HTML and link syntax made inert, pipes escaped, line breaks flattened (libs/domain escapeMarkdownText). */
export function mdCell(s: string | number | null): string {
  return escapeMarkdownText(String(s ?? ''));
}

/** A ratio as a percentage with one decimal (0.8532 -> "85.3 %"). */
export function percent(ratio: number): string {
  return `${(Math.round(ratio * 1000) / 10).toFixed(1)} %`;
}

/** Where a finding is: account / region / cluster (`name (c81faa03…)` when its name is known, libs/domain clusterLabel). */
export function whereOf(f: { resource: Pick<ReportFinding['resource'], 'accountId' | 'regionId' | 'clusterId' | 'clusterName'> }): string {
  const r = f.resource;
  return [r.accountId, r.regionId, r.clusterId === null ? null : clusterLabel(r.clusterId, r.clusterName)].filter((x) => x !== null).join('/');
}

/** Rows listed per finding list in HTML and Markdown (the CSV and JSON carry all). */
export const LISTED_FINDINGS = 100;
