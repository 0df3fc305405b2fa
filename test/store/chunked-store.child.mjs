/**
 * Test-only child of chunked-store.integration-spec.ts: stores one large scan through the built store (FLEET_AUDIT_DIST:
 * the suite's build root) and prints `{"chunk": {...}}` after each chunk committed, so the test can SIGKILL it in the
 * middle of the store, as a worker killed mid-store dies.
 *
 * argv: database URL, scan id, number of findings (as many quota samples).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { Store } = require(join(process.env.FLEET_AUDIT_DIST, 'libs', 'store', 'src', 'index.js'));

const [url, scanId, count] = process.argv.slice(2);
const n = Number(count);
const resource = (i) => ({ kind: 'LoadBalancer', id: `lb-child-${i}`, accountId: '1000000000000001', regionId: 'cn-hangzhou', clusterId: 'c-alpha' });
const findings = Array.from({ length: n }, (_, i) => ({
  checkId: 'clb-backend-quota',
  severity: 'warning',
  message: `CLB lb-child-${i} uses 170 of 200 backend servers (85 %)`,
  remediation: 'Raise the quota or split Services across CLBs.',
  source: 'seeds/001_clb_quotas.txt',
  fingerprint: `child-${String(i).padStart(8, '0')}`,
  used: 170,
  limit: 200,
  ratio: 0.85,
  resource: resource(i),
}));
const quotaUsage = findings.map((f) => ({ checkId: f.checkId, resource: f.resource, used: 170, limit: 200, ratio: 0.85 }));

const store = await Store.open({ connectionString: url, poolMax: 2, onIdleError: () => undefined });
await store.scans.complete(scanId, {
  findings,
  coverage: [],
  quotaUsage,
  onChunk: (chunk) => process.stdout.write(`${JSON.stringify({ chunk })}\n`),
});
process.stdout.write(`${JSON.stringify({ stored: scanId })}\n`);
await store.close();
