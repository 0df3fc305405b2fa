import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';
import { parseScenarioText } from '@app/forecast';
import { scenarioYaml } from './scenario';

describe('console scenarioYaml', () => {
  const steps = [
    { addNodes: { cluster: 'payments-legacy', count: 50 } },
    {
      addServices: {
        cluster: 'payments-legacy',
        namespace: 'pay: "x"',
        count: 3,
        ports: [80, 443],
        externalTrafficPolicy: 'Cluster',
      },
    },
    { setTrafficPolicy: { cluster: 'payments-legacy', services: ['payments/*'], policy: 'Local' } },
  ];

  it('reads back to the same scenario object (quotes, colons and lists kept)', () => {
    const text = scenarioYaml('peak: "black friday"', steps);
    expect(parse(text)).toEqual({
      apiVersion: 'fleet-audit/v1',
      kind: 'Scenario',
      name: 'peak: "black friday"',
      steps,
    });
  });

  it('is a scenario the what-if parser accepts', () => {
    const scenario = parseScenarioText(scenarioYaml('console', steps.slice(0, 1)), 'console');
    expect(scenario.name).toBe('console');
    expect(scenario.steps).toHaveLength(1);
  });
});
