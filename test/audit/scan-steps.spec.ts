/**
 * The one scan path (`startScan` / `runScan`, scan-runner.ts `scanSteps`) without a database: the outcome handed out
 * once analyzed is the one the scan resolves with; a scan handed over to another process (`ScanHandOver`, what the
 * queued launcher's child answers its parent) takes the same steps and leaves what completing the scan writes, with
 * the fleet graph; a malformed fleet rejects both promises.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScan, ScanHandOver, startScan } from '@app/audit';

const SAMPLE = join(__dirname, '../../examples/fleets/sample');
const NOW = new Date('2026-06-01T00:00:00Z');

describe('startScan without a database', () => {
  it('hands out the outcome once analyzed, the same one the scan resolves with', async () => {
    const progress: string[] = [];
    const scan = startScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW, observedAt: NOW, onProgress: (p) => progress.push(`${p.phase}:${p.done}`) });
    const analyzed = await scan.analyzed;
    expect(await scan.stored).toBe(analyzed);
    expect(analyzed.scan).toMatchObject({ status: 'succeeded', source: 'offline', startedAt: NOW.toISOString() });
    // Collect, then analyze; no store step without a store.
    expect(progress).toEqual(['collect:0', 'collect:1', 'analyze:0', 'analyze:1']);
  });

  it('hands a scan over: the same findings, and what completing it writes with its fleet graph', async () => {
    const alone = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW, observedAt: NOW });
    const handOver = new ScanHandOver();
    const progress: string[] = [];
    const o = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW, observedAt: NOW, scanId: 'row-of-the-parent', onProgress: (p) => progress.push(`${p.phase}:${p.done}`) }, handOver);
    expect(o.scan.id).toBe('row-of-the-parent');
    expect(o.findings.map((f) => f.fingerprint)).toEqual(alone.findings.map((f) => f.fingerprint));
    expect(handOver.complete?.findings.map((f) => f.fingerprint)).toEqual(o.findings.map((f) => f.fingerprint));
    expect(handOver.complete?.summary).toEqual(o.scan.summary);
    expect(handOver.complete?.graph).toBeDefined();
    expect(handOver.complete?.snapshot?.name).toBe(o.scan.fleetName);
    expect(progress).toEqual(['collect:0', 'collect:1', 'analyze:0', 'analyze:1', 'store:0', 'store:1']);
  });

  it('rejects both promises for a malformed fleet directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-audit-steps-'));
    try {
      writeFileSync(join(dir, 'fleet.yaml'), 'name: [unclosed\n');
      const scan = startScan({ source: { kind: 'offline', fleetDir: dir }, now: NOW });
      await expect(scan.analyzed).rejects.toThrow();
      await expect(scan.stored).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
