/**
 * The two output guards every renderer shares (libs/domain text.util): `terminalText` leaves nothing that drives a
 * terminal (whole ESC / CSI / OSC / DCS sequences, 7- and 8-bit, then lone C0, DEL and C1), `csvField` is the one
 * CSV cell writer (OWASP "CSV Injection": = + - @ tab CR first get a `'` and quotes). The CLI's tables go through
 * them (apps/cli table.util, text-wrap.util), as do both CSV writers (scan --format csv, the weekly report's CSV).
 */
import { describe, expect, it } from 'vitest';
import { csvField, terminalText, type Finding } from '@app/domain';
import { renderCsv } from '../../apps/cli/src/output/report-formats.renderer';
import { renderTable } from '../../apps/cli/src/output/table.util';
import { renderReportCsv } from '../../libs/reports/src/render/csv.renderer';
import type { ReportDocument, ReportFinding } from '../../libs/reports/src/report.model';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/;

describe('terminalText', () => {
  it('drops whole escape sequences (title, clear, clipboard, 8-bit CSI, DCS) and their parameters', () => {
    expect(terminalText('a\u001b]0;new title\u0007b')).toBe('ab');
    expect(terminalText('a\u001b]0;new title\u001b\\b')).toBe('ab');
    expect(terminalText('a\u001b[2Jb\u001b[1;31mc')).toBe('abc');
    expect(terminalText('a\u001b]52;c;cHduZWQ=\u0007b')).toBe('ab');
    expect(terminalText('a\u009b2Jb')).toBe('ab');
    expect(terminalText('a\u001bPq#0;2;0;0;0\u001b\\b')).toBe('ab');
  });

  it('drops lone C0 (CR, BEL, a broken ESC), DEL and C1; a tab becomes a space; line feeds kept or flattened', () => {
    expect(terminalText('safe\rEVIL')).toBe('safeEVIL');
    expect(terminalText('a\u0007\u007f\u0085\u009fb\u001b')).toBe('ab');
    expect(terminalText('a\u001b]0;unterminated')).toBe('a]0;unterminated');
    expect(terminalText('a\tb\nc')).toBe('a b\nc');
    expect(terminalText('a\nb', false)).toBe('a b');
    const plain = 'lb-bp1 storefront (c81faa03…) ✓';
    expect(terminalText(plain)).toBe(plain);
  });

  it('every table cell of the CLI goes through it', () => {
    const out = renderTable(['name', 'owner'], [['clb\u001b]0;pwned\u0007-1', 'team\u009b2J\rX']], { width: 80, color: false });
    expect(out).not.toMatch(CONTROL);
    expect(out).toContain('clb-1');
    expect(out).toContain('teamX');
  });
});

describe('csvField: the one CSV guard', () => {
  it('prefixes and quotes text starting with = + - @ tab or CR; leaves numbers and plain text alone', () => {
    expect(csvField("-2+3+cmd|' /C calc'!A0")).toBe(`"'-2+3+cmd|' /C calc'!A0"`);
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField('+1')).toBe(`"'+1"`);
    expect(csvField('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvField('\t=1+1')).toBe(`"' =1+1"`);
    expect(csvField('\r=1+1')).toBe(`"'=1+1"`);
    expect(csvField(-5)).toBe('-5');
    expect(csvField(true)).toBe('true');
    expect(csvField(null)).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('lb-bp1')).toBe('lb-bp1');
  });

  it('scan --format csv and the report CSV both guard a formula name', () => {
    const name = "-2+3+cmd|' /C calc'!A0";
    const finding = {
      checkId: 'LB_ORPHANED',
      severity: 'warning',
      resource: { kind: 'LoadBalancer', id: 'lb-1', accountId: '1', regionId: 'cn-hangzhou', name },
      message: '\t=1+1',
      remediation: 'r',
      fingerprint: 'f',
    } as unknown as Finding;
    const scanRow = renderCsv([finding]).split('\r\n')[1]!;
    expect(scanRow).toContain(`,"'${name}",`);
    expect(scanRow).toContain(`,"' =1+1",`);
    const reportFinding = {
      status: 'new',
      previousSeverity: null,
      checkId: 'LB_ORPHANED',
      severity: 'warning',
      fingerprint: 'f',
      resource: { kind: 'LoadBalancer', id: name, accountId: '1', regionId: 'r', clusterId: null, clusterName: null },
      waiverExpired: false,
      waiver: null,
      message: '\r=1+1',
    } as unknown as ReportFinding;
    const doc = { waived: [], new: [reportFinding], persisting: [], resolved: [] } as unknown as ReportDocument;
    const reportRow = renderReportCsv(doc).split('\r\n')[1]!;
    expect(reportRow).toContain(`,"'${name}",`);
    expect(reportRow).toContain(`,"'=1+1",`);
  });
});
