/**
 * The module-state rule of eslint.config.mjs (`noModuleState`, `no-restricted-syntax` selectors on libs/domain,
 * libs/checks and libs/forecast): each form of module-level mutable state fails, read-only constants built at load
 * pass, and the rule stays inside the pure libs. Runs ESLint's Node API with the project's own config on snippets
 * placed (by `filePath`, never written) in those folders.
 */
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
let eslint: ESLint;

/** The module-state messages ESLint reports for `code` as if it were the file `filePath` (other rules ignored). */
async function moduleState(code: string, filePath = 'libs/domain/src/snippet.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

describe('module-level mutable state in the pure libs (eslint.config.mjs noModuleState)', () => {
  it.each([
    ['a module-scope let', 'let calls = 0;\nexport function f() { return ++calls; }'],
    ['an exported let', 'export let last = "";'],
    ['a module-scope var', 'var seen = 0;\nexport function f() { return seen; }'],
    ['a WeakMap cache', 'const memo = new WeakMap<object, number>();\nexport function f(o: object) { return memo.get(o); }'],
    ['a WeakSet', 'export const seen = new WeakSet<object>();'],
    ['a typed-array scratch buffer', 'const buf = new Float64Array(2048);\nexport function f() { return buf[0]; }'],
    ['an Array', 'export const slots = new Array<number>(4);'],
    ['a Map cache', 'const cache = new Map<string, number>();\nexport function f(k: string) { return cache.get(k); }'],
    ['a Map under `as`', 'export const cache = new Map<string, number>() as Map<string, number>;'],
    ['an exported Set', 'export const ids = new Set<string>();'],
    ['an object literal', 'export const SETTINGS = { ratio: 0.8 };'],
    ['an object literal with a mutable type', 'interface S { ratio: number }\nexport const SETTINGS: S = { ratio: 0.8 };'],
    ['an array literal', 'export const KINDS = ["clb", "nlb"];'],
    ['an array literal with a mutable type', 'export const KINDS: string[] = ["clb", "nlb"];'],
    ['a literal under `satisfies` only', 'export const T = { a: 1 } satisfies Record<string, number>;'],
    ['`as const` under a mutable annotation', 'export const T: { a: number } = { a: 1 } as const;'],
    ['an immediately invoked function', 'export const lookup = (() => { const c = new Map<string, number>(); return (k: string) => c.get(k); })();'],
    ['a static mutable field', 'export class Counter { static count = 0; }'],
    ['a static readonly Map', 'export class Registry { static readonly all = new Map<string, number>(); }'],
  ])('fails on %s', async (_name, code) => {
    const messages = await moduleState(code);
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(m).toMatch(/^module-level mutable state in a pure lib/);
  });

  it.each([
    ['a frozen object', 'export const T = Object.freeze({ a: 1 });'],
    ['an `as const` object', 'export const T = { a: 1, b: ["x"] } as const;'],
    ['`as const satisfies`', 'export const T = { a: 1 } as const satisfies Record<string, number>;'],
    ['a Readonly<...> object', 'interface S { ratio: number }\nexport const DEFAULTS: Readonly<S> = { ratio: 0.8 };'],
    ['a readonly array', 'export const KINDS: readonly string[] = ["clb", "nlb"];'],
    ['a ReadonlyArray', 'export const KINDS: ReadonlyArray<string> = ["clb", "nlb"];'],
    ['a table built once, typed ReadonlyMap', 'const ROWS = [["a", 1]] as const;\nexport const BY_KEY: ReadonlyMap<string, number> = new Map(ROWS);'],
    ['a ReadonlySet', 'export const PORTS: ReadonlySet<number> = new Set([443, 8443]);'],
    ['state inside a function', 'export function f(xs: number[]) { let n = 0; const seen = new Set<number>(); for (const x of xs) if (!seen.has(x)) { seen.add(x); n++; } return n; }'],
    ['state on an instance', 'export class Index { private readonly cache = new Map<string, number>(); get(k: string) { return this.cache.get(k); } }'],
    ['a static readonly constant', 'export class Names { static readonly PREFIX = "k8s"; }'],
    ['a primitive constant', 'export const LIMIT = 1000;'],
  ])('passes on %s', async (_name, code) => {
    expect(await moduleState(code)).toEqual([]);
  });

  it('applies to libs/checks and libs/forecast too, and not to other libs, specs or tests', async () => {
    const cache = 'const cache = new WeakMap<object, number>();\nexport function f(o: object) { return cache.get(o); }';
    expect(await moduleState(cache, 'libs/checks/src/rules/snippet.rule.ts')).toHaveLength(1);
    expect(await moduleState(cache, 'libs/forecast/src/snippet.ts')).toHaveLength(1);
    expect(await moduleState(cache, 'libs/store/src/snippet.ts')).toEqual([]);
    expect(await moduleState(cache, 'libs/domain/src/snippet.spec.ts')).toEqual([]);
    expect(await moduleState(cache, 'libs/domain/test/snippet.ts')).toEqual([]);
  });
});
