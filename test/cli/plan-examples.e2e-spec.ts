/**
 * `fleet-audit plan` on the manifests of examples/manifests, as CI runs it (the built CLI) on the bundled sample
 * fleet: a Helm-rendered file (helm/storefront-web.yaml), kustomize output (kustomize/arena-game-backend.yaml) and
 * a multi-document file with a `List` (multi-document.yaml). For each:
 * - the per-quota answer (each quota's use before and after the change) equals the what-if of the equivalent
 *   scenario (examples/scenarios/plan-*.yaml, the same Services as addServices steps), the CLBs the change creates
 *   compared by their figures (the two name them differently);
 * - `--fail-on critical` exits 1 on the cluster where the change breaches a quota, and 0 on one where it fits;
 * - the SARIF validates against the SARIF 2.1.0 JSON schema (test/fixtures/schemas, SOURCE.md) and locates the
 *   breach in the example file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ROOT, runCliInProcess, SAMPLE_FLEET } from './cli-run.util';

const NOW = '2026-06-01T00:00:00Z';
const MANIFESTS = join(ROOT, 'examples', 'manifests');
const SCENARIOS = join(ROOT, 'examples', 'scenarios');

interface Quota {
  checkId: string;
  resource: { kind: string; id: string };
  before: { used: number; limit: number };
  after: { used: number; limit: number };
}

/**
 * A change's quota answer: each quota's use before the first step that moves it and after the last, keyed by check
 * and resource; the load balancers the change creates (ids `lb-whatif…`, named by each command's own counter) as a
 * sorted list of their figures.
 */
function netQuotas(steps: { quotas: Quota[] }[]): { existing: Record<string, string>; created: string[] } {
  const net = new Map<string, Quota>();
  for (const step of steps)
    for (const q of step.quotas) {
      const key = `${q.checkId} ${q.resource.kind} ${q.resource.id}`;
      const seen = net.get(key);
      net.set(key, seen ? { ...q, before: seen.before } : q);
    }
  const existing: Record<string, string> = {};
  const created: string[] = [];
  for (const [key, q] of net) {
    const figures = `${q.before.used}/${q.before.limit} -> ${q.after.used}/${q.after.limit}`;
    if (/^(lb|nlb)-whatif/.test(q.resource.id)) created.push(`${q.checkId} ${figures}`);
    else if (q.before.used !== q.after.used || q.before.limit !== q.after.limit) existing[key] = figures;
  }
  return { existing, created: created.sort() };
}

const EXAMPLES = [
  { name: 'a Helm-rendered chart', file: join(MANIFESTS, 'helm', 'storefront-web.yaml'), scenario: 'plan-helm-storefront-web.yaml', breaches: 'payments-legacy', breach: 'CLB_BACKEND_QUOTA', fits: 'storefront', services: ['web/web-storefront-web', 'web/web-storefront-web-internal', 'web/web-storefront-web-ws'] },
  { name: 'kustomize output', file: join(MANIFESTS, 'kustomize', 'arena-game-backend.yaml'), scenario: 'plan-kustomize-arena.yaml', breaches: 'arena', breach: 'NODEPORT_RANGE_EXHAUSTION', fits: 'data-platform', services: ['arena/arena-gateway', 'arena/arena-lobby'] },
  {
    name: 'a multi-document file with a List',
    file: join(MANIFESTS, 'multi-document.yaml'),
    scenario: 'plan-multi-document-previews.yaml',
    breaches: 'preview-envs',
    breach: 'CLB_INSTANCE_QUOTA',
    fits: 'storefront',
    services: [101, 102, 103, 104].flatMap((pr) => [`previews/pr-${pr}-web`, `previews/pr-${pr}-api`]),
  },
] as const;

describe('fleet-audit plan on examples/manifests', () => {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const validateSarif = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'schemas', 'sarif-schema-2.1.0.json'), 'utf8')) as object);

  for (const ex of EXAMPLES) {
    describe(ex.name, () => {
      it('gives the same per-quota answer as the equivalent what-if scenario, and fails --fail-on critical on the breach', async () => {
        const plan = await runCliInProcess(['plan', '-f', ex.file, '--fleet', SAMPLE_FLEET, '--cluster', ex.breaches, '--now', NOW, '--format', 'json', '--fail-on', 'critical']);
        expect(plan.stderr).toBe('');
        expect(plan.status).toBe(1);
        const planned = JSON.parse(plan.stdout) as { services: { service: string }[]; step: { quotas: Quota[]; firstBreach: Quota | null } };
        expect(planned.services.map((s) => s.service).sort()).toEqual([...ex.services].sort());
        expect(planned.step.firstBreach?.checkId).toBe(ex.breach);
        const whatIf = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', join(SCENARIOS, ex.scenario), '--now', NOW, '--format', 'json']);
        expect(whatIf.stderr).toBe('');
        expect(whatIf.status).toBe(0);
        const scenario = JSON.parse(whatIf.stdout) as { steps: { quotas: Quota[] }[] };
        const fromPlan = netQuotas([planned.step]);
        expect(Object.keys(fromPlan.existing).length + fromPlan.created.length).toBeGreaterThan(0);
        expect(fromPlan).toEqual(netQuotas(scenario.steps));
      });

      it(`exits 0 with --fail-on critical where it fits (${ex.fits})`, async () => {
        const r = await runCliInProcess(['plan', '-f', ex.file, '--fleet', SAMPLE_FLEET, '--cluster', ex.fits, '--now', NOW, '--fail-on', 'critical']);
        expect(r.stderr).toBe('');
        expect(r.status, r.stdout).toBe(0);
        expect(r.stdout).toContain('First breach: none');
      });

      it('writes SARIF that validates against the 2.1.0 schema, the breach located in the example file', async () => {
        const r = await runCliInProcess(['plan', '-f', ex.file, '--fleet', SAMPLE_FLEET, '--cluster', ex.breaches, '--now', NOW, '--format', 'sarif']);
        expect(r.stderr).toBe('');
        const log = JSON.parse(r.stdout) as { version: string; runs: { results: { ruleId: string; level: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[] };
        expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
        expect(log.version).toBe('2.1.0');
        const breach = log.runs[0]!.results.find((x) => x.ruleId === ex.breach && x.level === 'error');
        expect(breach, JSON.stringify(log.runs[0]!.results.map((x) => [x.ruleId, x.level]))).toBeDefined();
        expect(breach!.locations[0]!.physicalLocation.artifactLocation.uri).toBe(ex.file);
      });
    });
  }
});
