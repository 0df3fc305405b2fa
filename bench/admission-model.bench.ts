/**
 * `npm run bench:admission-model [-- --reviews N --models M]`: the admission review model's CPU per
 * review in this process (libs/forecast cluster-review.model.ts; no HTTP, no threads), the part of bench:admission's
 * API CPU that the review threads spend. The fleet is one account and region of the 1M-backend bench fleet's shape (50
 * clusters of 100 nodes and 22 LoadBalancer Services: `millionBackendSpec` with one account, the size of each of the
 * bench fleet's regions); M models (default 2) are built, then N reviews (default 400) of new Services (the same
 * Services bench:admission posts: 1 to 3 ports, Cluster or Local mode) are spread over them. Prints the build time, CPU
 * ms per review (process.cpuUsage, this thread alone), how the reviews were answered (Service checks on the Service
 * alone or the whole slice; the counting checks from the counts the step moved; fallbacks), the load average, and a digest of every answer (SHA-256 of the plans' JSON): a
 * change that keeps the answers keeps the digest (the digest and the answers' size are taken after the timed loop). Not part of
 * the product.
 */
import { createHash } from 'node:crypto';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { k8sServiceSchema, mapWireFleet } from '@app/domain';
import { ClusterReviewModel, regionBaseline, type ReviewAnswer } from '@app/forecast';
import { benchReviewService, intFlag, loadAvg1m, millionBackendSpec } from './bench-support';

const NOW = new Date('2026-11-22T00:00:00Z');


function main(): void {
  const reviews = intFlag('reviews', 400);
  const modelCount = intFlag('models', 2);
  const spec = generateSpecSchema.parse({ ...millionBackendSpec(22, { clusters: 50 }), accounts: 1 });
  const snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
  const clusters = snapshot.accounts[0]!.regions[0]!.clusters;
  const t0 = performance.now();
  const baseline = regionBaseline(snapshot, clusters[0]!.clusterId, { now: NOW });
  const t1 = performance.now();
  const models = Array.from({ length: modelCount }, (_, i) => new ClusterReviewModel(snapshot, clusters[(i * 7) % clusters.length]!.clusterId, baseline, { now: NOW }));
  const t2 = performance.now();
  console.log(
    `region of ${clusters.length} clusters: baseline ${Math.round(t1 - t0)} ms, ${modelCount} models ${Math.round(t2 - t1)} ms; ` +
      `model 0: ${JSON.stringify(models[0]!.size)}`,
  );
  const manifests = Array.from({ length: reviews + 40 }, (_, n) => k8sServiceSchema.parse(benchReviewService(n)));
  // Warm-up (the JIT), not measured.
  for (let n = 0; n < 40; n++) models[n % modelCount]!.review(manifests[n]!);
  const answers: ReviewAnswer[] = [];
  const cpu0 = process.cpuUsage();
  const w0 = performance.now();
  for (let n = 40; n < reviews + 40; n++) {
    answers.push(models[n % modelCount]!.review(manifests[n]!));
  }
  const wall = performance.now() - w0;
  const cpu = process.cpuUsage(cpu0);
  const digest = createHash('sha256');
  const fallbacks: Record<string, number> = {};
  let answerBytes = 0;
  for (const a of answers) {
    if ('fallback' in a) fallbacks[a.fallback] = (fallbacks[a.fallback] ?? 0) + 1;
    const text = JSON.stringify(a);
    answerBytes += text.length;
    digest.update(text);
  }
  const answered = models.reduce(
    (s, m) => ({ serviceAlone: s.serviceAlone + m.answered.serviceAlone, wholeSlice: s.wholeSlice + m.answered.wholeSlice, counted: s.counted + m.answered.counted }),
    { serviceAlone: 0, wholeSlice: 0, counted: 0 },
  );
  const cpuMs = (cpu.user + cpu.system) / 1000 / reviews;
  console.log(
    `${reviews} reviews: CPU ${cpuMs.toFixed(3)} ms per review, wall ${(wall / reviews).toFixed(3)} ms per review; answered ${JSON.stringify(answered)} ` +
      `(counts include the warm-up), fallbacks ${JSON.stringify(fallbacks)}; load average ${loadAvg1m()}`,
  );
  console.log(`answers digest ${digest.digest('hex').slice(0, 16)}, ${Math.round(answerBytes / reviews)} bytes of JSON per answer`);
  console.log(JSON.stringify({ bench: 'admission-model', reviews, models: modelCount, cpuMsPerReview: Math.round(cpuMs * 1000) / 1000, wallMsPerReview: Math.round((wall / reviews) * 1000) / 1000, fallbacks, loadAvg1m: loadAvg1m() }));
}

main();
