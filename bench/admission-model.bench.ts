/**
 * `npm run bench:admission-model [-- --reviews N --models M --against DIR]`: the admission review model's CPU per
 * review in this process (libs/forecast cluster-review.model.ts; no HTTP, no threads), the part of bench:admission's
 * API CPU that the review threads spend. The fleet is one account and region of the 1M-backend bench fleet's shape (50
 * clusters of 100 nodes and 22 LoadBalancer Services: `millionBackendSpec` with one account, the size of each of the
 * bench fleet's regions); M models (default 2) are built, then N reviews (default 400) of new Services (the same
 * Services bench:admission posts: 1 to 3 ports, Cluster or Local mode) are spread over them. Prints the build time, CPU
 * ms per review (process.cpuUsage, this thread alone), how the reviews were answered (Service checks on the Service
 * alone or the whole slice; the counting checks from the counts the step moved; fallbacks), the load average, and a digest of every answer (SHA-256 of the plans' JSON): a
 * change that keeps the answers keeps the digest (the digest and the answers' size are taken after the timed loop). Not part of
 * the product.
 *
 * `--against DIR` (DIR: the `dist/apps/cli` of another commit's `nest build cli`): that build's models answer the same
 * reviews beside this build's, in one process, in alternating batches of 10 (which build goes first alternates too),
 * so that a machine shared with other work slows both alike; prints both builds' CPU and wall ms per review and answers
 * digests, and the JSON line gains `against`.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import * as collectors from '@app/collectors';
import * as domain from '@app/domain';
import * as forecast from '@app/forecast';
import type { ReviewAnswer } from '@app/forecast';
import { benchReviewService, intFlag, loadAvg1m, millionBackendSpec } from './bench-support';

const NOW = new Date('2026-11-22T00:00:00Z');

/** Reviews per batch of an `--against` run. */
const BATCH = 10;

/** The libraries one build's review model needs. */
interface Build {
  collectors: Pick<typeof collectors, 'generateFleet' | 'generateSpecSchema'>;
  domain: Pick<typeof domain, 'k8sServiceSchema' | 'mapWireFleet'>;
  forecast: Pick<typeof forecast, 'ClusterReviewModel' | 'regionBaseline'>;
}

/** One build's models and manifests, and what its reviews took (CPU and wall ms) and answered. */
interface Run {
  models: forecast.ClusterReviewModel[];
  manifests: ReturnType<typeof domain.k8sServiceSchema.parse>[];
  cpuMs: number;
  wallMs: number;
  answers: ReviewAnswer[];
}

/** The value of `--<name> VALUE`, or undefined. */
function stringFlag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The libraries of the build at `dir` (a `dist/apps/cli`). */
function buildAt(dir: string): Build {
  const load = createRequire(join(resolve(dir), 'bench', 'admission-model.bench.js'));
  return {
    collectors: load(join(resolve(dir), 'libs', 'collectors', 'src', 'index.js')) as Build['collectors'],
    domain: load(join(resolve(dir), 'libs', 'domain', 'src', 'index.js')) as Build['domain'],
    forecast: load(join(resolve(dir), 'libs', 'forecast', 'src', 'index.js')) as Build['forecast'],
  };
}

/** `build`'s models of the bench region (the first M with the warm-up's 40 reviews answered) and the N + 40 manifests. */
function prepare(build: Build, reviews: number, modelCount: number, log: boolean): Run {
  const spec = build.collectors.generateSpecSchema.parse({ ...millionBackendSpec(22, { clusters: 50 }), accounts: 1 });
  const snapshot = build.domain.mapWireFleet(build.collectors.generateFleet(spec, 'bench').fleet);
  const clusters = snapshot.accounts[0]!.regions[0]!.clusters;
  const t0 = performance.now();
  const baseline = build.forecast.regionBaseline(snapshot, clusters[0]!.clusterId, { now: NOW });
  const t1 = performance.now();
  const models = Array.from({ length: modelCount }, (_, i) => new build.forecast.ClusterReviewModel(snapshot, clusters[(i * 7) % clusters.length]!.clusterId, baseline, { now: NOW }));
  const t2 = performance.now();
  if (log)
    console.log(
      `region of ${clusters.length} clusters: baseline ${Math.round(t1 - t0)} ms, ${modelCount} models ${Math.round(t2 - t1)} ms; ` +
        `model 0: ${JSON.stringify(models[0]!.size)}`,
    );
  const manifests = Array.from({ length: reviews + 40 }, (_, n) => build.domain.k8sServiceSchema.parse(benchReviewService(n)));
  // Warm-up (the JIT), not measured.
  for (let n = 0; n < 40; n++) models[n % modelCount]!.review(manifests[n]!);
  return { models, manifests, cpuMs: 0, wallMs: 0, answers: [] };
}

