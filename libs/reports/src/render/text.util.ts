/** Small text helpers shared by the renderers (escaping per output format, number formatting). */
import { escapeMarkdownText } from '@app/domain';
import type { ReportFinding } from '../report.model';

/** HTML text / attribute escaping (the five characters with meaning in HTML). */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A Markdown table cell: HTML and link syntax made inert, pipes escaped, line breaks flattened (libs/domain escapeMarkdownText). */
export function mdCell(s: string | number | null): string {
  return escapeMarkdownText(String(s ?? ''));
}

/** A ratio as a percentage with one decimal (0.8532 -> "85.3 %"). */
export function percent(ratio: number): string {
  return `${(Math.round(ratio * 1000) / 10).toFixed(1)} %`;
}

/** Where a finding is: account / region / cluster. */
export function whereOf(f: Pick<ReportFinding, 'resource'>): string {
  return [f.resource.accountId, f.resource.regionId, f.resource.clusterId].filter((x) => x !== null).join('/');
}

/** Rows listed per finding list in HTML and Markdown (the CSV and JSON carry all). */
export const LISTED_FINDINGS = 100;
