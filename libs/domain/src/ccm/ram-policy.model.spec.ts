import { describe, expect, it } from 'vitest';
import type { RamStatement } from '../snapshot.types';
import { evaluateRamAction, missingRamActions, ramActionMatches } from './ram-policy.model';

const allow = (actions: string[], notActions: string[] = []): RamStatement => ({
  effect: 'Allow',
  actions,
  notActions,
  resources: ['*'],
});
const deny = (actions: string[], notActions: string[] = []): RamStatement => ({
  effect: 'Deny',
  actions,
  notActions,
  resources: ['*'],
});

describe('ramActionMatches', () => {
  it.each([
    ['*', 'nlb:ListAsynJobs', true],
    ['nlb:*', 'nlb:ListAsynJobs', true],
    ['slb:Describe*', 'slb:DescribeLoadBalancers', true],
    ['slb:Describe*', 'slb:CreateLoadBalancer', false],
    ['vpc:?reateRouteEntries', 'vpc:CreateRouteEntries', true],
    ['vpc:CreateRouteEntry', 'vpc:CreateRouteEntries', false],
    ['VPC:createrouteentries', 'vpc:CreateRouteEntries', true],
    ['slb:Describe.*', 'slb:DescribeX', false], // regex metacharacters are literal
  ])('%s matches %s: %s', (pattern, action, expected) => {
    expect(ramActionMatches(pattern, action)).toBe(expected);
  });
});

describe('evaluateRamAction', () => {
  it('allows through a matching Allow and implicitly denies otherwise', () => {
    expect(evaluateRamAction([allow(['vpc:*'])], 'vpc:CreateRouteEntries')).toBe('allow');
    expect(evaluateRamAction([allow(['vpc:CreateRouteEntry'])], 'vpc:CreateRouteEntries')).toBe(
      'implicit-deny',
    );
    expect(evaluateRamAction([], 'nlb:ListAsynJobs')).toBe('implicit-deny');
  });

  it('lets an explicit Deny beat any Allow, whatever the order', () => {
    expect(evaluateRamAction([allow(['*']), deny(['nlb:List*'])], 'nlb:ListAsynJobs')).toBe('explicit-deny');
    expect(evaluateRamAction([deny(['nlb:List*']), allow(['*'])], 'nlb:ListAsynJobs')).toBe('explicit-deny');
  });

  it('handles NotAction in Allow and Deny statements', () => {
    expect(evaluateRamAction([allow([], ['ram:*'])], 'nlb:ListAsynJobs')).toBe('allow');
    expect(evaluateRamAction([allow([], ['nlb:*'])], 'nlb:ListAsynJobs')).toBe('implicit-deny');
    expect(evaluateRamAction([allow(['*']), deny([], ['slb:*'])], 'nlb:ListAsynJobs')).toBe('explicit-deny');
    expect(evaluateRamAction([allow(['*']), deny([], ['nlb:*'])], 'nlb:ListAsynJobs')).toBe('allow');
  });

  it('lists the missing actions with their decision', () => {
    expect(
      missingRamActions(
        [allow(['vpc:*']), deny(['vpc:DeleteRouteEntries'])],
        ['vpc:CreateRouteEntries', 'vpc:DeleteRouteEntries', 'nlb:ListAsynJobs'],
      ),
    ).toEqual([
      { action: 'vpc:DeleteRouteEntries', decision: 'explicit-deny' },
      { action: 'nlb:ListAsynJobs', decision: 'implicit-deny' },
    ]);
  });
});