/** Reviews `from` up to `to` (manifest indexes) on `run`'s models, timed into it. */
function reviewBatch(run: Run, from: number, to: number): void {
  const cpu0 = process.cpuUsage();
  const w0 = performance.now();
  for (let n = from; n < to; n++) run.answers.push(run.models[n % run.models.length]!.review(run.manifests[n]!));
  run.wallMs += performance.now() - w0;
  const cpu = process.cpuUsage(cpu0);
  run.cpuMs += (cpu.user + cpu.system) / 1000;
}

/** The digest of a run's answers (SHA-256 of their JSON, 16 hex characters), its fallbacks by reason, and the JSON's size. */
function digestOf(answers: readonly ReviewAnswer[]): { digest: string; fallbacks: Record<string, number>; bytes: number } {
  const digest = createHash('sha256');
  const fallbacks: Record<string, number> = {};
  let bytes = 0;
  for (const a of answers) {
    if ('fallback' in a) fallbacks[a.fallback] = (fallbacks[a.fallback] ?? 0) + 1;
    const text = JSON.stringify(a);
    bytes += text.length;
    digest.update(text);
  }
  return { digest: digest.digest('hex').slice(0, 16), fallbacks, bytes };
}


function main(): void {
  const reviews = intFlag('reviews', 400);
  const modelCount = intFlag('models', 2);
  const againstDir = stringFlag('against');
  const run = prepare({ collectors, domain, forecast }, reviews, modelCount, true);
  const other = againstDir ? prepare(buildAt(againstDir), reviews, modelCount, false) : undefined;
  if (!other) reviewBatch(run, 40, reviews + 40);
  else
    for (let from = 40, b = 0; from < reviews + 40; from += BATCH, b++) {
      const to = Math.min(from + BATCH, reviews + 40);
      for (const r of b % 2 === 0 ? [run, other] : [other, run]) reviewBatch(r, from, to);
    }
  const models = run.models;
  const wall = run.wallMs;
  const cpuMs = run.cpuMs / reviews;
  const { digest, fallbacks, bytes: answerBytes } = digestOf(run.answers);
  const answered = models.reduce(
    (s, m) => ({ serviceAlone: s.serviceAlone + m.answered.serviceAlone, wholeSlice: s.wholeSlice + m.answered.wholeSlice, counted: s.counted + m.answered.counted }),
    { serviceAlone: 0, wholeSlice: 0, counted: 0 },
  );
  console.log(
    `${reviews} reviews: CPU ${cpuMs.toFixed(3)} ms per review, wall ${(wall / reviews).toFixed(3)} ms per review; answered ${JSON.stringify(answered)} ` +
      `(counts include the warm-up), fallbacks ${JSON.stringify(fallbacks)}; load average ${loadAvg1m()}`,
  );
  console.log(`answers digest ${digest}, ${Math.round(answerBytes / reviews)} bytes of JSON per answer`);
  const per = (ms: number) => Math.round((ms / reviews) * 1000) / 1000;
  const against = other && { dir: againstDir, cpuMsPerReview: per(other.cpuMs), wallMsPerReview: per(other.wallMs), digest: digestOf(other.answers).digest };
  if (against)
    console.log(
      `interleaved in batches of ${BATCH} with ${againstDir}: this build ${per(run.cpuMs)} ms CPU, ${per(run.wallMs)} ms wall per review; ` +
        `that build ${against.cpuMsPerReview} ms CPU, ${against.wallMsPerReview} ms wall per review, answers digest ${against.digest}`,
    );
  console.log(JSON.stringify({ bench: 'admission-model', reviews, models: modelCount, cpuMsPerReview: per(run.cpuMs), wallMsPerReview: per(wall), digest, fallbacks, loadAvg1m: loadAvg1m(), ...(against ? { against } : {}) }));
}

main();
