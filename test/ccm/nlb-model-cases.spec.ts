/**
 * Table-driven acceptance suite of the NLB side of the CCM model: every case of
 * test/ccm/nlb-cases/*.yaml, taken from CCM's own nlbv2 unit tests, e2e cases and controller code (each cites its
 * source and tag), runs through the product's model and must give exactly the controller, the NLB found, the
 * listeners, server groups, servers and weights CCM sets, or the error CCM fails the sync with.
 */
import { describe, expect, it } from 'vitest';
import { loadNlbCases, runNlbModel } from './nlb-cases';

const cases = loadNlbCases();

describe('NLB CCM acceptance cases through the model', () => {
  it('has at least 40 cases, each citing its CCM source and tag, with negative controls', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const c of cases) {
      expect(c.source).toMatch(/(pkg\/|test\/e2e|research\/|commit )/);
      expect(c.tag).toMatch(/^v\d/);
    }
    expect(cases.filter((c) => /negative control/i.test(c.note ?? '')).length).toBeGreaterThanOrEqual(8);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const got = runNlbModel(c);
    const e = c.expect;
    if (e.controller) expect(got.controller).toBe(e.controller);
    if (e.find) expect(got.find).toEqual(e.find);
    if (e.syncError) {
      expect(got.syncError ?? '(no sync error)').toContain(e.syncError);
      return;
    }
    expect(got.syncError).toBeUndefined();
    if (e.listeners) expect(got.listeners).toEqual(e.listeners);
    if (e.groups) {
      expect(got.groups).toHaveLength(e.groups.length);
      e.groups.forEach((g, i) => {
        if (g.name) expect(got.groups![i]!.name).toBe(g.name);
        if (g.type) expect(got.groups![i]!.type).toBe(g.type);
        expect(got.groups![i]!.servers).toEqual(g.servers);
      });
    }
  });
});
