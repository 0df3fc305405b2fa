import { describe, expect, it } from 'vitest';
import { MAX_SCENARIO_ISSUES, MAX_SCENARIO_STEPS, ScenarioError, parseScenario, parseScenarioText } from '@app/forecast';
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

describe('parseScenario reports every problem at once', () => {
  it('{} names every missing header field in one error, the first as step and field', () => {
    const e = errorOf({});
    expect(e.issues).toEqual([
      { message: 'scenario field apiVersion: Invalid input: expected "fleet-audit/v1"', field: 'apiVersion' },
      { message: 'scenario field kind: Invalid input: expected "Scenario"', field: 'kind' },
      { message: 'scenario field name: Invalid input: expected string, received undefined', field: 'name' },
      { message: 'scenario field steps: Invalid input: expected array, received undefined', field: 'steps' },
    ]);
    expect(e.message).toBe(
      'scenario: 4 problems: field apiVersion: Invalid input: expected "fleet-audit/v1"; field kind: Invalid input: expected "Scenario"; ' +
        'field name: Invalid input: expected string, received undefined; field steps: Invalid input: expected array, received undefined',
    );
    expect(e).toMatchObject({ step: undefined, field: 'apiVersion', code: 'SCENARIO_INVALID' });
  });

  it('lists the problems of every bad step with its number and field, after the header problems, in document order', () => {
    // Within the header or a step: its declared fields in schema order, then its unknown fields (zod's order).
    const e = errorOf({
      ...base,
      kind: 'Plan',
      steps: [
        { addNodes: { cluster: 'c', count: 0, colour: 'red' } },
        { upgradeCcm: { cluster: 'c', version: 'v2.12.1' } },
        42,
        { addPods: {} },
        { addNodes: {}, removeNodes: {} },
        { setTrafficPolicy: { services: [], policy: 'Both' } },
      ],
    });
    expect(e.issues.map((i) => [i.step, i.field])).toEqual([
      [undefined, 'kind'],
      [1, 'addNodes.count'],
      [1, 'addNodes'],
      [3, undefined],
      [4, 'addPods'],
      [5, undefined],
      [6, 'setTrafficPolicy.cluster'],
      [6, 'setTrafficPolicy.services'],
      [6, 'setTrafficPolicy.policy'],
    ]);
    // Each issue worded as the scenario with only that problem is refused.
    expect(e.issues[1]!.message).toMatch(/^step 1 \(addNodes\) field addNodes\.count: /);
    expect(e.issues[2]!.message).toBe('step 1 (addNodes) field addNodes: unknown field(s) colour');
    expect(e.issues[3]!.message).toMatch(/^step 3: expected an object/);
    expect(e.issues[4]!.message).toMatch(/^step 4: unknown step "addPods"/);
    expect(e.issues[5]!.message).toMatch(/^step 5: expected exactly one key .* got addNodes, removeNodes$/);
    expect(e.message).toMatch(/^scenario: 9 problems: field kind: Invalid input: expected "Scenario"; step 1 \(addNodes\) field addNodes\.count: .*; step 1 \(addNodes\) field addNodes: unknown field\(s\) colour; /);
    expect(e.message.split('; ').slice(1).map((m) => m.split(':')[0])).toEqual(e.issues.slice(1).map((i) => i.message.split(':')[0]));
    expect(e.message).not.toContain('\n');
    expect(e).toMatchObject({ step: undefined, field: 'kind' });
  });

  it('two bad steps give both, each with its step number; step and field are those of the first', () => {
    const e = errorOf({ ...base, steps: [{ upgradeCcm: { cluster: 'c', version: 'v2.1.0' } }, { addNodes: { cluster: 'c', count: 0 } }, { scalePods: { cluster: 'c', service: 's', replicas: -1 } }] });
    expect(e.issues).toEqual([
      { message: expect.stringMatching(/^step 2 \(addNodes\) field addNodes\.count: /), step: 2, field: 'addNodes.count' },
      { message: expect.stringMatching(/^step 3 \(scalePods\) field scalePods\.replicas: /), step: 3, field: 'scalePods.replicas' },
    ]);
    expect(e.message).toBe(`scenario: 2 problems: ${e.issues[0]!.message}; ${e.issues[1]!.message}`);
    expect(e).toMatchObject({ step: 2, field: 'addNodes.count' });
  });

  it('one problem reads as before: the message is the issue', () => {
    const e = errorOf({ ...base, steps: [{ addNodes: { cluster: 'c', count: 0 } }] });
    expect(e.issues).toEqual([{ message: e.message, step: 1, field: 'addNodes.count' }]);
    expect(e.message).toMatch(/^step 1 \(addNodes\) field addNodes\.count: /);
    // Errors made with one problem (runWhatIf's, an unparsable file) list it as their only issue.
    expect(new ScenarioError('step 2 (addNodes) field addNodes.cluster: unknown cluster', 2, 'addNodes.cluster').issues).toEqual([
      { message: 'step 2 (addNodes) field addNodes.cluster: unknown cluster', step: 2, field: 'addNodes.cluster' },
    ]);
    expect(new ScenarioError('body: not valid YAML: x').issues).toEqual([{ message: 'body: not valid YAML: x' }]);
  });

  it(`lists at most ${MAX_SCENARIO_ISSUES} problems and counts the others`, () => {
    // Every step wrong twice (no cluster, count 0): 200 problems.
    const steps = Array.from({ length: MAX_SCENARIO_STEPS }, () => ({ addNodes: { count: 0 } }));
    const e = errorOf({ ...base, steps });
    expect(e.issues).toHaveLength(MAX_SCENARIO_ISSUES);
    expect(e.issues[0]).toMatchObject({ step: 1, field: 'addNodes.cluster' });
    expect(e.issues.at(-1)).toMatchObject({ step: MAX_SCENARIO_ISSUES / 2, field: 'addNodes.count' });
    expect(e.message).toMatch(new RegExp(`^scenario: ${2 * MAX_SCENARIO_STEPS} problems: step 1 \\(addNodes\\) field addNodes\\.cluster: `));
    expect(e.message).toMatch(new RegExp(`; and ${2 * MAX_SCENARIO_STEPS - MAX_SCENARIO_ISSUES} more$`));
    expect(e.message.split('; step ')).toHaveLength(MAX_SCENARIO_ISSUES);
    // Too many steps: the one header problem, the steps not checked one by one.
    const tooMany = errorOf({ ...base, steps: [...steps, ...steps] });
    expect(tooMany.issues).toEqual([{ message: `scenario field steps: at most ${MAX_SCENARIO_STEPS} steps per scenario`, field: 'steps' }]);
  });

  it('a valid scenario parses as before', () => {
    const input = {
      ...base,
      steps: [
        { addNodes: { cluster: 'c1', count: 40 } },
        { addServices: { cluster: 'c1', namespace: 'shop', count: 2, loadBalancerClass: 'alibabacloud.com/nlb' } },
        { migrateToNlb: { cluster: 'c1', services: ['shop/web'] } },
      ],
    };
    expect(parseScenario(input)).toEqual({
      apiVersion: 'fleet-audit/v1',
      kind: 'Scenario',
      name: 'black-friday',
      steps: [
        { kind: 'addNodes', index: 1, name: '1. addNodes', args: { cluster: 'c1', count: 40 } },
        {
          kind: 'addServices',
          index: 2,
          name: '2. addServices',
          args: { cluster: 'c1', namespace: 'shop', count: 2, externalTrafficPolicy: 'Cluster', ports: [80], podsPerService: 2, loadBalancerClass: 'alibabacloud.com/nlb' },
        },
        { kind: 'migrateToNlb', index: 3, name: '3. migrateToNlb', args: { cluster: 'c1', services: ['shop/web'] } },
      ],
    });
  });

  it('parseScenarioText names the source in the message and in each issue', () => {
    const e = thrownBy(ScenarioError, () => parseScenarioText('apiVersion: fleet-audit/v1\nkind: Plan\nname: x\nsteps:\n  - addNodes: {cluster: c}\n', 'bf.yaml'));
    expect(e.message).toMatch(/^bf\.yaml: scenario: 2 problems: field kind: .*; step 1 \(addNodes\) field addNodes\.count: /);
    expect(e.issues).toEqual([
      { message: 'bf.yaml: scenario field kind: Invalid input: expected "Scenario"', field: 'kind' },
      { message: expect.stringMatching(/^bf\.yaml: step 1 \(addNodes\) field addNodes\.count: /), step: 1, field: 'addNodes.count' },
    ]);
    expect(e).toMatchObject({ step: undefined, field: 'kind' });
  });

  it('quotes user key names so a message stays one line, cut at 64 characters and 10 names', () => {
    const long = 'x'.repeat(200);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 1]));
    const e = errorOf({
      ...base,
      extra: 1,
      steps: [
        { 'add\nPods': {} },
        { [long]: {} },
        many,
        { addNodes: { cluster: 'c', count: 1, 'bad key\u0007': 2 } },
        { addNodes: { cluster: 'c', count: 1, labels: { 'a\nb': 5 } } },
      ],
    });
    const oneLine = (text: string) => !text.includes('\n') && !text.includes('\u0007');
    expect(e.issues.every((issue) => oneLine(issue.message))).toBe(true);
    expect(oneLine(e.message)).toBe(true);
    expect(e.issues.map((i) => i.message)).toEqual([
      'scenario: unknown field(s) extra',
      expect.stringMatching(/^step 1: unknown step "add\\nPods" \(expected one of /),
      expect.stringMatching(new RegExp(`^step 2: unknown step "${'x'.repeat(64)}…" \\(expected one of `)),
      expect.stringMatching(/, got k0, k1, k2, k3, k4, k5, k6, k7, k8, k9 and 20 more$/),
      'step 4 (addNodes) field addNodes: unknown field(s) "bad key\\u0007"',
      expect.stringMatching(/^step 5 \(addNodes\) field addNodes\.labels\."a\\nb": /),
    ]);
    // The field keeps the key as given (structured data, not a line of text).
    expect(e.issues[5]).toMatchObject({ step: 5, field: 'addNodes.labels.a\nb' });
  });
});

