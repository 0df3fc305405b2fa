/**
 * What-if (POST /v1/forecasts/whatif, operator and up): a form for the common steps (add nodes, add Services, set
 * Local, migrate to NLB, upgrade CCM) or a YAML editor for any scenario (the file format of `fleet-audit forecast
 * whatif`); the API's validation problems are shown at their step and field; the result per step (first breach,
 * quota table, findings added) and the CCM convergence estimate.
 */
import { useState } from 'preact/hooks';
import { api, ApiFailure, type ApiIssue } from '../api';
import { useCan } from '../app-context';
import { ErrorBox, PageTitle, QuotaBar, Sev, TableWrap } from '../components';
import { num, resourceLabel } from '../format';
import { useLoad } from '../hooks';
import { scenarioYaml } from '../scenario';
import type { Cluster, Page, WhatIfResult } from '../types';

type Kind = 'addNodes' | 'addServices' | 'setTrafficPolicy' | 'migrateToNlb' | 'upgradeCcm';
const KINDS: Record<Kind, string> = {
  addNodes: 'Add nodes',
  addServices: 'Add Services',
  setTrafficPolicy: 'Set traffic policy (Local / Cluster)',
  migrateToNlb: 'Migrate Services to NLB',
  upgradeCcm: 'Upgrade CCM',
};

/** One step of the form: its kind and its fields as typed (text). */
interface FormStep {
  kind: Kind;
  cluster: string;
  count: string;
  namespace: string;
  ports: string;
  policy: string;
  services: string;
  version: string;
  nlb: boolean;
}

const blank = (cluster: string): FormStep => ({
  kind: 'addNodes',
  cluster,
  count: '50',
  namespace: 'default',
  ports: '80',
  policy: 'Local',
  services: '',
  version: 'v2.12.3',
  nlb: false,
});

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The scenario step the API takes for a form step (numbers as numbers; the API validates the rest). */
function stepOf(s: FormStep): Record<string, unknown> {
  switch (s.kind) {
    case 'addNodes':
      return { addNodes: { cluster: s.cluster, count: Number(s.count) } };
    case 'addServices':
      return {
        addServices: {
          cluster: s.cluster,
          namespace: s.namespace,
          count: Number(s.count),
          ports: list(s.ports).map(Number),
          externalTrafficPolicy: s.policy,
          ...(s.nlb ? { loadBalancerClass: 'alibabacloud.com/nlb' } : {}),
        },
      };
    case 'setTrafficPolicy':
      return { setTrafficPolicy: { cluster: s.cluster, services: list(s.services), policy: s.policy } };
    case 'migrateToNlb':
      return { migrateToNlb: { cluster: s.cluster, services: list(s.services) } };
    case 'upgradeCcm':
      return { upgradeCcm: { cluster: s.cluster, version: s.version } };
  }
}

/** The problems of one step field, from the API's issue paths (`body.steps.0.addNodes.count`). */
function problemsAt(issues: ApiIssue[], step: number, field?: string): string[] {
  return issues
    .filter((i) => {
      const p = i.path.split('.');
      return (
        p[0] === 'body' &&
        p[1] === 'steps' &&
        p[2] === String(step) &&
        (field === undefined ? p.length <= 4 : p[4] === field)
      );
    })
    .map((i) => i.message);
}

