import { describe, expect, it } from 'vitest';
import { FaultSpecError, parseFaultSpec, validateFaultRates } from './fault-spec.util';

describe(parseFaultSpec.name, () => {
  it('parses every fault kind, with spaces, dropping zero rates', () => {
    expect(
      parseFaultSpec(
        'throttle=0.3, server-error=0.05,timeout=0.01,truncate=0.01,slow=0.05,non-json=0.01,expire-continue=0.05,',
      ),
    ).toEqual({
      throttle: 0.3,
      'server-error': 0.05,
      timeout: 0.01,
      truncate: 0.01,
      slow: 0.05,
      'non-json': 0.01,
      'expire-continue': 0.05,
    });
    expect(parseFaultSpec('')).toEqual({});
    expect(parseFaultSpec('throttle=0,slow=1')).toEqual({ slow: 1 });
  });

  it.each([
    ['throttel=0.1', 'unknown fault "throttel"'],
    ['throttle', 'is not key=probability'],
    ['throttle=0.1,throttle=0.2', 'given twice'],
    ['throttle=abc', 'needs a probability'],
    ['throttle=-0.1', 'needs a probability'],
    ['throttle=1.5', 'needs a probability'],
    ['throttle=0.6,slow=0.5', 'add up to 1.1'],
  ])('rejects %s', (spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(FaultSpecError);
    expect(() => parseFaultSpec(spec)).toThrow(message);
  });
});

describe(validateFaultRates.name, () => {
  it('checks an object form the same way', () => {
    expect(validateFaultRates({ timeout: 0.2 })).toEqual({ timeout: 0.2 });
    expect(() => validateFaultRates({ boom: 0.1 })).toThrow('unknown fault "boom"');
    expect(() => validateFaultRates({ slow: '0.1' })).toThrow('needs a probability');
  });
});
