/**
 * A few hundred bytes of nested YAML anchors ("billion laughs": each anchor aliases the previous one nine times)
 * must not stall a scan. Every YAML the product reads from a user goes through libs/domain `loadYaml(Documents)`,
 * which refuses a document whose aliases expand it past 10,000 nodes and 10 times the nodes written, naming the file
 * and the line of its first alias; `sanitizeDeep` walks each
 * shared object once. The bound tests time the same input at 10 and 100 levels: both answer within a bound
 * that holds at 10x the input (exponential growth would take 9^90 times longer at 100 levels).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSettings, loadWaiversFile } from '@app/audit';
import { FleetValidationError, loadFleetDirectory, loadScanConfig, ScanConfigError } from '@app/collectors';
import { dumpYaml, loadYaml, loadYamlDocuments, sanitizeDeep, YamlLoadError } from '@app/domain';
import { parseScenarioText, ScenarioError } from '@app/forecast';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const SERVICES = 'accounts/1987654321098765/regions/cn-hangzhou/clusters/c75849719d4432e7378507410f099fa74/kubernetes/services.yaml';
/** A generous bound for one load of the sample fleet on a loaded 2-core machine (it takes about 0.4 s alone). */
const BOUND_MS = 15_000;
/** What the loader says a document over the alias bound should have been. */
const BOUND = 'YAML whose aliases (*name) expand it to at most 10,000 nodes or 10 times the nodes written';

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
        `chain.yaml: $ (line 3): ${BOUND}`,
      );
      expect(ms, `${levels} levels`).toBeLessThan(BOUND_MS);
    }
  });

  it('keeps aliases a hand-written config uses (an anchor shared a few times)', () => {
    const text = 'owner: &o team-network\nwaivers:\n  - owner: *o\n  - owner: *o\n';
    expect(loadYaml(text, 'w.yaml')).toEqual({ owner: 'team-network', waivers: [{ owner: 'team-network' }, { owner: 'team-network' }] });
  });

  it('names the document and line of a syntax error, and refuses several documents where one is expected', () => {
    expect(() => loadYamlDocuments('a: 1\n---\nb: 1\nb: 2\n', 'two.yaml')).toThrow(/^two\.yaml: \$ \(document 2, line 4\): valid YAML \(duplicated mapping key\)$/);
    expect(() => loadYaml('a: 1\n---\nb: 1\n', 'one.yaml')).toThrow(/^one\.yaml: \$: valid YAML \(one document expected, got 2 \(separated by ---\)\)$/);
  });

  /**
   * A mapping `block` of `keys` entries (2 nodes each, plus the mapping) anchored once and aliased `uses` times from a
   * list, after `padding` plain entries: written nodes about 2 * keys + uses + 2 * padding, expanded nodes about
   * (uses + 1) * (2 * keys + 1) + 2 * padding.
   */
  function sharedBlock(keys: number, uses: number, padding = 0): string {
    const block = Array.from({ length: keys }, (_, i) => `  k${i}: v${i}`).join('\n');
    const pad = Array.from({ length: padding }, (_, i) => `p${i}: x`).join('\n');
    return `${pad ? `${pad}\n` : ''}block: &b\n${block}\nuses:\n${Array.from({ length: uses }, () => '  - *b').join('\n')}\n`;
  }

  it('keeps a document under 10,000 expanded nodes however often an anchor is used, and refuses one just over it', () => {
    // 50 keys: 101 nodes per copy. 97 uses + the anchor: 98 x 101 + 4 = 9,902 expanded nodes, 200 written.
    const under = loadYaml(sharedBlock(50, 97), 'under.yaml') as { uses: Record<string, string>[] };
    expect(under.uses).toHaveLength(97);
    expect(under.uses[96]!.k49).toBe('v49');
    // 99 uses: 100 x 101 + 4 = 10,104 expanded nodes, 204 written (ratio 49).
    expect(() => loadYaml(sharedBlock(50, 99), 'over.yaml')).toThrow(`over.yaml: $ (line 53): ${BOUND}`);
  });

  it('lets a large document expand up to 10 times the nodes it writes', () => {
    // 100 copies of a 101-node block (10,201 expanded) beside 1,000 plain entries: 12,205 expanded, 2,305 written (5.3x).
    expect(() => loadYaml(sharedBlock(50, 100, 1000), 'big.yaml')).not.toThrow();
    // 300 copies: 30,405 expanded against 2,505 written (12.1x): refused, naming the line of the first alias.
    expect(() => loadYaml(sharedBlock(50, 300, 1000), 'big.yaml')).toThrow(`big.yaml: $ (line 1053): ${BOUND}`);
  });

  it('bounds each document of a stream on its own and names the document', () => {
    const ok = sharedBlock(50, 50);
    expect(loadYamlDocuments(`${ok}---\n${ok}`, 'stream.yaml')).toHaveLength(2);
    expect(() => loadYamlDocuments(`${ok}---\n${sharedBlock(50, 120)}`, 'stream.yaml')).toThrow(`stream.yaml: $ (document 2, line ${ok.split('\n').length + 53}): ${BOUND}`);
  });

  it('names where a syntax error, an unknown alias and an unknown tag are', () => {
    expect(() => loadYaml('a:\n  b: [1, 2\n', 'flow.yaml')).toThrow(/^flow\.yaml: \$ \(line 3\): valid YAML \(.+\)$/);
    expect(() => loadYaml('a: 1\nb: *nope\n', 'alias.yaml')).toThrow('alias.yaml: $ (line 2): valid YAML (unidentified alias "nope")');
    expect(() => loadYaml('a: !Ref x\n', 'tag.yaml')).toThrow(/^tag\.yaml: \$ \(line 1\): valid YAML \(unknown scalar tag .*Ref.*\)$/);
    expect(() => loadYaml(`${'['.repeat(200)}${']'.repeat(200)}`, 'deep.yaml')).toThrow(/^deep\.yaml: \$ \(line 1\): valid YAML \(.+\)$/);
  });

  it('reads what the product writes (dumpYaml) back to the same value', () => {
    const value = { a: 'yes', b: '0123', c: 'x: y', d: ['', null, 1.5, true], e: { 'k.io/x': 'line1\nline2\n' }, f: 'long '.repeat(40) };
    const text = dumpYaml({ ...value, g: undefined });
    expect(loadYaml(text, 'round.yaml')).toEqual(value);
    expect(text.split('\n').some((l) => l.length > 200)).toBe(true);
    const shared = { k: 'v' };
    expect(dumpYaml({ x: shared, y: shared })).not.toMatch(/[&*]/);
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
        `${SERVICES}: $ (line ${aliasLine}): ${BOUND}`,
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
      expect((error as Error).message, name).toBe(`${path}: $ (line 3): ${BOUND}`);
    }
  });

  it('a scenario file', () => {
    const { error } = timed(() => parseScenarioText(`apiVersion: fleet-audit/v1\nkind: Scenario\nx:\n${aliasChain(12, 2)}`, 'grow.yaml'));
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toMatch(/^grow\.yaml: not valid YAML\/JSON: line 5, column \d+: aliases \(\*name\) expand it past 10,000 nodes or 10 times the nodes written/);
  });
});
