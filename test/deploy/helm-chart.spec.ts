/**
 * The Helm chart (deploy/helm/fleet-audit). `helm lint` and `helm template` run where helm is
 * installed (PATH or HELM; .ci/run tries Debian, which has no helm package) and report themselves
 * skipped, never passed, where it is not (REQUIRE_HELM=1 makes a missing helm fail). What can be
 * checked without helm always runs: Chart.yaml and values.yaml parse and are complete, every
 * `.Values.*` a template reads exists in values.yaml, the PrometheusRule source equals the alert rules.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse, loadAll } from 'js-yaml';

const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'fleet-audit');
const TEMPLATES = join(CHART, 'templates');

function findHelm(): string | undefined {
  for (const c of [process.env.HELM, 'helm'].filter((x): x is string => !!x)) if (spawnSync(c, ['version', '--short'], { encoding: 'utf8' }).status === 0) return c;
  return undefined;
}
const helm = findHelm();
const REQUIRED_SET = ['secret.apiToken=0123456789abcdef0123456789abcdef', 'database.url=postgres://fleet@pg:5432/fleet_audit', 'redis.url=redis://redis:6379'];

describe('Helm chart deploy/helm/fleet-audit (static)', () => {
  it('renders every whole-number value of an environment variable through `int` (a float64 `quote`s as 1e+06)', () => {
    // Helm reads values.yaml numbers as float64, and `quote` prints 1000000 as "1e+06", which the config schema's
    // integer check refuses at boot: `{{ int .Values.x | quote }}` prints the digits.
    const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    const valueAt = (path: string): unknown => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], values);
    const bare: string[] = [];
    let numeric = 0;
    for (const file of readdirSync(TEMPLATES).filter((f) => f.endsWith('.yaml'))) {
      for (const m of readFileSync(join(TEMPLATES, file), 'utf8').matchAll(/\{\{ (int )?\.Values\.([A-Za-z0-9_.]+) \| quote \}\}/g)) {
        if (typeof valueAt(m[2]!) !== 'number') continue;
        numeric++;
        if (!m[1]) bare.push(`${file}: .Values.${m[2]}`);
      }
    }
    expect(numeric).toBeGreaterThan(10);
    expect(bare).toEqual([]);
  });

  it('probes the worker on its health endpoint: /healthz (liveness) and /readyz (PostgreSQL + Redis)', () => {
    const worker = readFileSync(join(CHART, 'templates', 'worker-deployment.yaml'), 'utf8');
    expect(worker).toMatch(/name: WORKER_HEALTH_PORT\s+value: \{\{ int \.Values\.worker\.healthPort \| quote \}\}/);
    expect(worker).toMatch(/name: WORKER_HEALTH_HOST\s+value: "0\.0\.0\.0"/);
    expect(worker).toContain('livenessProbe:\n            httpGet: { path: /healthz, port: health }');
    expect(worker).toContain('readinessProbe:\n            httpGet: { path: /readyz, port: health }');
  });

  const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, string>;
  const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
  const templates = readdirSync(TEMPLATES).map((f) => [f, readFileSync(join(TEMPLATES, f), 'utf8')] as const);
  const all = templates.map(([, t]) => t).join('\n');

  it('Chart.yaml is a v2 application chart with a semantic version', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'fleet-audit', type: 'application' });
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(chart.appVersion).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('has the api Deployment + Service, worker Deployment, migration Job, Secret, RRSA ServiceAccount, ServiceMonitor, PrometheusRule', () => {
    for (const kind of ['Deployment', 'Service', 'Job', 'Secret', 'ServiceAccount', 'ConfigMap', 'ServiceMonitor', 'PrometheusRule']) expect(all).toContain(`kind: ${kind}`);
    expect(all).toContain('pod-identity.alibabacloud.com/role-name');
    for (const probe of ['livenessProbe', 'readinessProbe', 'path: /readyz', 'path: /healthz', 'resources:', 'SCAN_SCHEDULE']) expect(all).toContain(probe);
  });

  it('every .Values path a template reads exists in values.yaml', () => {
    const paths = new Set([...all.matchAll(/\.Values\.([A-Za-z0-9_.]+)/g)].map((m) => m[1].replace(/\.$/, '')));
    expect(paths.size).toBeGreaterThan(20);
    for (const p of paths) {
      let v: unknown = values;
      for (const k of p.split('.')) {
        expect(v !== null && typeof v === 'object' && k in (v as object), `values.yaml has no ${p}`).toBe(true);
        v = (v as Record<string, unknown>)[k];
      }
    }
  });

  it('every documented variable a container reads can be set, and extraEnv / extraEnvFrom reach every container', async () => {
    const { ENV_VARS } = await import('@app/config');
    // Terminal-session variables, and the API's port / interface (set by `serve --port/--host` in args).
    // FLEET_AUDIT_DIST points bin/fleet-audit.js at another build: an image has its own.
    const notContainerSettings = new Set(['NO_COLOR', 'USER', 'API_PORT', 'API_HOST', 'FLEET_AUDIT_DIST']);
    for (const name of Object.keys(ENV_VARS)) {
      if (notContainerSettings.has(name)) continue;
      expect(all, `no template sets ${name}`).toMatch(new RegExp(`- name: ${name}\\b`));
    }
    // TOKEN_HASH_KEY and REPORT_WEBHOOK_URL are secrets: from the Secret (or existingSecret), optional.
    for (const key of ['TOKEN_HASH_KEY', 'REPORT_WEBHOOK_URL']) expect(all).toContain(`key: ${key}, optional: true`);
    const secret = templates.find(([f]) => f === 'secret.yaml')![1];
    expect(secret).toContain('TOKEN_HASH_KEY: {{ .Values.secret.tokenHashKey | quote }}');
    expect(secret).toContain('REPORT_WEBHOOK_URL: {{ .Values.secret.reportWebhookUrl | quote }}');
    expect(values).toMatchObject({ extraEnv: [], extraEnvFrom: [] });
    for (const f of ['api-deployment.yaml', 'worker-deployment.yaml', 'migrate-job.yaml'])
      expect(templates.find(([n]) => n === f)![1], f).toContain('include "fleet-audit.extraEnv"');
    for (const f of ['api-deployment.yaml', 'worker-deployment.yaml']) expect(templates.find(([n]) => n === f)![1], f).toContain('.Values.extraEnvFrom');
  });

  it('runs like production: two API replicas under a PodDisruptionBudget, an Ingress with TLS, requests from the benchmarks', () => {
    const api = values.api as { replicas: number; podDisruptionBudget: { enabled: boolean; minAvailable: number }; ingress: Record<string, unknown>; resources: { requests: Record<string, string>; limits: Record<string, string> } };
    expect(api.replicas).toBeGreaterThanOrEqual(2);
    expect(api.podDisruptionBudget).toEqual({ enabled: true, minAvailable: 1 });
    expect(api.podDisruptionBudget.minAvailable).toBeLessThan(api.replicas);
    const pdb = templates.find(([f]) => f === 'api-pdb.yaml')![1];
    expect(pdb).toContain('apiVersion: policy/v1');
    expect(pdb).toContain('kind: PodDisruptionBudget');
    expect(pdb).toContain('app.kubernetes.io/component: api');
    const ingress = templates.find(([f]) => f === 'api-ingress.yaml')![1];
    expect(ingress).toContain('apiVersion: networking.k8s.io/v1');
    expect(ingress).toMatch(/tls:\n\s+- hosts: \[\{\{ \.Values\.api\.ingress\.host \| quote \}\}\]\n\s+secretName: \{\{ \.Values\.api\.ingress\.tls\.secretName \}\}/);
    expect(ingress).toContain('fail "api.ingress.host is required');
    expect(api.ingress).toMatchObject({ enabled: false, tls: { secretName: '' } });
    // docs/benchmarks.md: a worker of 500-cluster shards peaks at 1,113-1,301 MiB (heap capped at 1,200 MiB); a what-if
    // on the 1M-backend fleet at 1.3 GB in the API; the API idles at 116-173 MiB.
    const mib = (q: string) => (q.endsWith('Gi') ? Number(q.slice(0, -2)) * 1024 : Number(q.replace(/Mi$/, '')));
    const worker = values.worker as { resources: { requests: Record<string, string>; limits: Record<string, string> }; heapMiB: number };
    expect(mib(worker.resources.requests.memory!)).toBeGreaterThanOrEqual(1300);
    expect(mib(worker.resources.limits.memory!)).toBeGreaterThan(worker.heapMiB);
    expect(mib(api.resources.requests.memory!)).toBeGreaterThanOrEqual(173);
    expect(mib(api.resources.limits.memory!)).toBeGreaterThanOrEqual(1.3 * 1024);
    const benchmarks = readFileSync(join(ROOT, 'docs', 'benchmarks.md'), 'utf8');
    for (const figure of ['1,211 / 1,232 / 1,301 / 1,258 MiB', 'RSS 116 MiB', 'peak RSS 1.3 GB']) expect(benchmarks, `docs/benchmarks.md still quotes ${figure}`).toContain(figure);
  });

  it('CHANGELOG.md has an upgrade note for the chart version and calls out every migration since the first release', () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toContain(`chart ${chart.version}`);
    const first = '1799400000000_created_quota_trend_fits.sql';
    const since = readdirSync(join(ROOT, 'migrations')).filter((f) => f.endsWith('.sql') && f > first);
    expect(since.filter((f) => !changelog.includes(f))).toEqual([]);
    expect(changelog).toContain(first);
  });

  it('the PrometheusRule carries the alert rules of deploy/prometheus (copy kept equal)', () => {
    expect(readFileSync(join(CHART, 'files', 'fleet-audit.rules.yml'), 'utf8')).toBe(readFileSync(join(ROOT, 'deploy', 'prometheus', 'fleet-audit.rules.yml'), 'utf8'));
  });

  it('the default scan config in values.yaml is valid for the strict scan config schema', async () => {
    const { parseScanConfig } = await import('@app/collectors');
    expect(() => parseScanConfig(JSON.stringify(values.scanConfig), 'values.yaml#scanConfig.json')).not.toThrow();
  });

  it.runIf(helm === undefined && process.env.REQUIRE_HELM === '1')('helm is available where required (REQUIRE_HELM=1)', () => {
    expect(helm, 'helm not found (HELM or PATH)').toBeDefined();
  });
});

// Where helm is absent these report "skipped" in the vitest summary: nothing was linted or rendered.
describe.skipIf(helm === undefined)(`helm lint / helm template${helm === undefined ? ' (skipped: helm is not installed; Debian 12 has no helm package)' : ''}`, () => {
  const setArgs = REQUIRED_SET.flatMap((s) => ['--set', s]);

  it('helm lint passes (strict)', () => {
    const r = spawnSync(helm as string, ['lint', '--strict', CHART, ...setArgs], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('helm template renders valid Kubernetes YAML with every optional part on', () => {
    const out = mkdtempSync(join(tmpdir(), 'helm-'));
    const r = spawnSync(
      helm as string,
      ['template', 'fa', CHART, ...setArgs, '--set', 'metrics.serviceMonitor.enabled=true', '--set', 'metrics.prometheusRule.enabled=true', '--set', 'serviceAccount.rrsa.enabled=true', '--set', 'serviceAccount.rrsa.roleName=fleet-audit', '--set', 'api.ingress.enabled=true', '--set', 'api.ingress.host=audit.example.com', '--set', 'api.ingress.tls.secretName=audit-tls', '--output-dir', out],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const rendered = spawnSync(helm as string, ['template', 'fa', CHART, ...setArgs, '--set', 'metrics.prometheusRule.enabled=true'], { encoding: 'utf8' }).stdout;
    const docs = (loadAll(rendered) as ({ kind?: string } | null)[]).filter((d): d is { kind: string } => !!d?.kind);
    expect(docs.map((d) => d.kind).sort()).toEqual(expect.arrayContaining(['ConfigMap', 'Deployment', 'Job', 'PrometheusRule', 'Secret', 'Service', 'ServiceAccount']));
  });

  it('helm template refuses an install without the API token', () => {
    const r = spawnSync(helm as string, ['template', 'fa', CHART, '--set', 'database.url=postgres://x@y/z', '--set', 'redis.url=redis://r:6379'], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('secret.apiToken is required');
  });
});

describe('Helm chart: the admission webhook of one target cluster (admissionWebhook)', () => {
  const template = readFileSync(join(TEMPLATES, 'admission-webhook.yaml'), 'utf8');
  const values = (parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as { admissionWebhook: Record<string, unknown> }).admissionWebhook;
  const webhookSet = ['admissionWebhook.enabled=true', 'admissionWebhook.url=https://audit.example.com/', 'admissionWebhook.cluster=c81faa03ae9366a2df0093610b2aca766', 'admissionWebhook.certManager.injectCaFrom=fleet-audit/audit-ca'];

  it('is off by default, never fails closed, and documents every option in values.yaml', () => {
    expect(template).toMatch(/^\{\{- with \.Values\.admissionWebhook \}\}\n\{\{- if \.enabled \}\}$/m);
    expect(values).toMatchObject({ enabled: false, failurePolicy: 'Ignore', timeoutSeconds: 5, excludeNamespaces: ['kube-system'], caBundle: '', certManager: { injectCaFrom: '' }, enforce: { enabled: true, namespaceLabel: 'fleet-audit.io/enforce' } });
    const text = readFileSync(join(CHART, 'values.yaml'), 'utf8');
    const block = text.slice(text.indexOf('\nadmissionWebhook:'), text.indexOf('\nmigrations:'));
    for (const key of ['url', 'cluster', 'name', 'failurePolicy', 'timeoutSeconds', 'excludeNamespaces', 'caBundle', 'injectCaFrom', 'enabled', 'namespaceLabel'])
      expect(block, `a comment before admissionWebhook ${key}`).toMatch(new RegExp(`#[^\\n]*\\n\\s+(#[^\\n]*\\n\\s+)*${key}:`));
  });

  it('documents every option in the README table, and the template reads each', () => {
    const leaves = (o: Record<string, unknown>, prefix: string): string[] =>
      Object.entries(o).flatMap(([k, v]) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? leaves(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`]));
    const options = leaves(values, '');
    expect(options).toHaveLength(11);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `admissionWebhook\.([A-Za-z.]+)` \| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => m[1]!);
    expect(rows.sort()).toEqual([...options].sort());
    for (const option of options) expect(template, `the template reads admissionWebhook.${option}`).toContain(`.${option}`);
  });

  it('registers services CREATE/UPDATE over v1 reviews, without side effects, for LoadBalancer Services outside kube-system', () => {
    for (const line of ['resources: ["services"]', 'operations: ["CREATE", "UPDATE"]', 'sideEffects: None', 'admissionReviewVersions: ["v1"]', 'failurePolicy: {{ $top.failurePolicy }}', 'key: kubernetes.io/metadata.name', 'operator: NotIn', 'cert-manager.io/inject-ca-from:', 'caBundle: {{ $top.caBundle | quote }}'])
      expect(template).toContain(line);
    expect(template).toContain(`expression: "(has(object.spec.type) && object.spec.type == 'LoadBalancer') || (oldObject != null && has(oldObject.spec.type) && oldObject.spec.type == 'LoadBalancer')"`);
    // The cluster in the path, enforcement as a path too: the apiserver refuses a query string in a webhook URL.
    expect(template).toContain('{{- $base := printf "%s/v1/admission/%s" $url (urlquery $cluster) }}');
    expect(template).toContain('(printf "%s/enforce" $base)');
    expect(template).not.toMatch(/url: [^\n]*\?/);
  });

  describe.skipIf(helm === undefined)(`rendered${helm === undefined ? ' (skipped: helm is not installed)' : ''}`, () => {
    const render = (extra: string[]) =>
      spawnSync(helm as string, ['template', 'fa', CHART, ...[...REQUIRED_SET, ...extra].flatMap((s) => ['--set', s]), '--show-only', 'templates/admission-webhook.yaml'], { encoding: 'utf8' });

    it('renders a warn and an enforce webhook with the cluster in the URL path and the CA injected by cert-manager', () => {
      const r = render(webhookSet);
      expect(r.status, r.stderr).toBe(0);
      const doc = parse(r.stdout) as { kind: string; metadata: { annotations: Record<string, string> }; webhooks: Record<string, unknown>[] };
      expect(doc.kind).toBe('ValidatingWebhookConfiguration');
      expect(doc.metadata.annotations['cert-manager.io/inject-ca-from']).toBe('fleet-audit/audit-ca');
      expect(doc.webhooks.map((w) => (w.clientConfig as { url: string }).url)).toEqual([
        'https://audit.example.com/v1/admission/c81faa03ae9366a2df0093610b2aca766',
        'https://audit.example.com/v1/admission/c81faa03ae9366a2df0093610b2aca766/enforce',
      ]);
      for (const w of doc.webhooks) expect(w).toMatchObject({ failurePolicy: 'Ignore', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'] });
      expect(doc.webhooks.map((w) => (w.namespaceSelector as { matchExpressions: { operator: string }[] }).matchExpressions.map((e) => e.operator))).toEqual([['NotIn', 'NotIn'], ['NotIn', 'In']]);
    });

    it('renders nothing by default, and refuses a URL that is not https or carries a query', () => {
      expect(render([]).status).not.toBe(0); // --show-only of a template that rendered nothing
      const http = render([...webhookSet, 'admissionWebhook.url=http://audit.example.com']);
      expect(http.status).not.toBe(0);
      expect(http.stderr).toContain('admissionWebhook.url must start with https://');
      const query = render([...webhookSet, 'admissionWebhook.url=https://audit.example.com/?x=1']);
      expect(query.stderr).toContain('no query or fragment');
    });
  });
});
