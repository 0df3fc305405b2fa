import { describe, expect, it } from 'vitest';
import { ScenarioError, parseScenario, parseScenarioText } from '@app/forecast';
import { thrownBy } from '../../../test/thrown.util';

const base = { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'black-friday' };

function errorOf(input: unknown): ScenarioError {
  return thrownBy(ScenarioError, () => parseScenario(input));
}

describe('parseScenario', () => {
  it('parses every step kind with defaults applied', () => {
    const s = parseScenario({
      ...base,
      steps: [
        { addNodes: { cluster: 'c1', count: 40, like: 'n1', labels: { pool: 'big' } } },
        { removeNodes: { cluster: 'c1', names: ['n7'] } },
        { addServices: { cluster: 'c1', namespace: 'shop', count: 200 } },
        { setTrafficPolicy: { cluster: 'c1', services: ['shop/*'], policy: 'Local' } },
        { upgradeCcm: { cluster: 'c1', version: 'v2.12.1' } },
        { scalePods: { cluster: 'c1', service: 'shop/web', replicas: 30 } },
      ],
    });
    expect(s.steps.map((x) => x.name)).toEqual(['1. addNodes', '2. removeNodes', '3. addServices', '4. setTrafficPolicy', '5. upgradeCcm', '6. scalePods']);
    expect(s.steps[2]!.args).toEqual({ cluster: 'c1', namespace: 'shop', count: 200, externalTrafficPolicy: 'Cluster', ports: [80], podsPerService: 2 });
  });

  it.each([
    ['not an object', 'nope', /^scenario: /],
    ['wrong apiVersion', { ...base, apiVersion: 'fleet-audit/v0', steps: [] }, /field apiVersion/],
    ['wrong kind', { ...base, kind: 'Plan', steps: [{}] }, /field kind/],
    ['missing name', { apiVersion: base.apiVersion, kind: base.kind, steps: [{}] }, /field name/],
    ['unknown top-level field', { ...base, steps: [{ upgradeCcm: { cluster: 'c', version: 'v2.1.0' } }], extra: 1 }, /unknown field\(s\) extra/],
    ['no steps', { ...base, steps: [] }, /field steps/],
  ])('scenario error: %s', (_, input, pattern) => {
    const e = errorOf(input);
    expect(e.message).toMatch(pattern);
    expect(e.step).toBeUndefined();
  });

  it.each([
    ['a step that is not an object', [42], 1, /step 1: expected an object/],
    ['a step with two keys', [{ addNodes: {}, removeNodes: {} }], 1, /step 1: expected exactly one key .* got addNodes, removeNodes/],
    ['an unknown step', [{ upgradeCcm: { cluster: 'c', version: 'v2.1.0' } }, { addPods: {} }], 2, /step 2: unknown step "addPods"/],
    ['an unknown field', [{ addNodes: { cluster: 'c', count: 1, colour: 'red' } }], 1, /step 1 \(addNodes\) field addNodes: unknown field\(s\) colour/],
    ['a missing field', [{ addNodes: { count: 1 } }], 1, /step 1 \(addNodes\) field addNodes\.cluster/],
    ['a bad count', [{ addNodes: { cluster: 'c', count: 0 } }], 1, /field addNodes\.count/],
    ['a bad policy', [{ setTrafficPolicy: { cluster: 'c', services: ['a/*'], policy: 'Both' } }], 1, /field setTrafficPolicy\.policy/],
    ['a bad port', [{ addServices: { cluster: 'c', namespace: 'n', count: 1, ports: [70000] } }], 1, /field addServices\.ports\.0/],
    ['a bad version', [{ upgradeCcm: { cluster: 'c', version: 'latest' } }], 1, /field upgradeCcm\.version: a CCM version like v2\.12\.1/],
    ['empty names', [{ removeNodes: { cluster: 'c', names: [] } }], 1, /field removeNodes\.names/],
    ['negative replicas', [{ scalePods: { cluster: 'c', service: 's', replicas: -1 } }], 1, /field scalePods\.replicas/],
  ])('step error: %s', (_, steps, step, pattern) => {
    const e = errorOf({ ...base, steps });
    expect(e.message).toMatch(pattern);
    expect(e.step).toBe(step);
  });

  it('parseScenarioText names the source and reports YAML syntax errors on one line', () => {
    expect(() => parseScenarioText('steps: [', 'bf.yaml')).toThrow(/^bf\.yaml: not valid YAML\/JSON: /);
    expect(() => parseScenarioText('apiVersion: fleet-audit/v1\nkind: Scenario\nname: x\nsteps:\n  - addNodes: {cluster: c}\n', 'bf.yaml')).toThrow(
      /^bf\.yaml: step 1 \(addNodes\) field addNodes\.count/,
    );
    const s = parseScenarioText('{"apiVersion":"fleet-audit/v1","kind":"Scenario","name":"j","steps":[{"upgradeCcm":{"cluster":"c","version":"v2.12.1"}}]}');
    expect(s.name).toBe('j');
  });
});
