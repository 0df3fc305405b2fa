/**
 * Weekly report from real PostgreSQL: the diff across three stored weeks, waiver states and
 * owners, coverage, trend and forecasts; the same counts in all four renderers; byte-identical output for
 * the same inputs apart from the generated-at line (fixed clocks); the JSON valid against its published
 * schema (docs/schemas/report.schema.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, loadReportInput, renderReport, REPORT_FORMATS, type ReportDocument } from '@app/reports';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { ACCOUNT, at, seedThreeWeeks } from './report-fixture.util';

describe('weekly report (integration)', () => {
  let db: TestDatabase;
  let store: Store;
  let doc: ReportDocument;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    await seedThreeWeeks(store);
    doc = buildReport(await loadReportInput(store, { now: at(15) }));
  });
  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  const ids = (list: ReportDocument['new']) => list.map((f) => f.resource.id);

  it('diffs the last scan of the period against the previous period\'s last scan by fingerprint', () => {
    expect(doc.period).toEqual({ start: at(7).toISOString(), end: at(14).toISOString() });
    expect(doc.previousScan?.startedAt).toBe(at(7).toISOString());
    expect(ids(doc.new)).toEqual(['lb-E']);
    expect(doc.new[0]).toMatchObject({ waiverExpired: true, waiver: { owner: 'team-core' } });
    expect(ids(doc.resolved)).toEqual(['lb-B']);
    expect(ids(doc.persisting)).toEqual(['lb-A', 'lb-D', 'lb-Z']);
    expect(doc.severityChanged.map((f) => [f.resource.id, f.previousSeverity, f.severity])).toEqual([['lb-D', 'warning', 'critical']]);
    expect(doc.waived.map((f) => [f.resource.id, f.severity, f.waiver?.owner])).toEqual([['lb-F', 'critical', 'team-edge']]);
    expect(doc.summary.changes).toEqual({ new: 1, resolved: 1, persisting: 3, severityChanged: 1, waived: 1, waiverExpired: 1 });
    expect(doc.summary.bySeverity.critical).toEqual({ total: 3, open: 2, waived: 1 });
    expect(doc.summary.byOwner).toEqual([
      { owner: 'team-core', waived: 0, waiverExpired: 1, waivers: 1 },
      { owner: 'team-edge', waived: 1, waiverExpired: 0, waivers: 1 },
    ]);
    expect(doc.waivers.expired.map((w) => w.owner)).toEqual(['team-core']);
    expect(doc.waivers.stale.map((w) => w.owner)).toEqual(['team-gone']);
    expect(doc.waivers.active.map((w) => [w.owner, w.matched])).toEqual([['team-edge', 1]]);
  });

  it('week 2 against week 1; a scoped report sees only its accounts', async () => {
    const w2 = buildReport(await loadReportInput(store, { now: at(8), until: at(8) }));
    expect(ids(w2.new)).toEqual(['lb-D', 'lb-Z']);
    expect(ids(w2.resolved)).toEqual(['lb-C']);
    expect(w2.severityChanged.map((f) => f.resource.id)).toEqual(['lb-A']);
    const scoped = buildReport(await loadReportInput(store, { now: at(15), accounts: [ACCOUNT] }));
    expect(scoped.scope.accounts).toEqual([ACCOUNT]);
    expect(ids(scoped.persisting)).toEqual(['lb-A', 'lb-D']);
    expect(scoped.trend.at(-1)?.bySeverity).toEqual({ info: 0, warning: 1, critical: 3 });
  });

  it("the report CSV says what to do: a last column 'remediation' holding each finding's remediation", () => {
    const csv = renderReport(doc, 'csv');
    // RFC 4180 fields: quoted (quotes doubled, commas and line breaks inside) or plain.
    const records = csv
      .trim()
      .split('\r\n')
      .map((line) => [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map((m) => m[1]!.replace(/^"|"$/g, '').replaceAll('""', '"')));
    const header = records[0]!;
    expect(header.at(-1)).toBe('remediation');
    const byFingerprint = new Map([...doc.new, ...doc.persisting, ...doc.waived, ...doc.resolved].map((f) => [f.fingerprint, f]));
    expect(records.length - 1).toBe(byFingerprint.size);
    for (const r of records.slice(1)) {
      const f = byFingerprint.get(r[header.indexOf('fingerprint')]!);
      expect(f?.remediation).toBeTruthy();
      expect(r.at(-1)).toBe(f?.remediation);
    }
  });

  it('coverage gaps, top quotas with forecasts, and a 12-week trend with gaps where no scan ran', () => {
    expect(doc.coverage).toMatchObject({ complete: false, datasets: { ok: 1, absent: 0, failed: 1 } });
    expect(doc.coverage.failed[0]).toMatchObject({ clusterId: 'c-beta', api: 'kubernetes', errorCode: 'Forbidden' });
    expect(doc.quotas.byUsage[0]).toMatchObject({ resource: { id: 'lb-hot' }, used: 160, limit: 200, ratio: 0.8 });
    expect(doc.quotas.forecast.available).toBe(true);
    expect(doc.quotas.byExhaustion[0]?.resource.id).toBe('lb-hot');
    expect(doc.quotas.byExhaustion[0]?.exhaustsAtP10 && doc.quotas.byExhaustion[0].exhaustsAtP10 > at(15).toISOString()).toBe(true);
    expect(doc.trend).toHaveLength(12);
    expect(doc.trend.slice(0, 9).every((t) => t.scanId === null && t.bySeverity === null)).toBe(true);
    expect(doc.trend.slice(9).map((t) => t.bySeverity)).toEqual([
      { info: 0, warning: 2, critical: 1 },
      { info: 1, warning: 2, critical: 1 },
      { info: 1, warning: 1, critical: 3 },
    ]);
  });

  it('the same counts appear in JSON, Markdown, CSV and HTML', () => {
    const out = Object.fromEntries(REPORT_FORMATS.map((f) => [f, renderReport(doc, f)])) as Record<(typeof REPORT_FORMATS)[number], string>;
    const json = JSON.parse(out.json) as ReportDocument;
    const expected: Record<string, number> = {
      findings: doc.summary.findings,
      open: doc.summary.open,
      waived: doc.summary.waived,
      waiverExpired: doc.summary.waiverExpired,
      new: doc.summary.changes.new,
      resolved: doc.summary.changes.resolved,
      persisting: doc.summary.changes.persisting,
      severityChanged: doc.summary.changes.severityChanged,
    };
    const csvRows = out.csv.trim().split('\r\n').slice(1).map((l) => l.split(','));
    const csvCount = (status: string) => csvRows.filter((r) => r[0] === status).length;
    const fromCsv: Record<string, number> = {
      findings: csvRows.filter((r) => r[0] !== 'resolved').length,
      open: csvCount('new') + csvCount('persisting'),
      waived: csvCount('waived'),
      waiverExpired: csvRows.filter((r) => r[11] === 'true').length,
      new: csvCount('new'),
      resolved: csvCount('resolved'),
      persisting: csvCount('persisting'),
      severityChanged: csvRows.filter((r) => r[1] === 'true').length,
    };
    expect(fromCsv).toEqual(expected);
    const fromJson = { ...json.summary.changes, findings: json.summary.findings, open: json.summary.open, waived: json.summary.waived, waiverExpired: json.summary.waiverExpired };
    expect(fromJson).toMatchObject(expected);
    for (const [k, v] of Object.entries(expected)) {
      expect(out.md, `markdown ${k}`).toContain(`| ${k} | ${v} |`);
      expect(out.html, `html ${k}`).toContain(`data-count="${k}">${v}<`);
    }
    for (const s of ['critical', 'warning', 'info'] as const) {
      expect(out.html).toContain(`data-count="${s}.total">${doc.summary.bySeverity[s].total}<`);
      expect(out.md).toContain(`| ${s} | ${doc.summary.bySeverity[s].total} | ${doc.summary.bySeverity[s].open} | ${doc.summary.bySeverity[s].waived} |`);
    }
  });

  it('same inputs and clocks -> byte-identical output; another build clock changes only the generated-at line', async () => {
    const again = buildReport(await loadReportInput(store, { now: at(15) }));
    const later = buildReport(await loadReportInput(store, { now: at(15), generatedAt: new Date(at(15).getTime() + 3_600_000) }));
    for (const format of REPORT_FORMATS) {
      const a = renderReport(doc, format);
      expect(renderReport(again, format), format).toBe(a);
      const la = a.split('\n');
      const lb = renderReport(later, format).split('\n');
      expect(lb.length).toBe(la.length);
      const differing = la.map((l, i) => (l === lb[i] ? null : l)).filter((l) => l !== null);
      expect(differing.length, format).toBeLessThanOrEqual(1);
      for (const l of differing) expect(l).toMatch(/generated/i);
    }
  });

  it('the JSON document validates against docs/schemas/report.schema.json', () => {
    const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'schemas', 'report.schema.json'), 'utf8')) as object;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    const ok = validate(JSON.parse(renderReport(doc, 'json')));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('lists the Quota Center applications of the period and those in review, in JSON (schema-valid), Markdown and HTML', async () => {
    const key = { accountId: ACCOUNT, regionId: 'cn-hangzhou', productCode: 'slb', quotaActionCode: 'slb_quota_backendservers_num' };
    const begun = await store.quotaApplications.begin(key, { desireValue: 320, reason: 'forecast', requestedBy: 'platform-team', planRow: { action: 'request' } });
    if (!('created' in begun)) throw new Error('an application was already open');
    await store.quotaApplications.settle(begun.created.id, { applicationId: 'app-disagreed-1', status: 'Disagree', approveValue: 0, auditReason: 'Use more load balancers instead.' });
    const withApps = buildReport(await loadReportInput(store, { now: new Date() }));
    expect(withApps.quotaApplications).toEqual([
      expect.objectContaining({ ...key, applicationId: 'app-disagreed-1', status: 'Disagree', desireValue: 320, reason: 'Use more load balancers instead.', requestedBy: 'platform-team' }),
    ]);
    const other = buildReport(await loadReportInput(store, { now: new Date(), accounts: ['9999999999999999'] }));
    expect(other.quotaApplications).toEqual([]);
    const md = renderReport(withApps, 'md');
    expect(md).toMatch(/## Quota applications\n\n\| Status \| Account \| Region \| Quota \| Asked \| Approved \| Reason \| Requested by \| Updated \|/);
    expect(md).toMatch(/\| Disagree \| 1000000000000001 \| cn-hangzhou \| slb\\?_quota\\?_backendservers\\?_num \| 320 \| 0 \| Use more load balancers instead\. \| platform-team \|/);
    expect(renderReport(withApps, 'html')).toContain('<section id="quota-applications"><h2>Quota applications</h2>');
    expect(renderReport(other, 'html')).toContain('None in review or filed in the period');
    const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'schemas', 'report.schema.json'), 'utf8')) as object;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    validate(JSON.parse(renderReport(withApps, 'json')));
    expect(validate.errors ?? []).toEqual([]);
  });
});
