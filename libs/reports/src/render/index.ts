import type { ReportDocument } from '../report.model';
import { renderReportCsv } from './csv.renderer';
import { renderReportHtml } from './html.renderer';
import { renderReportJson } from './json.renderer';
import { renderReportMarkdown } from './markdown.renderer';

/** Output formats of a report. */
export type ReportFormat = 'html' | 'md' | 'csv' | 'json';

/** All report formats. */
export const REPORT_FORMATS: readonly ReportFormat[] = ['html', 'md', 'csv', 'json'];

/** Content type of each format (served by GET /v1/reports/{id}). */
export const REPORT_CONTENT_TYPES: Record<ReportFormat, string> = {
  html: 'text/html; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** Render a report document in one format. */
export function renderReport(doc: ReportDocument, format: ReportFormat): string {
  switch (format) {
    case 'html':
      return renderReportHtml(doc);
    case 'md':
      return renderReportMarkdown(doc);
    case 'csv':
      return renderReportCsv(doc);
    case 'json':
      return renderReportJson(doc);
  }
}

export { renderReportCsv, renderReportHtml, renderReportJson, renderReportMarkdown };
export { REPORT_CSV_COLUMNS } from './csv.renderer';
export { stableSvgIds } from './charts';
