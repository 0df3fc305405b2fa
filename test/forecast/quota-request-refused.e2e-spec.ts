/**
 * `fleet-audit quota request` after Quota Center refuses: seven dated dumps of the sample fleet (the checkout-gateway
 * CLB gains four backends a day) are stored, the simulator serves the last one with a reviewer that refuses. The
 * application is filed once and refused (exit 1, the reviewer's reason shown); later runs file nothing over the
 * standing refusal (outcome `refused-before`: a dry run says so and exits 0, `--apply` exits 1), until
 * `--retry-refused` files it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuotaRequestOutcome } from '@app/audit';
import type { WireFleet } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { Store } from '@app/store';
import { runCliInProcess } from '../cli/cli-run.util';
import { callRpc } from '../sim/sim-clients.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { storeDatedScans } from './dated-dumps.util';

const DAY0 = Date.parse('2026-11-10T00:00:00Z');
const NOW = '2026-11-16T12:00:00Z';
const ACCOUNT = '1234567890123456';
const CODE = 'slb_quota_backendservers_num';
const REASON = 'Please describe the business scenario.';

describe('quota request after a refusal (simulator and Postgres)', () => {
  let db: TestDatabase;
  let store: Store;
  let sim: RunningSimulator;
  let fleet: WireFleet;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url });
    fleet = await storeDatedScans(store, DAY0);
    sim = await startSimulator({ fleet });
  }, 300_000);

  afterAll(async () => {
    await sim?.close();
    await store?.close();
    await db?.release();
  });

  const reviewer = (decision: 'approve' | 'refuse') => {
    fleet.accounts.find((a) => a.account.accountId === ACCOUNT)!.account.quotaApplications = { decision, approvePercent: 100, ...(decision === 'refuse' ? { reason: REASON } : {}) };
  };

  async function request(...args: string[]): Promise<{ status: number; row: QuotaRequestOutcome | undefined; stderr: string }> {
    const r = await runCliInProcess(['quota', 'request', '--config', sim.configPath, '--database-url', db.url, '--now', NOW, '--format', 'json', ...args]);
    const outcomes = r.stdout ? (JSON.parse(r.stdout) as { outcomes: QuotaRequestOutcome[] }).outcomes : [];
    return { status: r.status ?? -1, stderr: r.stderr, row: outcomes.find((o) => o.quotaActionCode === CODE) };
  }

  const filedAtQuotaCenter = async () =>
    (await callRpc(sim, 'ListQuotaApplications', '2020-05-10', { ProductCode: 'slb', QuotaActionCode: CODE }, { inBody: true }))['QuotaApplications'] as Record<string, unknown>[];

  it('files once; the reviewer refuses: the run exits 1 with the reason, stored Disagree', async () => {
    reviewer('refuse');
    const r = await request('--apply');
    expect(r.status, r.stderr).toBe(1);
    expect(r.row).toMatchObject({ outcome: 'filed', application: { status: 'Disagree', auditReason: REASON } });
    expect(await filedAtQuotaCenter()).toHaveLength(1);
  }, 120_000);

  it('later runs file nothing over the standing refusal: a dry run says so (exit 0), --apply exits 1', async () => {
    const dry = await request();
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.row).toMatchObject({ outcome: 'refused-before', application: null });
    expect(dry.row!.message).toContain(`"${REASON}"`);
    expect(dry.row!.message).toContain('--retry-refused');
    const applied = await request('--apply');
    expect(applied.status, applied.stderr).toBe(1);
    expect(applied.row).toMatchObject({ outcome: 'refused-before' });
    expect(await filedAtQuotaCenter()).toHaveLength(1);
  }, 120_000);

  it('--retry-refused files it again; approved, the run exits 0', async () => {
    reviewer('approve');
    const r = await request('--apply', '--retry-refused');
    expect(r.status, r.stderr).toBe(0);
    expect(r.row).toMatchObject({ outcome: 'filed', application: { status: 'Agree' } });
    expect(await filedAtQuotaCenter()).toHaveLength(2);
    // Approved and held until a scan reads the new limit: nothing more to file, no refusal standing.
    const after = await request('--apply');
    expect(after.status, after.stderr).toBe(0);
    expect(after.row).toBeUndefined();
  }, 120_000);
});
