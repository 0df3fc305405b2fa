import type { ReportDocument } from '../report.model';

/**
 * The report as JSON: the document itself (schema docs/schemas/report.schema.json), 2-space indented,
 * keys in the builder's fixed order, ending with a newline.
 */
export function renderReportJson(doc: ReportDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
