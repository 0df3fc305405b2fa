/**
 * No import cycle in the repository's TypeScript (apps, libs, tests, benches, examples), type-only imports included:
 * a cycle, even of types, means a type or function lives in the wrong file (the file that owns it is the one the
 * others import). The graph comes from dpdm (`parseDependencyTree` with the root tsconfig, so `@app/*` paths resolve
 * to their files; `transform: false` keeps type-only imports), the cycles from its `parseCircular`.
 * The same check from a shell: `npx dpdm --tsconfig tsconfig.json --no-tree --no-warning -T false 'apps/**\/*.ts' ...`.
 */
import { describe, expect, it } from 'vitest';
import { parseCircular, parseDependencyTree, prettyCircular } from 'dpdm';
import { join } from 'node:path';

const root = join(__dirname, '..', '..') + '/';

describe('import cycles', () => {
  it('the import graph of apps, libs, test, bench and examples has none (type-only imports count)', async () => {
    const tree = await parseDependencyTree(['apps/**/*.ts', 'libs/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'], {
      cwd: root,
      context: root,
      tsconfig: `${root}tsconfig.json`,
      transform: false,
      skipDynamicImports: false,
    });
    const files = Object.keys(tree).filter((f) => !f.includes('node_modules'));
    // The graph is the repository's, not an empty one (a wrong cwd or glob finds nothing and so no cycle).
    expect(files.filter((f) => f.startsWith('libs/checks/src/')).length).toBeGreaterThan(20);
    const cycles = parseCircular(tree);
    expect(cycles, `import cycles:\n${prettyCircular(cycles)}`).toEqual([]);
  });
});
