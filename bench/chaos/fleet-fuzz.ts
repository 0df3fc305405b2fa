/**
 * Fuzzed fleets (part of the fault suite): take a fleet directory, apply random mutations with
 * fast-check (seeded; the failing seed is printed by the caller), scan it offline in this process,
 * and say how the scan ended. Allowed endings: `ok` / `findings` (exit 0 / 1) or `invalid-input`
 * (exit 2, one line naming the file). Anything else is a `crash`.
 *
 * Mutations: delete a file; replace a JSON value at a random path with an arbitrary JSON value
 * (wrong types, huge numbers, NUL and lone surrogates in strings); truncate a file; append garbage
 * bytes; put a NUL / lone surrogate into a YAML scalar.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { runScan } from '@app/audit';

/** One change to one file of the fleet (paths relative to the fleet root). */
export type FleetMutation =
  | { kind: 'delete'; file: number }
  | { kind: 'json-value'; file: number; pick: number; value: unknown }
  | { kind: 'truncate'; file: number; keep: number }
  | { kind: 'garbage'; file: number; bytes: number[] }
  | { kind: 'odd-text'; file: number; text: string };

/** How a fuzzed scan ended. */
export type FuzzEnding = 'ok' | 'findings' | 'invalid-input' | 'crash';

/** Every regular file of a fleet directory, relative, sorted. */
export function fleetFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir).sort()) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(json|ya?ml)$/.test(e)) out.push(relative(root, p));
    }
  };
  walk(root);
  return out;
}

const oddString = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDC00', '\uFFFF', '', ' ', '-1', '1e309', 'lb-\u0000'),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  fc.constantFrom(null, true, -1, 0, 1e308, Number.MAX_SAFE_INTEGER + 2, 2.5, [], {}),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Mutations of a fleet with `fileCount` files (1 to 3 per case). */
export function fleetMutationsArb(fileCount: number): fc.Arbitrary<FleetMutation[]> {
  const file = fc.nat({ max: fileCount - 1 });
  const one: fc.Arbitrary<FleetMutation> = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), file }),
    fc.record({ kind: fc.constant('json-value' as const), file, pick: fc.nat({ max: 10_000 }), value: oddValue }),
    fc.record({ kind: fc.constant('truncate' as const), file, keep: fc.nat({ max: 4_000 }) }),
    fc.record({ kind: fc.constant('garbage' as const), file, bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 16 }) }),
    fc.record({ kind: fc.constant('odd-text' as const), file, text: oddString }),
  );
  return fc.array(one, { minLength: 1, maxLength: 3 });
}

/** Replace the `pick`-th (mod count) value of a parsed JSON document with `value`. */
function replaceJsonValue(doc: unknown, pick: number, value: unknown): unknown {
  const slots: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        slots.push({ parent: v, key: i });
        walk(x);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        slots.push({ parent: v as Record<string, unknown>, key: k });
        walk(x);
      }
    }
  };
  walk(doc);
  if (slots.length === 0) return value;
  const s = slots[pick % slots.length];
  (s.parent as Record<string | number, unknown>)[s.key] = value;
  return doc;
}

/** Apply mutations to a copy's files (in place). */
export function applyMutations(root: string, files: string[], mutations: FleetMutation[]): void {
  for (const m of mutations) {
    const p = join(root, files[m.file]);
    let text: string;
    try {
      text = readFileSync(p, 'utf8');
    } catch {
      continue; // deleted by an earlier mutation
    }
    switch (m.kind) {
      case 'delete':
        unlinkSync(p);
        break;
      case 'json-value':
        if (p.endsWith('.json')) {
          try {
            writeFileSync(p, JSON.stringify(replaceJsonValue(JSON.parse(text), m.pick, m.value)));
          } catch {
            // not JSON any more (an earlier mutation): leave it
          }
        }
        break;
      case 'truncate':
        writeFileSync(p, text.slice(0, Math.min(m.keep, text.length)));
        break;
      case 'garbage':
        writeFileSync(p, Buffer.concat([Buffer.from(text), Buffer.from(m.bytes)]));
        break;
      case 'odd-text':
        writeFileSync(p, p.endsWith('.json') ? text.replace(/"([A-Za-z][^"\\]{0,40})"/, (_, s: string) => JSON.stringify(s + m.text)) : text.replace(/: ([A-Za-z][\w.-]*)\n/, (_, s: string) => `: ${JSON.stringify(s + m.text)}\n`));
        break;
    }
  }
}

/**
 * Scan a fleet directory offline (no store) and classify the ending.
 * @returns the ending and, for `invalid-input` and `crash`, the one line a user would see
 */
export async function scanEnding(fleetDir: string): Promise<{ ending: FuzzEnding; line?: string }> {
  try {
    const out = await runScan({ source: { kind: 'offline', fleetDir }, now: new Date('2026-11-22T00:00:00Z') });
    return { ending: out.findings.length > 0 ? 'findings' : 'ok' };
  } catch (e) {
    if (e instanceof Error && e.name === 'FleetValidationError') {
      const f = e as Error & { file: string; jsonPath: string; expected: string };
      const line = `invalid fleet directory: ${f.file}: ${f.jsonPath}: expected ${f.expected.replace(/^expected /, '')}`;
      // One line naming the file: anything else is a crash for this suite.
      if (line.includes('\n') || !f.file) return { ending: 'crash', line };
      return { ending: 'invalid-input', line };
    }
    return { ending: 'crash', line: e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : String(e) };
  }
}

/** Result of {@link fuzzFleets}. */
export interface FuzzSummary {
  seed: number;
  cases: number;
  endings: Record<FuzzEnding, number>;
  /** The first crash, with its seed and path for `fc.assert` replay. */
  failure?: { seed: number; path?: string; line?: string; mutations: string };
}

/**
 * Run `runs` fuzz cases over copies of `sampleDir` (seeded). Never throws on a crash: the summary
 * says which case crashed, with the seed to replay.
 */
export async function fuzzFleets(sampleDir: string, runs: number, seed: number): Promise<FuzzSummary> {
  const files = fleetFiles(sampleDir);
  const endings: Record<FuzzEnding, number> = { ok: 0, findings: 0, 'invalid-input': 0, crash: 0 };
  let firstCrash: FuzzSummary['failure'];
  const result = await fc.check(
    fc.asyncProperty(fleetMutationsArb(files.length), async (mutations) => {
      const dir = mkdtempSync(join(tmpdir(), 'fleet-fuzz-'));
      try {
        cpSync(sampleDir, dir, { recursive: true });
        applyMutations(dir, files, mutations);
        const { ending, line } = await scanEnding(dir);
        endings[ending] += 1;
        if (ending === 'crash') {
          firstCrash ??= { seed, ...(line ? { line } : {}), mutations: JSON.stringify(mutations).slice(0, 500) };
          return false;
        }
        return true;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
  const failure = result.failed ? { ...(firstCrash ?? { mutations: String(result.counterexample) }), seed, path: result.counterexamplePath ?? undefined } : undefined;
  return { seed, cases: result.numRuns, endings, ...(failure ? { failure: failure as FuzzSummary['failure'] } : {}) };
}
