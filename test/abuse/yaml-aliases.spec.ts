/**
 * A few hundred bytes of nested YAML anchors ("billion laughs": each anchor aliases the previous one nine times)
 * must not stall a scan. Every YAML the product reads from a user goes through libs/domain `loadYaml(Documents)`,
 * which refuses an alias expansion past MAX_YAML_ALIAS_COUNT naming the file and the line; `sanitizeDeep` walks each
 * shared object once. The bound tests time the same input at 10 and 100 levels: both answer within a bound
 * that holds at 10x the input (exponential growth would take 9^90 times longer at 100 levels).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSettings, loadWaiversFile } from '@app/audit';
import { FleetValidationError, loadFleetDirectory, loadScanConfig, ScanConfigError } from '@app/collectors';
import { loadYaml, loadYamlDocuments, MAX_YAML_ALIAS_COUNT, sanitizeDeep, YamlLoadError } from '@app/domain';
import { parseScenarioText, ScenarioError } from '@app/forecast';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const SERVICES = 'accounts/1987654321098765/regions/cn-hangzhou/clusters/c75849719d4432e7378507410f099fa74/kubernetes/services.yaml';
/** A generous bound for one load of the sample fleet on a loaded 2-core machine (it takes about 0.4 s alone). */
const BOUND_MS = 15_000;

/**
 * `levels` anchors, each a list of nine aliases of the previous one, indented by `indent` spaces as mapping
 * entries: 9^levels strings once expanded, about 60 bytes of text per level.
 */
function aliasChain(levels: number, indent: number): string {
  const pad = ' '.repeat(indent);
  const lines = [`${pad}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]`];
  for (let i = 1; i < levels; i += 1) lines.push(`${pad}a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

/** Milliseconds `fn` takes (it may throw: the error is returned with the time). */
function timed(fn: () => unknown): { ms: number; error: unknown } {
  const start = performance.now();
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  return { ms: performance.now() - start, error };
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'yaml-aliases-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the YAML loader bounds alias expansion', () => {
  it('refuses a chain of 10 and of 100 levels quickly, naming the source and the first alias line', () => {
    for (const levels of [10, 100]) {
      const { ms, error } = timed(() => loadYamlDocuments(`kind: x\n${aliasChain(levels, 0)}`, 'chain.yaml'));
      expect(error, `${levels} levels`).toBeInstanceOf(YamlLoadError);
      expect((error as Error).message).toBe(
        `chain.yaml: $ (line 3): YAML whose aliases (*name) expand at most ${MAX_YAML_ALIAS_COUNT} times (uses of an anchor times the aliases nested in it)`,
      );
      expect(ms, `${levels} levels`).toBeLessThan(BOUND_MS);
    }
  });

  it('keeps aliases a hand-written config uses (an anchor shared a few times)', () => {
    const text = 'owner: &o team-network\nwaivers:\n  - owner: *o\n  - owner: *o\n';
    expect(loadYaml(text, 'w.yaml')).toEqual({ owner: 'team-network', waivers: [{ owner: 'team-network' }, { owner: 'team-network' }] });
  });

  it('names the document and line of a syntax error, and refuses several documents where one is expected', () => {
    expect(() => loadYamlDocuments('a: 1\n---\nb: 1\nb: 2\n', 'two.yaml')).toThrow(/^two\.yaml: \$ \(document 2, line 4\): valid YAML \(Map keys must be unique\)$/);
    expect(() => loadYaml('a: 1\n---\nb: 1\n', 'one.yaml')).toThrow(/^one\.yaml: \$: valid YAML \(one document expected, got 2 \(separated by ---\)\)$/);
  });
});

describe('sanitizeDeep walks each shared object once', () => {
  /** `levels` arrays, each holding the previous one nine times: 9^levels paths to the innermost object. */
  function sharedChain(levels: number): unknown {
    let v: unknown = { name: 'nul\u0000here' };
    for (let i = 0; i < levels; i += 1) v = Array.from({ length: 9 }, () => v);
    return v;
  }

  it('is linear in the distinct objects at 10 and 100 levels, and fixes the shared text once for every path', () => {
    for (const levels of [10, 100]) {
      const value = sharedChain(levels);
      const { ms, error } = timed(() => sanitizeDeep(value));
      expect(error).toBeUndefined();
      expect(ms, `${levels} levels`).toBeLessThan(BOUND_MS);
      let inner: unknown = value;
      for (let i = 0; i < levels; i += 1) inner = (inner as unknown[])[8];
      expect(inner).toEqual({ name: 'nul\u2400here' });
    }
  });
});

describe('every YAML file the product reads refuses the chain, naming the file', () => {
  it('a fleet directory (kubernetes/services.yaml, under managedFields): at 10 and 100 levels, within the bound', () => {
    for (const levels of [10, 100]) {
      const dir = join(work, `fleet-${levels}`);
      cpSync(SAMPLE, dir, { recursive: true });
      const file = join(dir, ...SERVICES.split('/'));
      const text = readFileSync(file, 'utf8');
      const at = text.indexOf('    metadata:\n') + '    metadata:\n'.length;
      writeFileSync(file, `${text.slice(0, at)}      managedFields:\n        - manager: probe\n${aliasChain(levels, 10)}${text.slice(at)}`);
      const aliasLine = text.slice(0, at).split('\n').length + 3; // managedFields, manager, a0, then a1 (the first alias)
      const { ms, error } = timed(() => loadFleetDirectory(dir));
      expect(error, `${levels} levels`).toBeInstanceOf(FleetValidationError);
      expect((error as Error).message).toBe(
        `${SERVICES}: $ (line ${aliasLine}): YAML whose aliases (*name) expand at most ${MAX_YAML_ALIAS_COUNT} times (uses of an anchor times the aliases nested in it)`,
      );
      expect(ms, `${levels} levels`).toBeLessThan(BOUND_MS);
    }
  });

  it('a scan config, an audit settings file and a waivers file', () => {
    const files = { 'scan.yaml': loadScanConfig, 'settings.yaml': loadAuditSettings, 'waivers.yaml': (p: string) => loadWaiversFile(p) };
    for (const [name, load] of Object.entries(files)) {
      const path = join(work, name);
      writeFileSync(path, `x:\n${aliasChain(12, 2)}`);
      const { error } = timed(() => load(path));
      expect(error, name).toBeInstanceOf(ScanConfigError);
      expect((error as Error).message, name).toBe(`${path}: $ (line 3): YAML whose aliases (*name) expand at most ${MAX_YAML_ALIAS_COUNT} times (uses of an anchor times the aliases nested in it)`);
    }
  });

  it('a scenario file', () => {
    const { error } = timed(() => parseScenarioText(`apiVersion: fleet-audit/v1\nkind: Scenario\nx:\n${aliasChain(12, 2)}`, 'grow.yaml'));
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toMatch(/^grow\.yaml: not valid YAML\/JSON: line 5, column \d+: aliases \(\*name\) expand more than 100 times/);
  });
});
