import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import { runAudit } from '@app/checks';
import { loadAuditSettings, parseAuditSettings } from './audit-settings.loader';

const SAMPLE = join(__dirname, '../../../examples/fleets/sample');

/** The error a parse throws, for assertions on its fields. */
function errorOf(text: string, file = 'settings.yaml'): { name: string; file: string; jsonPath: string; expected: string } {
  try {
    parseAuditSettings(text, file);
  } catch (e) {
    return e as { name: string; file: string; jsonPath: string; expected: string };
  }
  throw new Error('expected parseAuditSettings to throw');
}

describe('audit settings file', () => {
  it('reads thresholds and per-check settings from YAML and JSON alike', () => {
    const yaml = parseAuditSettings(
      'quota: { warningRatio: 0.7 }\nccmScale:\n  maxLoadBalancerServices: 40\nchecks:\n  LB_ORPHANED: { severity: critical }\n  SERVICE_NO_CONNECTION_DRAIN: { enabled: false }\n',
      'a.yaml',
    );
    expect(yaml).toEqual({
      quota: { warningRatio: 0.7 },
      ccmScale: { maxLoadBalancerServices: 40 },
      checks: { LB_ORPHANED: { severity: 'critical' }, SERVICE_NO_CONNECTION_DRAIN: { enabled: false } },
    });
    expect(parseAuditSettings(JSON.stringify(yaml), 'a.json')).toEqual(yaml);
  });

  it.each([
    ['an unknown top-level key (typo)', 'ccmscale: { maxBackends: 5 }\n', '$', /unknown key/],
    ['an unknown nested key', 'quota: { warning: 0.7 }\n', '$.quota', /unknown key\(s\) warning/],
    ['a wrong type', 'ccmScale: { maxBackends: "many" }\n', '$.ccmScale.maxBackends', /expected number, got string/],
    ['a ratio above 1', 'quota: { criticalRatio: 1.5 }\n', '$.quota.criticalRatio', /1/],
    ['a fractional count', 'vSwitchIps: { warningFreeIps: 2.5 }\n', '$.vSwitchIps.warningFreeIps', /expected an integer, got 2.5/],
    ['warning above critical', 'quota: { warningRatio: 0.9, criticalRatio: 0.85 }\n', '$.quota.warningRatio', /must not exceed quota.criticalRatio/],
    ['critical free IPs above warning', 'vSwitchIps: { warningFreeIps: 4, criticalFreeIps: 8 }\n', '$.vSwitchIps.criticalFreeIps', /must not exceed/],
    ['an unknown check id', 'checks: { LB_ORPHANS: { enabled: false } }\n', '$.checks.LB_ORPHANS', /unknown check id/],
    ['a bad severity', 'checks: { LB_ORPHANED: { severity: high } }\n', '$.checks.LB_ORPHANED.severity', /info|warning|critical/],
    ['a version that is not a CCM version', 'ccm: { ramTargetVersion: latest }\n', '$.ccm.ramTargetVersion', /not a CCM version/],
    ['broken YAML', 'quota: [\n', '$ (line', /valid YAML/],
    ['an empty file', '', '$', /an audit settings object/],
  ])('rejects %s, naming the file and the JSON path', (_what, text, path, expected) => {
    const e = errorOf(text);
    expect(e.name).toBe('ScanConfigError');
    expect(e.file).toBe('settings.yaml');
    expect(e.jsonPath.startsWith(path)).toBe(true);
    expect(e.expected).toMatch(expected);
  });

  it('rejects strict-JSON errors in a .json file', () => {
    const e = errorOf('{"quota": {', 'a.json');
    expect(e.jsonPath).toBe('$');
    expect(e.expected).toMatch(/valid JSON/);
  });

  it('names an unreadable file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-'));
    expect(() => loadAuditSettings(join(dir, 'missing.yaml'))).toThrow(/missing\.yaml: \$: a readable file \(ENOENT\)/);
    writeFileSync(join(dir, 'ok.yaml'), 'servicePending: { graceSeconds: 60 }\n');
    expect(loadAuditSettings(join(dir, 'ok.yaml'))).toEqual({ servicePending: { graceSeconds: 60 } });
  });

  it("the sample fleet's settings file is valid and turns CCM_LARGE_SCALE_RISK on for preview-envs only", () => {
    const settings = loadAuditSettings(join(SAMPLE, 'audit-settings.yaml'));
    const now = new Date('2026-11-22T00:00:00Z');
    const snapshot = loadFleetDirectory(SAMPLE);
    const withDefaults = runAudit(snapshot, { now }).findings.filter((f) => f.checkId === 'CCM_LARGE_SCALE_RISK');
    const withSample = runAudit(snapshot, { now, settings }).findings.filter((f) => f.checkId === 'CCM_LARGE_SCALE_RISK');
    expect(withDefaults).toEqual([]);
    expect(withSample.map((f) => f.resource.name)).toEqual(['preview-envs']);
  });
});
