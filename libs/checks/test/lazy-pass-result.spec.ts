/**
 * Passing results whose message is built when read (`lazyPassResult`, `ResultFactory.pass` given a `PassText`): every
 * way the product and its users read a result (JSON, spread, `Object.keys`, structured clone, test equality, the
 * property itself) sees what the eager result held. The per-check golden digests (test/golden) prove each rule's
 * `PassText` gives the eager text on every fixture and generated fleet.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, Figures, ResourceRef } from '@app/domain';
import { lazyPassResult, resultsFor, withResultResource, type PassText } from '../src/result.util';

const ref: ResourceRef = { kind: 'Service', id: 'team-a/web', accountId: '1', regionId: 'cn-hangzhou', clusterId: 'c1', namespace: 'team-a', name: 'web' };

/** The text the eager result holds, and the `PassText` that builds it from the ref, the figures and `arg`. */
const usedText: PassText<{ used: number; limit: number }, string> = (r, { used, limit }, unit) => `${r.id} uses ${used} of ${limit} ${unit}`;
const refText: PassText<undefined> = (r) => `${r.id} carries the finalizer`;

describe('lazy pass results', () => {
  const r = resultsFor('CHECK_X', 'warning');

  it('read as the eager result: property, JSON, keys in order, spread, structured clone, equality', () => {
    const figures = { used: 3, limit: 50 };
    const cases: [CheckResult, CheckResult][] = [
      [r.pass(ref, usedText, figures, 'listeners'), r.pass(ref, 'team-a/web uses 3 of 50 listeners', figures)],
      [r.pass(ref, refText, undefined), r.pass(ref, 'team-a/web carries the finalizer')],
    ];
    for (const [lazy, eager] of cases) {
      expect(Object.getOwnPropertyDescriptor(lazy, 'message')?.get).toBeTypeOf('function');
      expect(Object.getOwnPropertyDescriptor(eager, 'message')?.value).toBeTypeOf('string');
      expect(lazy.message).toBe(eager.message);
      expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
      expect(Object.keys(lazy)).toEqual(Object.keys(eager));
      expect(Object.keys(lazy)).toEqual(eager.figures ? ['checkId', 'status', 'severity', 'resource', 'message', 'figures'] : ['checkId', 'status', 'severity', 'resource', 'message']);
      expect({ ...lazy }).toStrictEqual({ ...eager });
      expect(structuredClone(lazy)).toStrictEqual(eager);
      expect(lazy).toEqual(eager);
      expect(lazy.resource).toBe(ref);
    }
  });

  it('builds the text from its own ref, figures and argument on each read', () => {
    let calls = 0;
    const counted: PassText<Figures, number> = (res, f, n) => {
      calls++;
      return `${res.id} ${String(f['used'])} ${n}`;
    };
    const a = lazyPassResult('CHECK_X', 'info', ref, counted, { used: 1 }, 7);
    const b = lazyPassResult('CHECK_X', 'info', { ...ref, id: 'team-b/api' }, counted, { used: 2 }, 8);
    expect(calls).toBe(0);
    expect([a.message, b.message, a.message]).toEqual(['team-a/web 1 7', 'team-b/api 2 8', 'team-a/web 1 7']);
    expect(calls).toBe(3);
  });

  it('withResultResource (owning cluster, severity override) keeps a lazy message lazy, built from the original ref', () => {
    const lb: ResourceRef = { kind: 'LoadBalancer', id: 'lb-1', accountId: '1', regionId: 'cn-hangzhou', name: 'k8s-lb' };
    const owned: ResourceRef = { kind: 'LoadBalancer', id: 'lb-1', accountId: '1', regionId: 'cn-hangzhou', clusterId: 'c1', name: 'k8s-lb' };
    let calls = 0;
    const text: PassText<{ used: number; limit: number }, string> = (res, f, unit) => {
      calls++;
      return `${res.id}${res.clusterId ? ` of ${res.clusterId}` : ''} uses ${f.used} of ${f.limit} ${unit}`;
    };
    const lazy = r.pass(lb, text, { used: 3, limit: 50 }, 'listeners');
    const moved = withResultResource(lazy, owned);
    const raised = withResultResource(moved, owned, 'critical');
    expect(calls).toBe(0);
    for (const c of [moved, raised]) expect(Object.getOwnPropertyDescriptor(c, 'message')?.get).toBeTypeOf('function');
    expect(moved.resource).toBe(owned);
    expect([moved.severity, raised.severity]).toEqual(['warning', 'critical']);
    // The text a spread of the original would have kept: built from the ref the check gave, not the owned copy.
    expect(raised.message).toBe('lb-1 uses 3 of 50 listeners');
    expect(Object.keys(raised)).toEqual(['checkId', 'status', 'severity', 'resource', 'message', 'figures']);
    expect(JSON.parse(JSON.stringify(raised))).toEqual({ ...JSON.parse(JSON.stringify(lazy)), resource: owned, severity: 'critical' });
    expect(lazy.resource).toBe(lb); // the original is not changed
    // An eager result (a failure) is copied as a spread would copy it.
    const failed = r.fail(lb, 'lb-1 is over', { figures: { used: 51, limit: 50 } });
    expect(withResultResource(failed, owned, 'critical')).toStrictEqual({ ...failed, resource: owned, severity: 'critical' });
  });

  it('an assigned message replaces the built one, in place, as on the eager result', () => {
    const lazy = r.pass(ref, usedText, { used: 1, limit: 2 }, 'servers');
    lazy.message = 'edited';
    expect(lazy.message).toBe('edited');
    expect(Object.getOwnPropertyDescriptor(lazy, 'message')).toMatchObject({ value: 'edited', writable: true, enumerable: true });
    expect(Object.keys(lazy)).toEqual(['checkId', 'status', 'severity', 'resource', 'message', 'figures']);
  });

  it('an accessor copied onto another object says so instead of answering for it', () => {
    const lazy = r.pass(ref, refText, undefined);
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(lazy)) as CheckResult;
    expect(() => copy.message).toThrow(/not a lazy pass result/);
  });

  it('fails, skips and string passes keep a plain message', () => {
    for (const res of [r.fail(ref, 'broken'), r.skipped(ref, 'not read'), r.pass(ref, 'fine')])
      expect(Object.getOwnPropertyDescriptor(res, 'message')).toMatchObject({ writable: true, enumerable: true });
  });
});
