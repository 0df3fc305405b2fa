/**
 * Waivers of checks that do not exist are refused where they are written: by
 * `waiver add` (before any database is opened) and in a waivers file, with one line naming the nearest
 * catalogue id, exit 2; before, `CLB_BACKEND_QOTA` was accepted (exit 0) and only surfaced as "stale".
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, SAMPLE_FLEET } from './cli-run.util';

describe('waiver check ids (e2e)', { timeout: 120_000 }, () => {
  it('waiver add --check CLB_BACKEND_QOTA: one line with the nearest id, exit 2, no database touched', () => {
    const r = runCli(
      ['waiver', 'add', '--check', 'CLB_BACKEND_QOTA', '--account', '1234567890123456', '--resource', 'lb-1', '--owner', 'team', '--reason', 'accepted until the migration', '--category', 'accepted-risk'],
      // Nobody listens here: a command that opened it would exit 3, not 2.
      { DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none' },
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(['fleet-audit: error: --check: unknown check id "CLB_BACKEND_QOTA"; did you mean "CLB_BACKEND_QUOTA"?']);
  });

  it('a waivers file with an unknown check id: one line naming the file, the path and the nearest id, exit 2', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fa-waiver-ids-')), 'waivers.yaml');
    writeFileSync(
      file,
      ['waivers:', '  - checkId: CLB_BACKEND_QOTA', '    accountId: "1234567890123456"', '    resource: "*"', '    owner: team', '    reason: accepted until the migration', '    category: accepted-risk', '    expiresAt: 2026-07-01'].join('\n'),
    );
    const r = runCli(['scan', '--fleet', SAMPLE_FLEET, '--now', '2026-06-01T00:00:00Z', '--waivers', file, '--no-progress']);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${file}: $.waivers[0].checkId`);
    expect(lines[0]).toContain('did you mean "CLB_BACKEND_QUOTA"?');
  });
});
