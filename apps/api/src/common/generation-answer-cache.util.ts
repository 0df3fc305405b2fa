import { LRUCache } from 'lru-cache';
import { scopeCacheKey, type ReadGenerations, type Scoped } from '@app/store';

/**
 * Largest total size of cached REST answers, in characters of their JSON (keys included; one byte each for the ASCII
 * JSON we send): under a tenth of what the Helm chart gives the API pod (512 MiB). The bench:scale fleet workload's
 * 16 pages of 100 NLBs with their server groups alone are 21 MB (1.3 MB each): with 16 MB they evicted each other
 * and the rest on every request.
 */
export const MAX_CACHED_REST_CHARS = 48_000_000;

/** What a cache fetch computes: the answer of the request that missed, as JSON text. */
interface FetchContext {
  run: () => Promise<string>;
}

/**
 * Whole answers of REST reads of a scan's stored fleet graph (at 5,000 clusters a CLB or ECS read
 * costs about 7 ms of CPU, mostly parsing rows, far above what a p95 of 50 ms at 20 concurrent clients allows),
 * kept under the findings generation (libs/store ReadGenerations) read before the answer is computed. A scan's graph
 * is written in the transaction that completes it and removed only with the scan or by retention's pruning, and
 * each of those bumps that generation, as does any change of the latest succeeded scan (the default scan of these
 * reads): an answer is never served after the data under it changed, on any replica (the listing counts' cache,
 * FleetGraphRepository.count, rests on the same rule).
 *
 * Answers are kept as the JSON text REST sends (`JSON.stringify`, as Express `res.json` writes it): a hit costs no
 * serialisation (an account's page of 100 NLBs with their server groups is 1.3 MB of JSON, 10-18 ms to stringify).
 * Key: (read name, its arguments, the principal's exact account and team scope, the generation); errors are not kept;
 * concurrent misses of one key share one computation.
 */
export class GenerationAnswerCache {
  private readonly answers = new LRUCache<string, string, FetchContext>({
    maxSize: MAX_CACHED_REST_CHARS,
    sizeCalculation: (value, key) => key.length + value.length,
    fetchMethod: (_key, _stale, { context }) => context.run(),
  });

  /** @param generations the store's read generations (read once per request) */
  constructor(private readonly generations: ReadGenerations) {}

  /**
   * The JSON text of read `name` with `args` for a principal of `scope`: the one kept under the current findings
   * generation, else that of `run()`'s answer (then kept).
   * @throws what `run` throws (nothing is kept then), or the driver's error when the generation cannot be read
   */
  async answer(name: string, args: unknown, scope: Scoped, run: () => Promise<object>): Promise<string> {
    const generation = await this.generations.current();
    const key = JSON.stringify([generation.findings, name, args ?? null, scopeCacheKey(scope)]);
    const text = await this.answers.fetch(key, { context: { run: async () => JSON.stringify(await run()) } });
    return text ?? JSON.stringify(await run());
  }

  /** What the cache holds: answers (count) and their counted size (characters, keys included). */
  get stats(): { entries: number; chars: number } {
    return { entries: this.answers.size, chars: this.answers.calculatedSize };
  }
}
