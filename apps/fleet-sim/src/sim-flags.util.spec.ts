import { describe, expect, it } from 'vitest';
import { SimulatorOptionsError } from './sim.server';
import { simulatorOptionsFromFlags } from './sim-flags.util';
import { FaultSpecError } from './traffic/fault-spec.util';

describe(simulatorOptionsFromFlags.name, () => {
  it('maps the given flags only', () => {
    expect(simulatorOptionsFromFlags({})).toEqual({});
    expect(
      simulatorOptionsFromFlags({
        qps: '20',
        qpsApi: ['DescribeInstances=5', 'ListRoles=1'],
        faults: 'throttle=0.3,slow=0.05',
        seed: '7',
        throttlingStatus: '429',
        timeoutHoldMs: '2000',
      }),
    ).toEqual({
      qps: { default: 20, perApi: { DescribeInstances: 5, ListRoles: 1 } },
      faults: 'throttle=0.3,slow=0.05',
      seed: 7,
      throttlingStatus: 429,
      timeoutHoldMs: 2000,
    });
    expect(simulatorOptionsFromFlags({ qpsApi: ['DescribeInstances=5'] })).toEqual({
      qps: { default: Number.POSITIVE_INFINITY, perApi: { DescribeInstances: 5 } },
    });
  });

  it.each([
    [{ qps: '0' }, SimulatorOptionsError, '--qps needs an integer >= 1'],
    [{ qps: 'ten' }, SimulatorOptionsError, '--qps needs an integer'],
    [{ qpsApi: ['DescribeInstances'] }, SimulatorOptionsError, '--qps-api needs ACTION=N'],
    [{ seed: '1.5' }, SimulatorOptionsError, '--seed needs an integer'],
    [{ throttlingStatus: '500' }, SimulatorOptionsError, 'must be 400 or 429'],
    [{ timeoutHoldMs: '-1' }, SimulatorOptionsError, '--timeout-hold-ms needs an integer >= 0'],
    [{ faults: 'throttle=2' }, FaultSpecError, 'needs a probability'],
  ] as const)('rejects %o', (flags, type, message) => {
    expect(() => simulatorOptionsFromFlags(flags)).toThrow(type);
    expect(() => simulatorOptionsFromFlags(flags)).toThrow(message);
  });
});
