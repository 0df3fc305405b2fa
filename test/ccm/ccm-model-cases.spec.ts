/**
 * Table-driven acceptance suite of the CCM model: every case of test/ccm/cases/*.yaml, taken from
 * CCM's own tests and controller code (each cites its source), runs through the product's model and must give
 * exactly the vServer groups, backends and weights CCM sets, or the error CCM fails the sync with.
 */
import { describe, expect, it } from 'vitest';
import { loadCases, parseCaseBackend, runModel } from './ccm-cases';

const cases = loadCases();

describe('CCM acceptance cases through the model', () => {
  it('has at least 60 cases, each citing its CCM source and tag', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    for (const c of cases) {
      expect(c.source).toMatch(/(pkg\/|test\/e2e|seeds\/|research\/)/);
      expect(c.tag).toMatch(/^v\d/);
    }
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const got = runModel(c);
    if ('syncError' in c.expect) {
      expect(got).toHaveProperty('syncError');
      expect('syncError' in got ? got.syncError : '').toContain(c.expect.syncError);
      return;
    }
    expect(got).not.toHaveProperty('syncError');
    if (!('groups' in got)) return;
    expect(got.groups).toHaveLength(c.expect.groups.length);
    c.expect.groups.forEach((g, i) => {
      if (g.name) expect(got.groups[i]!.name).toBe(g.name);
      expect(got.groups[i]!.backends).toEqual(g.backends.map(parseCaseBackend));
    });
  });
});
