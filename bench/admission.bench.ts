/**
 * `npm run bench:admission [-- --rate R --seconds S]`: latency of the admission webhook (`POST /v1/admission/{cluster}`)
 * at a fixed request rate, as a cluster's apiserver calls it. A fresh database holds the bundled sample fleet as one
 * stored scan; the API (createApiApp, the production module, default forecast pool) runs in a CHILD process so the
 * load generator does not share its event loop; autocannon sends AdmissionReviews of a new 2-port LoadBalancer Service
 * on cluster `storefront` at R reviews/s (default 200, `overallRate`) for S seconds (default 3: the machine is shared),
 * with a viewer token.
 * Prints p50 / p95 / p99 / max (ms, every response), the rate reached, errors (non-2xx, timeouts), how many answers were
 * "not judged" (fail-open: a busy forecast pool, the deadline), the API's CPU ms per review, and one JSON line last.
 * The target (p99 <= 50 ms at 200 reviews/s) is for the 1M-backend bench fleet; this run is on the sample fleet.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { analyzeAndStore } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { Store } from '@app/store';
import { measureLoad, serveApiChild } from './api-child.util';
import { intFlag, loadAvg1m, withBenchDatabase } from './bench-support';

const SAMPLE = join(__dirname, '..', '..', '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');
const BOOTSTRAP = `bench-admission-bootstrap-${randomBytes(12).toString('hex')}`;
const HASH_KEY = randomBytes(32).toString('hex');

/** The review the load sends: a new LoadBalancer Service of two ports (judged, planned, no breach on the sample fleet). */
const REVIEW = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
    kind: { group: '', version: 'v1', kind: 'Service' },
    resource: { group: '', version: 'v1', resource: 'services' },
    name: 'checkout-public',
    namespace: 'shop',
    operation: 'CREATE',
    userInfo: { username: 'bench' },
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'checkout-public', namespace: 'shop' },
      spec: { type: 'LoadBalancer', selector: { app: 'checkout' }, ports: [{ name: 'https', port: 443, targetPort: 8443 }, { name: 'http', port: 80, targetPort: 8080 }] },
    },
    oldObject: null,
    dryRun: false,
  },
});

async function main(): Promise<void> {
  const rate = intFlag('rate', 200);
  const seconds = intFlag('seconds', 3);
  await withBenchDatabase(async (databaseUrl) => {
    const store = await Store.open({ connectionString: databaseUrl, migrate: true, tokenHashKey: HASH_KEY });
    let token: string;
    try {
      const scan = await store.scans.create({ source: 'offline', startedAt: NOW });
      await analyzeAndStore(loadFleetDirectory(SAMPLE), { scanId: scan.id, now: NOW, store });
      token = (await store.apiTokens.create({ role: 'viewer', accounts: null, teams: null, createdBy: 'bench', name: 'admission' })).token;
    } finally {
      await store.close();
    }
    const child: ChildProcess = fork(__filename, ['--serve'], {
      env: { ...process.env, NODE_ENV: 'production', BENCH_DB_URL: databaseUrl, BENCH_BOOTSTRAP: BOOTSTRAP, BENCH_HASH_KEY: HASH_KEY },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.once('message', (m: { port: number }) => resolve(m.port));
        child.once('exit', (code) => reject(new Error(`the API child exited early (code ${code})`)));
      });
      const url = `http://127.0.0.1:${port}/v1/admission/storefront?timeout=5s`;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      // Warm-up (JIT, the forecast thread, token cache), not measured; the probe must be a judged review.
      let probe = '';
      for (let i = 0; i < 20; i++) probe = await fetch(url, { method: 'POST', headers, body: REVIEW }).then((r) => r.text());
      if (!probe.includes('"allowed":true') || probe.includes('not judged')) throw new Error(`the warm-up review was not judged: ${probe.slice(0, 300)}`);
      let notJudged = 0;
      const result = await measureLoad(child, {
        url,
        method: 'POST',
        headers,
        body: REVIEW,
        connections: Math.min(50, rate),
        overallRate: rate,
        duration: seconds,
        // Each answer is one small body chunk: count the fail-open ones.
        setupClient: (client) => client.on('body', (chunk: Buffer) => void (chunk.includes('not judged') && notJudged++)),
      });
      const out = { bench: 'admission', fleet: 'sample', cluster: 'storefront', rateAsked: rate, seconds, ...result, notJudged, loadAvg1m: loadAvg1m() };
      console.log(`admission at ${rate} reviews/s for ${seconds} s: ${result.rps} answered/s, p50 ${result.p50Ms} ms, p95 ${result.p95Ms} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms`);
      console.log(`errors ${result.errors}, not judged (fail-open) ${notJudged} of ${result.requests}, API CPU ${result.apiCpuMsPerRequest} ms per review`);
      console.log(JSON.stringify(out));
    } finally {
      if (child.exitCode === null) {
        child.send('stop');
        await new Promise((r) => child.once('exit', r));
      }
    }
  });
}

if (process.argv.includes('--serve')) {
  serveApiChild({ databaseUrl: process.env.BENCH_DB_URL as string, bootstrapToken: process.env.BENCH_BOOTSTRAP as string, tokenHashKey: process.env.BENCH_HASH_KEY as string }).catch((e: unknown) => {
    process.stderr.write(`bench:admission server: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`bench:admission: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
