/**
 * Test file order for the one vitest run of both projects: within each project, the files that take longest start
 * first (longest-processing-time-first scheduling), so the last minutes of a run are short files filling the gaps
 * rather than one long file started late running alone. Vitest's own order needs its results cache, which a clean
 * clone (CI) does not have: without it the files run in discovery order and a long end-to-end file can start in the
 * last minutes (a full run on the 2-core machine: 654 s as discovered, 477 s as the same durations packed longest
 * first onto the four workers).
 *
 * The weights are test/file-weights.json (file -> seconds of one full run, hooks included: `npm run test:weights` after
 * the run, from vitest's results cache). A file that table does not know yet runs first, by vitest's cached duration
 * when there is one: a new file may be long. Projects stay in one block each, integration first, because vitest
 * reuses a worker only for the next file of the same project (a file of the other project in between stops it and
 * starts a new one, whose module graph is imported again).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** test/file-weights.json: `{ "<project>:<path from the root>": seconds }`. */
type Weights = Record<string, number>;

/** The weight table, or an empty one when it is missing or not JSON (the order then falls back to the cache). */
function readWeights(path: URL): Weights {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Weights;
  } catch {
    return {};
  }
}

/** Orders each project's files longest first by test/file-weights.json, unknown files before all (see the module doc). */
export class WeightSequencer extends BaseSequencer {
  private readonly weights = readWeights(new URL('../file-weights.json', import.meta.url));

  /**
   * Seconds a file is expected to take: its entry in the table; for a file not in it, Infinity (first), ordered
   * among the unknown by vitest's cached duration in seconds when there is one.
   */
  private weightOf(spec: TestSpecification): [number, number] {
    const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
    const known = this.weights[key];
    if (known !== undefined) return [known, 0];
    const cached = this.ctx.cache.getFileTestResults(key)?.duration;
    return [Number.POSITIVE_INFINITY, (cached ?? Number.POSITIVE_INFINITY) / 1000];
  }

  /** Integration files before unit files (project name order), each project longest first. */
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const keyed = files.map((spec) => ({ spec, weight: this.weightOf(spec) }));
    keyed.sort((a, b) => {
      if (a.spec.project.name !== b.spec.project.name) return a.spec.project.name < b.spec.project.name ? -1 : 1;
      return b.weight[0] - a.weight[0] || b.weight[1] - a.weight[1] || (a.spec.moduleId < b.spec.moduleId ? -1 : 1);
    });
    return keyed.map((k) => k.spec);
  }
}
