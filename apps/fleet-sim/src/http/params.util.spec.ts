import { describe, expect, it } from 'vitest';
import { RpcParams, unflattenParams } from './params.util';

const params = (flat: Record<string, string>) =>
  new RpcParams(
    flat,
    (name, reason) => new Error(`invalid ${name}: ${reason}`),
    (name) => new Error(`missing ${name}`),
  );

describe(unflattenParams.name, () => {
  it('turns X.N.Y keys back into arrays of objects and X.N into string arrays, ordered by N', () => {
    expect(
      unflattenParams({
        'Tag.2.Key': 'b',
        'Tag.1.Key': 'a',
        'Tag.1.Value': '1',
        'InstanceId.10': 'i-10',
        'InstanceId.2': 'i-2',
        'A.B': 'x',
        RegionId: 'cn-hangzhou',
      }),
    ).toEqual({
      Tag: [{ Key: 'a', Value: '1' }, { Key: 'b' }],
      InstanceId: ['i-2', 'i-10'],
      A: { B: 'x' },
      RegionId: 'cn-hangzhou',
    });
  });

  it('lets a deeper key win over a plain one with the same name', () => {
    expect(unflattenParams({ Tag: 'x', 'Tag.1.Key': 'k' })).toEqual({ Tag: [{ Key: 'k' }] });
    expect(unflattenParams({ 'Tag.1.Key': 'k', Tag: 'x' })).toEqual({ Tag: [{ Key: 'k' }] });
  });
});

describe(RpcParams.name, () => {
  it('reads typed values and treats empty strings as absent', () => {
    const p = params({
      MaxResults: '20',
      DryRun: 'TRUE',
      Empty: '',
      InstanceIds: '["i-1","i-2"]',
      'Dimensions.1.Key': 'regionId',
      'Dimensions.1.Value': 'cn-beijing',
      'InstanceId.1': 'i-9',
    });
    expect(p.int('MaxResults')).toBe(20);
    expect(p.bool('DryRun')).toBe(true);
    expect(p.str('Empty')).toBeUndefined();
    expect(p.jsonStringArray('InstanceIds')).toEqual(['i-1', 'i-2']);
    expect(p.keyValues('Dimensions')).toEqual([{ key: 'regionId', value: 'cn-beijing' }]);
    expect(p.repeated('InstanceId')).toEqual(['i-9']);
    expect(p.keyValues('Nothing')).toEqual([]);
  });

  it('raises the caller-supplied errors for bad and missing values', () => {
    const p = params({ MaxResults: 'ten', InstanceIds: '{"a":1}', DryRun: 'maybe' });
    expect(() => p.int('MaxResults')).toThrow('invalid MaxResults');
    expect(() => p.jsonStringArray('InstanceIds')).toThrow('invalid InstanceIds');
    expect(() => p.bool('DryRun')).toThrow('invalid DryRun');
    expect(() => p.required('RegionId')).toThrow('missing RegionId');
  });
});
