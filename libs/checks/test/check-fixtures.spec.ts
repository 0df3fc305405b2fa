/**
 * Fixture-driven check tests (STYLE.md G.34): `test/fixtures/<CHECK_ID>/{pass,fail,skipped}.<case>.json`, and
 * `src/kinds/<kind>/fixtures/<CHECK_ID>/...` for the checks of a kind folder (check-fixture-folders.util.ts).
 * One spec walks the directories, so adding a file adds a case. Run one check with
 * `CHECK=LB_ORPHANED npx vitest run libs/checks/test/check-fixtures.spec.ts` (`RULE=` works too).
 *
 * File format: `{ "description", "settings"?, "expect"?: { "failures": [{ resourceId, severity?, used?, limit? }] },
 * "snapshot": FleetSnapshot }`. The file name's prefix is the expected outcome for the check:
 * - `pass.*`: at least one result, all `pass`;
 * - `fail.*`: at least one `fail` (exactly the `expect.failures` resources when given);
 * - `skipped.*`: at least one `skipped` with a reason, no `fail`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FleetSnapshot, Severity } from '@app/domain';
import { CHECKS, getCheck, runAudit, type PartialAuditSettings } from '@app/checks';
import { checkFixtureFolders } from './check-fixture-folders.util';
import { FROZEN_NOW } from './factories';

interface FixtureFile {
  description: string;
  settings?: PartialAuditSettings;
  expect?: { failures?: { resourceId: string; severity?: Severity; used?: number; limit?: number }[] };
  snapshot: FleetSnapshot;
}

const only = process.env['CHECK'] ?? process.env['RULE'];
const folders = checkFixtureFolders();
const dirs = folders.map((f) => f.checkId);
const DIR_OF: ReadonlyMap<string, string> = new Map(folders.map((f) => [f.checkId, f.dir]));

/** Runs the audit with only `checkId` enabled. */
function runOnly(checkId: string, doc: FixtureFile) {
  const checks: NonNullable<PartialAuditSettings['checks']> = { ...doc.settings?.checks };
  for (const c of CHECKS) if (c.id !== checkId) checks[c.id] = { enabled: false };
  return runAudit(doc.snapshot, { now: FROZEN_NOW, settings: { ...doc.settings, checks } });
}

describe('check fixtures', () => {
  it('has a fixture folder per registered check, each with pass, fail and skipped cases, and no stray folders', () => {
    expect(dirs).toEqual(CHECKS.map((c) => c.id).sort());
    for (const id of dirs) {
      const files = readdirSync(DIR_OF.get(id)!);
      expect(
        files.some((f) => f.startsWith('pass.')),
        `${id} has a pass fixture`,
      ).toBe(true);
      expect(
        files.some((f) => f.startsWith('fail.')),
        `${id} has a fail fixture`,
      ).toBe(true);
      expect(
        files.some((f) => f.startsWith('skipped.')),
        `${id} has a skipped fixture (data not read is never a silent pass)`,
      ).toBe(true);
      for (const f of files)
        expect(f, `${id}/${f} is named {pass,fail,skipped}.<case>.json`).toMatch(
          /^(pass|fail|skipped)\.[a-z0-9-]+\.json$/,
        );
    }
  });

  for (const checkId of dirs.filter((d) => !only || d === only)) {
    describe(checkId, () => {
      const files = readdirSync(DIR_OF.get(checkId)!).sort();
      for (const file of files) {
        const outcome = file.split('.')[0] as 'pass' | 'fail' | 'skipped';
        const doc = JSON.parse(readFileSync(join(DIR_OF.get(checkId)!, file), 'utf8')) as FixtureFile;
        it(`${file}: ${doc.description}`, () => {
          expect(getCheck(checkId)).toBeDefined();
          const { results, findings, counts } = runOnly(checkId, doc);
          expect(results.every((r) => r.checkId === checkId)).toBe(true);
          expect(results.length).toBeGreaterThan(0);
          if (outcome === 'pass') {
            expect(results.filter((r) => r.status !== 'pass')).toEqual([]);
            expect(findings).toEqual([]);
          } else if (outcome === 'skipped') {
            const skipped = results.filter((r) => r.status === 'skipped');
            expect(skipped.length).toBeGreaterThan(0);
            expect(results.filter((r) => r.status === 'fail')).toEqual([]);
            for (const s of skipped) expect(s.reason).toBeTruthy();
          } else {
            const failed = results.filter((r) => r.status === 'fail');
            expect(failed.length).toBeGreaterThan(0);
            expect(findings).toHaveLength(failed.length);
            const want = doc.expect?.failures;
            if (want) {
              expect(failed.map((r) => r.resource.id).sort()).toEqual(want.map((w) => w.resourceId).sort());
              for (const w of want) {
                const f = findings.find((x) => x.resource.id === w.resourceId);
                if (w.severity) expect(f?.severity).toBe(w.severity);
                if (w.used !== undefined) expect(f?.used).toBe(w.used);
                if (w.limit !== undefined) expect(f?.limit).toBe(w.limit);
              }
            }
            for (const f of findings) {
              expect(f.fingerprint).toMatch(/^[0-9a-f]{32}$/);
              expect(f.remediation).toBe(getCheck(checkId)?.remediation);
            }
          }
          // Deterministic: the same input gives the same output.
          expect(runOnly(checkId, doc)).toEqual({ results, findings, counts });
        });
      }
    });
  }
});
