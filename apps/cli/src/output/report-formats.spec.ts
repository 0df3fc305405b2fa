/**
 * Report formats of `scan --format` on a real offline scan of the bundled sample fleet: SARIF validated
 * against the OASIS SARIF 2.1.0 schema, JUnit against the Ant JUnit XSD (test/fixtures/schemas, see
 * SOURCE.md there), CSV/Markdown/HTML structure, and the terminal table at 80 and 200 columns.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { validateXML } from 'xmllint-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScan, type ScanOutcome } from '@app/audit';
import { checkCatalogue } from '@app/checks';
import { renderCsv, renderHtml, renderJunit, renderMarkdown, renderSarif, CSV_COLUMNS } from './report-formats.renderer';
import { colourWanted, renderTable } from './scan-output.renderer';
import { wrapText } from './text-wrap.util';

const ROOT = join(__dirname, '..', '..', '..', '..');
const SCHEMAS = join(ROOT, 'test', 'fixtures', 'schemas');
const SAMPLE = join(ROOT, 'examples', 'fleets', 'sample');
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

let outcome: ScanOutcome;
beforeAll(async () => {
  // JUnit lists every evaluated result: the scan keeps them all, as `scan --format junit` asks.
  outcome = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: new Date('2026-11-23T10:00:00Z'), keepResults: true });
  expect(outcome.findings.length).toBeGreaterThan(5);
  expect(outcome.scan.summary.results.skipped).toBeGreaterThan(0);
});

describe('SARIF 2.1.0', () => {
  it('validates against the published SARIF 2.1.0 schema, one result per finding, rules from the catalogue', () => {
    const schema = JSON.parse(readFileSync(join(SCHEMAS, 'sarif-schema-2.1.0.json'), 'utf8')) as object;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    const log = JSON.parse(renderSarif(outcome, { inputUri: 'examples/fleets/sample' })) as {
      version: string;
      runs: { tool: { driver: { rules: { id: string; defaultConfiguration: { level: string } }[] } }; results: { ruleId: string; ruleIndex: number; level: string; partialFingerprints: Record<string, string>; locations: unknown[] }[] }[];
    };
    expect(validate(log), ajv.errorsText(validate.errors)).toBe(true);
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((r) => r.id)).toEqual(checkCatalogue().map((c) => c.id));
    expect(run.results).toHaveLength(outcome.findings.length);
    run.results.forEach((r, i) => {
      const f = outcome.findings[i];
      expect(r.ruleId).toBe(f.checkId);
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(f.checkId);
      expect(r.level).toBe({ critical: 'error', warning: 'warning', info: 'note' }[f.severity]);
      expect(r.partialFingerprints['fleetAudit/v1']).toBe(f.fingerprint);
      expect(r.locations).toHaveLength(1);
    });
  });

  it('fingerprints are stable across two scans of the same fleet', async () => {
    const again = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: new Date('2026-11-23T10:00:00Z') });
    const fp = (o: ScanOutcome) =>
      (JSON.parse(renderSarif(o)) as { runs: { results: { partialFingerprints: Record<string, string> }[] }[] }).runs[0].results.map((r) => r.partialFingerprints['fleetAudit/v1']).sort();
    expect(fp(again)).toEqual(fp(outcome));
  });

  it('the schema is really enforced (a result without a message is refused)', () => {
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, 'sarif-schema-2.1.0.json'), 'utf8')) as object);
    const log = JSON.parse(renderSarif(outcome)) as { runs: { results: Record<string, unknown>[] }[] };
    delete log.runs[0].results[0].message;
    expect(validate(log)).toBe(false);
  });
});

describe('JUnit XML', () => {
  const xsd = () => readFileSync(join(SCHEMAS, 'JUnit.xsd'), 'utf8');

  it('validates against the Ant JUnit XSD: a testcase per evaluated result, failures and skipped counted', async () => {
    const xml = renderJunit(outcome);
    const r = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'JUnit.xsd', contents: xsd() }] });
    expect(r.errors, r.rawOutput).toEqual([]);
    expect(r.valid).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(outcome.results.length);
    expect(xml.match(/<failure /g)).toHaveLength(outcome.results.filter((x) => x.status === 'fail').length);
    expect(xml.match(/<skipped /g)).toHaveLength(outcome.results.filter((x) => x.status === 'skipped').length);
  });

  it('escapes markup and control characters in messages (still valid)', async () => {
    const first = outcome.results.find((x) => x.status === 'fail')!;
    const evil: ScanOutcome = { ...outcome, results: [{ ...first, message: 'a <b> & "c" \u0000 \u001b[31m' }] };
    const xml = renderJunit(evil);
    const r = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'JUnit.xsd', contents: xsd() }] });
    expect(r.valid, r.rawOutput).toBe(true);
    expect(xml).toContain('a &lt;b&gt; &amp; &quot;c&quot;');
  });
});

describe('CSV, Markdown, HTML', () => {
  it('CSV: a header and one RFC 4180 record per finding', () => {
    const csv = renderCsv(outcome.findings);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(outcome.findings.length + 1);
    expect(renderCsv([{ ...outcome.findings[0], message: 'say "hi", then\nbye', remediation: '=cmd()' }]).split('\r\n')[1]).toContain('"say ""hi"", then\nbye","\'=cmd()"');
  });

  it('Markdown: a table row per finding, pipes escaped', () => {
    const md = renderMarkdown(outcome);
    expect(md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Severity') && !l.startsWith('| ---'))).toHaveLength(outcome.findings.length);
    expect(renderMarkdown(outcome, [{ ...outcome.findings[0], message: 'a|b' }])).toContain('a\\|b');
  });

  it('HTML: self-contained, escaped, no scripts', () => {
    const html = renderHtml(outcome, [{ ...outcome.findings[0], message: '<script>alert(1)</script>' }]);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  });
});

describe('terminal table', () => {
  const widest = (text: string) => Math.max(...text.replace(ANSI, '').split('\n').map((l) => l.length));

  it.each([80, 200])('fits %i columns and breaks no message word', (width) => {
    const text = renderTable(outcome, { width });
    expect(widest(text)).toBeLessThanOrEqual(width);
    const plain = text.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ');
    const tokens = new Set(plain.split(/\s+/));
    // Every word of every message that fits its column appears whole.
    for (const f of outcome.findings) for (const w of f.message.split(/\s+/).filter((x) => x.length > 0 && x.length < 20)) expect(tokens.has(w), `"${w}" broken at ${width}`).toBe(true);
  });

  it('uses the width: 200 columns give fewer lines than 80', () => {
    expect(renderTable(outcome, { width: 200 }).split('\n').length).toBeLessThan(renderTable(outcome, { width: 80 }).split('\n').length);
  });

  it('colours severities only when asked, and colour is off for NO_COLOR and non-TTYs', () => {
    expect(renderTable(outcome, { width: 120 })).not.toMatch(ANSI);
    expect(renderTable(outcome, { width: 120, color: true })).toMatch(ANSI);
    expect(colourWanted({ isTTY: true }, false)).toBe(true);
    expect(colourWanted({ isTTY: true }, true)).toBe(false);
    expect(colourWanted({ isTTY: false }, false)).toBe(false);
  });

  it('--severity filters the rows, --summary drops the table', () => {
    const crit = outcome.findings.filter((f) => f.severity === 'critical').length;
    const t = renderTable(outcome, { width: 200, minSeverity: 'critical' });
    expect(t).toContain(`Showing ${crit} of ${outcome.findings.length} findings`);
    expect(t.match(/│ (info|warning) /g)).toBeNull();
    const s = renderTable(outcome, { width: 200, summaryOnly: true });
    expect(s).not.toContain('┌');
    expect(s).toContain(`Findings: ${outcome.findings.length}`);
  });

  it('--severity critical --summary counts critical findings only (no warning or info count, By check of critical checks)', () => {
    const critical = outcome.findings.filter((f) => f.severity === 'critical');
    expect(critical.length).toBeGreaterThan(0);
    expect(critical.length).toBeLessThan(outcome.findings.length);
    const s = renderTable(outcome, { width: 200, minSeverity: 'critical', summaryOnly: true });
    expect(s).not.toContain('┌');
    expect(s).toContain(`Findings at or above critical: ${critical.length} (critical ${critical.length}) of ${outcome.findings.length} in all`);
    expect(s).not.toMatch(/\bwarning \d|\binfo \d/);
    const byCheck = /By check: (.*?)\.\n(?! )/.exec(s.replace(/\n {2}/g, ' '))?.[1] ?? '';
    const checks = byCheck.split(', ').map((x) => x.split(' ')[0]);
    expect(new Set(checks)).toEqual(new Set(critical.map((f) => f.checkId)));
  });

  it('a preview (demo) has a "what to do" column holding each shown finding\'s remediation', () => {
    const t = renderTable(outcome, { width: 160, preview: { top: 5, moreHint: 'more' } });
    expect(widest(t)).toBeLessThanOrEqual(160);
    const header = t.split('\n').find((l) => l.includes('│ severity'));
    expect(header).toContain('what to do');
    const plain = t.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ').replace(/\s+/g, ' ');
    const top = [...outcome.findings].sort((a, b) => ['info', 'warning', 'critical'].indexOf(b.severity) - ['info', 'warning', 'critical'].indexOf(a.severity))[0];
    // The remediation's words, in order, rewrapped: the cell holds the whole text.
    const firstWords = top.remediation.split(/\s+/).slice(0, 3);
    for (const w of firstWords) expect(plain).toContain(w);
    expect(renderTable(outcome, { width: 160 }).split('\n').find((l) => l.includes('│ severity'))).not.toContain('what to do');
  });

  it('wrapText breaks check ids after underscores, not mid-word', () => {
    expect(wrapText('SERVICE_NO_CONNECTION_DRAIN', 12)).toEqual(['SERVICE_NO_', 'CONNECTION_', 'DRAIN']);
    expect(wrapText('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
  });
});
