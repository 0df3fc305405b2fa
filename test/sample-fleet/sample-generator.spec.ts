/**
 * The sample fleet generator (examples/fleets/sample/generator) and the committed sample never drift:
 * the generator, run into a temporary directory, writes exactly the committed `fleet.yaml`,
 * `accounts/**` and `ids.json`, byte for byte, and nothing else.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSampleFleet } from '../../examples/fleets/sample/generator/generate';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

/** Every file under `dir`, relative to `root`, sorted. */
function filesUnder(root: string, dir = root): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(root, path) : [relative(root, path)];
    })
    .sort();
}

describe('sample fleet generator', () => {
  let out: string;
  let written: string[];
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'sample-fleet-'));
    written = generateSampleFleet(out);
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('writes the committed fleet files and no others', () => {
    const committed = [...filesUnder(join(SAMPLE, 'accounts')).map((f) => join('accounts', f)), 'fleet.yaml', 'ids.json'].sort();
    expect(filesUnder(out)).toEqual(committed);
    expect([...written].sort()).toEqual(committed);
  });

  it('writes every file byte-identical to the committed one', () => {
    const differing = written.filter((rel) => !readFileSync(join(out, rel)).equals(readFileSync(join(SAMPLE, rel))));
    // On failure: regenerate with `npm run fleet:sample` if the generator change was intended.
    expect(differing).toEqual([]);
  });
});