function Field({
  id,
  label,
  issues,
  children,
}: {
  id: string;
  label: string;
  issues: string[];
  children: preact.ComponentChildren;
}) {
  return (
    <div class={`field${issues.length ? ' invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children}
      {issues.map((m) => (
        <span key={m} class="field-error" id={`${id}-error`}>
          {m}
        </span>
      ))}
    </div>
  );
}

export function WhatIf() {
  const canRun = useCan('operator');
  const clusters = useLoad((signal) => api<Page<Cluster>>('/v1/clusters?limit=1000', { signal }), []);
  const first = clusters.data?.items[0]?.name ?? '';
  const [name, setName] = useState('console');
  const [steps, setSteps] = useState<FormStep[] | null>(null);
  const [mode, setMode] = useState<'form' | 'yaml'>('form');
  const [yaml, setYaml] = useState('');
  const [result, setResult] = useState<WhatIfResult | undefined>();
  const [error, setError] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);
  const formSteps = steps ?? (first ? [blank(first)] : []);
  const update = (i: number, patch: Partial<FormStep>) =>
    setSteps(formSteps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const issues = error?.issues ?? [];

  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      const r =
        mode === 'yaml'
          ? await api<WhatIfResult>('/v1/forecasts/whatif', {
              method: 'POST',
              body: yaml,
              contentType: 'application/yaml',
            })
          : await api<WhatIfResult>('/v1/forecasts/whatif', {
              method: 'POST',
              body: { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name, steps: formSteps.map(stepOf) },
            });
      setResult(r);
    } catch (err) {
      setError(err instanceof ApiFailure ? err : new ApiFailure(0, 'CLIENT', String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <PageTitle>What-if</PageTitle>
      <p class="muted">Plays a scenario on the latest scan's snapshot: nothing is changed in the fleet.</p>
      {!canRun && <p class="notice">Running a what-if needs an operator token; this token is a viewer.</p>}
      <div class="tabs" role="group" aria-label="Scenario editor">
        <button
          type="button"
          class={mode === 'form' ? 'tab active' : 'tab'}
          aria-pressed={mode === 'form'}
          onClick={() => setMode('form')}
        >
          Form
        </button>
        <button
          type="button"
          class={mode === 'yaml' ? 'tab active' : 'tab'}
          aria-pressed={mode === 'yaml'}
          onClick={() => {
            if (!yaml) setYaml(scenarioYaml(name, formSteps.map(stepOf)));
            setMode('yaml');
          }}
        >
          YAML
        </button>
      </div>
      <form onSubmit={run} aria-label="Scenario">
        {mode === 'form' ? (
          <>
            <Field
              id="scenario-name"
              label="Scenario name"
              issues={issues.filter((i) => i.path === 'body.name').map((i) => i.message)}
            >
              <input id="scenario-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <ol class="steps">
              {formSteps.map((s, i) => {
                const id = (f: string) => `step${i}-${f}`;
                const at = (f: string) => problemsAt(issues, i, f);
                return (
                  <li key={i} class="step">
                    <fieldset>
                      <legend>Step {i + 1}</legend>
                      {problemsAt(issues, i).map((m) => (
                        <p key={m} class="field-error">
                          {m}
                        </p>
                      ))}
                      <Field id={id('kind')} label="Change" issues={[]}>
                        <select
                          id={id('kind')}
                          value={s.kind}
                          onChange={(e) => update(i, { kind: e.currentTarget.value as Kind })}
                        >
                          {Object.entries(KINDS).map(([k, v]) => (
                            <option key={k} value={k}>
                              {v}
                            </option>
                          ))}
                        </select>
                      </Field>
                      <Field id={id('cluster')} label="Cluster" issues={at('cluster')}>
                        <select
                          id={id('cluster')}
                          value={s.cluster}
                          onChange={(e) => update(i, { cluster: e.currentTarget.value })}
                        >
                          {clusters.data?.items.map((c) => (
                            <option key={c.clusterId} value={c.name}>
                              {c.name}
                            </option>
                          ))}
                        </select>
                      </Field>
                      {(s.kind === 'addNodes' || s.kind === 'addServices') && (
                        <Field
                          id={id('count')}
                          label={s.kind === 'addNodes' ? 'Nodes to add' : 'Services to add'}
                          issues={at('count')}
                        >
                          <input
                            id={id('count')}
                            inputMode="numeric"
                            value={s.count}
                            onInput={(e) => update(i, { count: e.currentTarget.value })}
                            aria-invalid={at('count').length ? 'true' : undefined}
                          />
                        </Field>
                      )}
                      {s.kind === 'addServices' && (
                        <>
                          <Field id={id('namespace')} label="Namespace" issues={at('namespace')}>
                            <input
                              id={id('namespace')}
                              value={s.namespace}
                              onInput={(e) => update(i, { namespace: e.currentTarget.value })}
                            />
                          </Field>
                          <Field id={id('ports')} label="Ports (comma separated)" issues={at('ports')}>
                            <input
                              id={id('ports')}
                              value={s.ports}
                              onInput={(e) => update(i, { ports: e.currentTarget.value })}
                            />
                          </Field>
                          <div class="field">
                            <label>
                              <input
                                type="checkbox"
                                checked={s.nlb}
                                onChange={(e) => update(i, { nlb: e.currentTarget.checked })}
                              />{' '}
                              NLB (loadBalancerClass alibabacloud.com/nlb)
                            </label>
                          </div>
                        </>
                      )}
                      {(s.kind === 'addServices' || s.kind === 'setTrafficPolicy') && (
                        <Field
                          id={id('policy')}
                          label="externalTrafficPolicy"
                          issues={at(s.kind === 'addServices' ? 'externalTrafficPolicy' : 'policy')}
                        >
                          <select
                            id={id('policy')}
                            value={s.policy}
                            onChange={(e) => update(i, { policy: e.currentTarget.value })}
                          >
                            <option value="Local">Local</option>
                            <option value="Cluster">Cluster</option>
                          </select>
                        </Field>
                      )}
                      {(s.kind === 'setTrafficPolicy' || s.kind === 'migrateToNlb') && (
                        <Field
                          id={id('services')}
                          label="Services (namespace/name, comma separated)"
                          issues={at('services')}
                        >
                          <input
                            id={id('services')}
                            value={s.services}
                            placeholder="payments/*"
                            onInput={(e) => update(i, { services: e.currentTarget.value })}
                          />
                        </Field>
                      )}
                      {s.kind === 'upgradeCcm' && (
                        <Field id={id('version')} label="CCM version" issues={at('version')}>
                          <input
                            id={id('version')}
                            value={s.version}
                            onInput={(e) => update(i, { version: e.currentTarget.value })}
                          />
                        </Field>
                      )}
                      {formSteps.length > 1 && (
                        <button
                          type="button"
                          class="link"
                          onClick={() => setSteps(formSteps.filter((_, j) => j !== i))}
                        >
                          Remove step {i + 1}
                        </button>
                      )}
                    </fieldset>
                  </li>
                );
              })}
            </ol>
            <button type="button" class="secondary" onClick={() => setSteps([...formSteps, blank(first)])}>
              Add a step
            </button>
          </>
        ) : (
          <Field id="scenario-yaml" label="Scenario (YAML)" issues={issues.map((i) => i.message)}>
            <textarea
              id="scenario-yaml"
              class="code"
              rows={16}
              spellcheck={false}
              value={yaml}
              onInput={(e) => setYaml(e.currentTarget.value)}
            />
          </Field>
        )}
        {error && !error.issues.length && <ErrorBox error={error} />}
        {error && error.issues.length > 0 && (
          <p class="error" role="alert">
            The scenario has {error.issues.length} problem{error.issues.length === 1 ? '' : 's'}: see the
            fields marked.
          </p>
        )}
        {canRun && (
          <button type="submit" disabled={busy}>
            {busy ? 'Running…' : 'Run what-if'}
          </button>
        )}
      </form>
      {result && <Result r={result} />}
    </section>
  );
}

function Result({ r }: { r: WhatIfResult }) {
  return (
    <div id="whatif-result" aria-live="polite">
      <h2>Result of “{r.scenario}”</h2>
      {r.steps.map((s, i) => {
        const quotas = [...s.quotas].sort((a, b) => b.after.ratio - a.after.ratio).slice(0, 15);
        return (
          <section key={i} class="step-result" data-breach={s.firstBreach ? 'yes' : 'no'}>
            <h3>{s.name}</h3>
            {s.firstBreach ? (
              <p class="bad breach">
                First breach: <strong>{s.firstBreach.checkId}</strong> on{' '}
                {resourceLabel(s.firstBreach.resource)}: {num(s.firstBreach.before.used)} →{' '}
                {num(s.firstBreach.after.used)} of {num(s.firstBreach.after.limit)}
              </p>
            ) : (
              <p class="good">No quota breached.</p>
            )}
            <p>
              Findings: {s.findings.appeared.length} added, {s.findings.resolved.length} resolved,{' '}
              {s.findings.severityChanged.length} changed severity.
            </p>
            {s.findings.appeared.length > 0 && (
              <details>
                <summary>Findings added</summary>
                <ul>
                  {s.findings.appeared.slice(0, 50).map((f) => (
                    <li key={f.fingerprint}>
                      <Sev s={f.severity} /> {f.checkId}: {f.message}
                    </li>
                  ))}
                </ul>
              </details>
            )}
            <TableWrap label={`Quotas after ${s.name}`}>
              <thead>
                <tr>
                  <th scope="col">Quota</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {quotas.map((q, j) => (
                  <tr key={j}>
                    <td>{q.checkId}</td>
                    <td>{resourceLabel(q.resource)}</td>
                    <td>
                      <QuotaBar used={q.before.used} limit={q.before.limit} />
                    </td>
                    <td>
                      <QuotaBar used={q.after.used} limit={q.after.limit} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
            {s.quotas.length > quotas.length && (
              <p class="muted small">
                The {quotas.length} fullest of {s.quotas.length} quotas the step changes.
              </p>
            )}
          </section>
        );
      })}
      {r.convergence && (
        <p id="convergence">
          CCM convergence: {r.convergence.services} Services, {num(r.convergence.calls)} OpenAPI calls, wall
          time p50 {r.convergence.wallSeconds.p50} s, p95 {r.convergence.wallSeconds.p95} s (bound by{' '}
          {r.convergence.boundBy}).
        </p>
      )}
    </div>
  );
}
