/**
 * `npm run bench:report`: build the weekly report from a store of 100 accounts / 1,000 clusters with
 * 12 weekly scans of (by default) 100,000 findings each (1.2 million stored findings, 5 % churn per week,
 * some severity changes, 50 waivers), then render it in all four formats.
 *
 * The store is a fresh database on the PostgreSQL of BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres; the bench creates `fleet_audit_bench_<random>` next to it
 * and drops it afterwards). Seeding is not timed. Timed: `loadReportInput` + `buildReport` (seconds) and
 * each render (seconds); peak RSS of the process (MiB, includes the seeding) and the HTML size (bytes).
 * Targets: build + renders <= 60 s, HTML <= 5 MB. Prints one JSON object as the last line.
 * BENCH_FINDINGS_PER_SCAN overrides the per-scan findings (e.g. 10000 for a quick run).
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Finding, Severity } from '@app/domain';
import { buildReport, loadReportInput, renderReport, REPORT_FORMATS } from '@app/reports';
import { Store } from '@app/store';
import { withBenchDatabase } from './bench-support';

const ACCOUNTS = 100;
const CLUSTERS_PER_ACCOUNT = 10;
const WEEKS = 12;
const PER_SCAN = Number(process.env.BENCH_FINDINGS_PER_SCAN ?? 100_000);
const CHECKS = [
  'CLB_BACKEND_QUOTA',
  'LB_ORPHANED',
  'LB_NO_BACKENDS',
  'SERVICE_NO_CONNECTION_DRAIN',
  'NODEPORT_RANGE_EXHAUSTION',
  'CLUSTER_MODE_BLOWUP',
  'SERVICE_EVENT_ERROR',
  'LB_CONFIG_DRIFT',
];
const SEVERITIES: Severity[] = ['info', 'warning', 'critical'];
const DAY = 86_400_000;
const END = new Date('2026-11-23T06:00:00Z');

function account(i: number): string {
  return String(1_000_000_000_000_000 + i);
}

/** Finding `k` (stable identity) in week `w`: severity drifts for 1 % of them, 5 % churn per week. */
function finding(k: number, w: number): Finding {
  const a = k % ACCOUNTS;
  const c = Math.floor(k / ACCOUNTS) % CLUSTERS_PER_ACCOUNT;
  const checkId = CHECKS[k % CHECKS.length];
  const id = `lb-${k.toString(36).padStart(8, '0')}`;
  const sev = SEVERITIES[(k + (k % 100 === 0 ? w : 0)) % 3];
  return {
    checkId,
    severity: sev,
    resource: {
      kind: 'LoadBalancer',
      id,
      accountId: account(a),
      regionId: 'cn-hangzhou',
      clusterId: `c-${a}-${c}`,
    },
    message: `CLB ${id} uses 170 of 200 backend servers (85 %)`,
    remediation: 'Raise the quota or split Services across CLBs.',
    source: 'seeds/001_clb_quotas.txt',
    fingerprint: createHash('sha256').update(`${checkId}\0${id}`).digest('hex').slice(0, 32),
  };
}

async function main(): Promise<void> {
  await withBenchDatabase(async (url) => {
    const store = await Store.open({ connectionString: url, migrate: true });
    try {
      const seedStart = Date.now();
      for (let w = 0; w < WEEKS; w++) {
        const start = w * Math.floor(PER_SCAN * 0.05);
        const findings = Array.from({ length: PER_SCAN }, (_, i) => finding(start + i, w));
        const scan = await store.scans.create({
          source: 'offline',
          fleetName: 'bench',
          startedAt: new Date(END.getTime() - (WEEKS - 1 - w) * 7 * DAY),
        });
        await store.scans.complete(scan.id, {
          findings,
          coverage: [{ accountId: account(0), regionId: 'cn-hangzhou', api: 'slb', status: 'ok' }],
          quotaUsage: Array.from({ length: 1000 }, (_, i) => ({
            checkId: 'CLB_BACKEND_QUOTA',
            resource: {
              kind: 'LoadBalancer' as const,
              id: `lb-q${i}`,
              accountId: account(i % ACCOUNTS),
              regionId: 'cn-hangzhou',
              clusterId: `c-${i % ACCOUNTS}-0`,
            },
            used: Math.min(200, 80 + (i % 100) + w * 3),
            limit: 200,
            ratio: Math.min(200, 80 + (i % 100) + w * 3) / 200,
          })),
        });
        // The step after a store, as a scan runs it.
        await store.scans.refreshAfterStore();
      }
      for (let i = 0; i < 50; i++)
        await store.waiverService.create(
          {
            checkId: CHECKS[i % CHECKS.length],
            accountId: account(i),
            resource: i % 2 === 0 ? 'lb-0*' : 'lb-gone-*',
            owner: `team-${i % 7}`,
            reason: 'accepted for the benchmark',
            category: 'accepted-risk',
          },
          'bench',
          new Date(END.getTime() - DAY),
        );
      const seedSeconds = (Date.now() - seedStart) / 1000;

      const now = new Date(END.getTime() + 3_600_000);
      const t0 = process.hrtime.bigint();
      const doc = buildReport(await loadReportInput(store, { now }));
      const buildSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const renderSeconds: Record<string, number> = {};
      const bytes: Record<string, number> = {};
      for (const format of REPORT_FORMATS) {
        const t = process.hrtime.bigint();
        const text = renderReport(doc, format);
        renderSeconds[format] = Number(process.hrtime.bigint() - t) / 1e9;
        bytes[format] = Buffer.byteLength(text);
      }
      const totalSeconds = buildSeconds + Object.values(renderSeconds).reduce((a, b) => a + b, 0);
      const result = {
        accounts: ACCOUNTS,
        clusters: ACCOUNTS * CLUSTERS_PER_ACCOUNT,
        scans: WEEKS,
        findingsPerScan: PER_SCAN,
        storedFindings: PER_SCAN * WEEKS,
        reportFindings: doc.summary.findings,
        changes: doc.summary.changes,
        seedSeconds: Math.round(seedSeconds * 10) / 10,
        buildSeconds: Math.round(buildSeconds * 100) / 100,
        renderSeconds: Object.fromEntries(
          Object.entries(renderSeconds).map(([k, v]) => [k, Math.round(v * 100) / 100]),
        ),
        totalSeconds: Math.round(totalSeconds * 100) / 100,
        peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
        bytes,
        targets: {
          totalSecondsMax: 60,
          htmlBytesMax: 5_000_000,
          met: totalSeconds <= 60 && bytes.html <= 5_000_000,
        },
        loadAvg1m: Math.round(loadavg()[0] * 100) / 100,
      };
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } finally {
      await store.close();
    }
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:report failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
