import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AuditSettingsError,
  CHECKS,
  DEFAULT_AUDIT_SETTINGS,
  fingerprintOf,
  resolveAuditSettings,
  runAudit,
  statusCountsOf,
  CHECK_IDS,
  KIND_CHECKS,
  QUOTA_USAGE_CHECK_IDS,
} from '@app/checks';
import { KIND_DATA, emptyKindWire, quotaUsageOf, type RegionSnapshot, type ResourceRef } from '@app/domain';
import { CLUSTER_ID, FROZEN_NOW, P, factory, uid } from './factories';

/** Every load-balancer kind's fields of a region read with none of its resources (its mapper of empty lists). */
function emptyKindFields(): Partial<RegionSnapshot> {
  const region = factory.region();
  return Object.assign(
    {},
    ...KIND_DATA.map((data) => {
      const mapper = data.mapper(region.accountId, region.regionId, (s) => s);
      mapper.add(emptyKindWire(data));
      return mapper.result();
    }),
  ) as Partial<RegionSnapshot>;
}

/** A fleet that fails several checks at once. */
/**
 * Run `fn` while check `id` pushes its results as usual and then throws (a bug in a rule), restored afterwards.
 * @returns what `fn` returns
 */
function withCheckThatThrows<T>(id: string, fn: () => T): T {
  const check = CHECKS.find((c) => c.id === id)!;
  const evaluate = check.evaluate;
  check.evaluate = (ctx) => {
    evaluate.call(check, ctx);
    throw new Error('boom');
  };
  try {
    return fn();
  } finally {
    check.evaluate = evaluate;
  }
}

function busyFleet() {
  const nodes = factory.nodes(30);
  return factory.fleet([
    factory.region({
      loadBalancers: [
        factory.clb({
          loadBalancerId: 'lb-full',
          vServerGroups: [factory.vServerGroup({ backendServers: factory.backends(195) })],
        }),
        factory.clb({
          loadBalancerId: 'lb-warm',
          vServerGroups: [factory.vServerGroup({ backendServers: factory.backends(170) })],
        }),
        factory.ccmClb({ loadBalancerId: 'lb-orphan', ownerName: 'a0000000000000000000000000000beef' }),
      ],
      clusters: [
        factory.cluster({
          nodeLocalPortRanges: { 'i-node0000': { from: 1024, to: 65000 } },
          kubernetes: factory.kubernetes({
            nodes,
            services: [factory.service()],
            endpointSlices: [factory.endpointSlice('web', [['172.20.0.9', 'node-1']])],
          }),
        }),
      ],
    }),
  ]);
}

describe('runAudit', () => {
  it('returns no results and no findings for the empty fleet', () => {
    expect(runAudit(factory.snapshot(), { now: FROZEN_NOW })).toEqual({ results: [], findings: [], counts: new Map() });
  });

  it('returns no findings for an account with an empty region (only region-level passes)', () => {
    const out = runAudit(
      factory.fleet([factory.region({ loadBalancers: [], ...emptyKindFields(), ecsInstances: [], vSwitches: [] })]),
      {
        now: FROZEN_NOW,
      },
    );
    expect(out.findings).toEqual([]);
    expect(out.results.filter((r) => r.status !== 'pass' || r.resource.kind !== 'Region')).toEqual([]);
    // The checks of a kind folder (KIND_CHECKS) may add region passes of their own; the others give exactly these.
    const kindChecks = new Set(KIND_CHECKS.map((c) => c.id));
    expect(out.results.filter((r) => !kindChecks.has(r.checkId)).map((r) => [r.checkId, r.status, r.resource.kind])).toEqual([
      ['CLB_INSTANCE_QUOTA', 'pass', 'Region'],
      ['NLB_INSTANCE_QUOTA', 'pass', 'Region'],
      ['NLB_ORPHANED', 'pass', 'Region'],
      ['NLB_SERVER_GROUP_ORPHANED', 'pass', 'Region'],
      ['NLB_SERVER_GROUP_QUOTA', 'pass', 'Region'],
    ]);
  });

  it('gives every check no result or only passes on an empty fleet with a frozen clock', () => {
    for (const now of [FROZEN_NOW, new Date(0)]) {
      const out = runAudit(factory.snapshot(), { now });
      expect(out).toEqual({ results: [], findings: [], counts: new Map() });
    }
  });

  it('is deterministic and independent of the wall clock', () => {
    const a = runAudit(busyFleet(), { now: FROZEN_NOW });
    const b = runAudit(busyFleet(), { now: new Date('2030-01-01T00:00:00Z') });
    expect(b).toEqual(a);
  });

  it('sorts findings by severity (critical first), check id, resource id', () => {
    const { findings } = runAudit(busyFleet(), { now: FROZEN_NOW });
    expect(findings.length).toBeGreaterThan(3);
    const keys = findings.map((f) =>
      [2 - ['info', 'warning', 'critical'].indexOf(f.severity), f.checkId, f.resource.id].join('|'),
    );
    expect(keys).toEqual([...keys].sort());
    expect(findings[0]).toMatchObject({
      checkId: 'CLB_BACKEND_QUOTA',
      severity: 'critical',
      resource: { id: 'lb-full' },
    });
  });

  it('enriches findings: remediation, source, fingerprint, used/limit/ratio at top level', () => {
    const { findings } = runAudit(busyFleet(), { now: FROZEN_NOW });
    const f = findings.find((x) => x.resource.id === 'lb-warm');
    const check = CHECKS.find((c) => c.id === 'CLB_BACKEND_QUOTA');
    expect(f).toMatchObject({
      checkId: 'CLB_BACKEND_QUOTA',
      severity: 'warning',
      used: 170,
      limit: 200,
      ratio: 0.85,
      remediation: check?.remediation,
      source: check?.source,
      figures: { distinctServers: 170, limitSource: 'default' },
    });
    expect(f?.fingerprint).toBe(fingerprintOf('CLB_BACKEND_QUOTA', f!.resource));
  });

  it('sorts results by check id then resource key', () => {
    const { results } = runAudit(busyFleet(), { now: FROZEN_NOW });
    const ids = results.map((r) => r.checkId);
    expect(ids).toEqual([...ids].sort());
  });

  it('applies per-check severity overrides and disabling', () => {
    const out = runAudit(busyFleet(), {
      now: FROZEN_NOW,
      settings: { checks: { CLB_BACKEND_QUOTA: { severity: 'info' }, LB_ORPHANED: { enabled: false } } },
    });
    expect(out.results.some((r) => r.checkId === 'LB_ORPHANED')).toBe(false);
    const quota = out.findings.filter((f) => f.checkId === 'CLB_BACKEND_QUOTA');
    expect(quota.map((f) => f.severity)).toEqual(['info', 'info']);
  });

  it('takes quota thresholds from settings', () => {
    const strict = runAudit(busyFleet(), {
      now: FROZEN_NOW,
      settings: { quota: { warningRatio: 0.5, criticalRatio: 0.8 } },
    });
    const warm = strict.findings.find((f) => f.resource.id === 'lb-warm');
    expect(warm?.severity).toBe('critical');
  });

  it('rejects invalid settings with a typed error', () => {
    const bad = [
      { quota: { warningRatio: 0.9, criticalRatio: 0.8 } },
      { quota: { criticalRatio: 1.5 } },
      { clusterModeBlowup: { minFactor: 0.5 } },
      { vSwitchIps: { warningFreeIps: 4, criticalFreeIps: 8 } },
      { vSwitchIps: { warningFreeIps: -1 } },
      { ccmScale: { maxLoadBalancerServices: 0 } },
      { ccmScale: { maxBackends: 1.5 } },
      { servicePending: { graceSeconds: -5 } },
      { ccm: { ramTargetVersion: 'latest' } },
      { checks: { NOT_A_CHECK: { enabled: false } } },
    ];
    for (const settings of bad) {
      expect(() => runAudit(factory.snapshot(), { now: FROZEN_NOW, settings })).toThrow(AuditSettingsError);
    }
    expect(() => resolveAuditSettings({ checks: { NOPE: {} } }, CHECK_IDS)).toThrow(
      expect.objectContaining({ name: 'AuditSettingsError', code: 'UNKNOWN_CHECK' }),
    );
  });

  it('has documented defaults', () => {
    expect(DEFAULT_AUDIT_SETTINGS.quota).toEqual({ warningRatio: 0.8, criticalRatio: 0.95 });
    expect(resolveAuditSettings(undefined, CHECK_IDS)).toEqual({
      quota: { warningRatio: 0.8, criticalRatio: 0.95 },
      clusterModeBlowup: { minFactor: 2, minExtraBackends: 10 },
      vSwitchIps: { warningFreeIps: 32, criticalFreeIps: 0 },
      ccmScale: { maxLoadBalancerServices: 200, maxBackends: 10_000 },
      servicePending: { graceSeconds: 300 },
      ccm: { ramTargetVersion: 'v2.12.1' },
      owners: { tagKey: 'team', clusters: {} },
      checks: {},
    });
  });

  it('findings carry the owning team: a configured team by cluster id or name wins over the team tag', () => {
    const snapshot = busyFleet();
    const tagged = snapshot.accounts[0]!.regions[0]!.clusters[0]!;
    tagged.tags = { team: 'payments', owner: 'search' };
    const teamsOf = (settings?: Parameters<typeof runAudit>[1]['settings']) =>
      new Set(runAudit(snapshot, { now: FROZEN_NOW, ...(settings ? { settings } : {}) }).findings.filter((f) => f.resource.clusterId === tagged.clusterId).map((f) => f.resource.team));
    expect(teamsOf()).toEqual(new Set(['payments']));
    expect(teamsOf({ owners: { tagKey: 'owner' } })).toEqual(new Set(['search']));
    expect(teamsOf({ owners: { clusters: { [tagged.name]: 'platform' } } })).toEqual(new Set(['platform']));
    expect(teamsOf({ owners: { tagKey: 'absent' } })).toEqual(new Set([undefined]));
    tagged.tags = { team: 'not a team name!' };
    expect(teamsOf()).toEqual(new Set([undefined]));
  });

  it('never reports a skipped result as a finding', () => {
    const out = runAudit(factory.fleet([factory.region({ clusters: [factory.cluster()] })]), {
      now: FROZEN_NOW,
    });
    expect(out.results.filter((r) => r.status === 'skipped').length).toBeGreaterThan(0);
    expect(out.findings).toEqual([]);
  });

  it('counts every result by status per check id, in check-id order', () => {
    const out = runAudit(busyFleet(), { now: FROZEN_NOW });
    expect([...out.counts.keys()]).toEqual([...new Set(out.results.map((r) => r.checkId))]);
    expect(out.counts).toEqual(statusCountsOf(out.results));
    const fails = [...out.counts.values()].reduce((n, c) => n + c.fail, 0);
    expect(fails).toBe(out.findings.length);
    expect(fails).toBeGreaterThan(0);
  });

  it('keeps only the pass and fail results of the checks in keepResultsOf, every skipped result, and the same findings and counts', () => {
    const snap = busyFleet();
    // A cluster whose Kubernetes side was not read: its Service checks give skipped results.
    snap.accounts[0]!.regions[0]!.clusters.push(factory.cluster({ clusterId: 'c-unread', kubernetes: undefined }));
    const full = runAudit(snap, { now: FROZEN_NOW });
    const kept = new Set(['CLB_BACKEND_QUOTA', 'ECS_LB_ATTACHMENT_QUOTA']);
    const scan = runAudit(snap, { now: FROZEN_NOW, keepResultsOf: kept });
    const skipped = full.results.filter((r) => r.status === 'skipped');
    expect(skipped.filter((r) => !kept.has(r.checkId)).length).toBeGreaterThan(0);
    expect(full.results.some((r) => !kept.has(r.checkId) && r.status === 'pass')).toBe(true);
    expect(full.results.some((r) => kept.has(r.checkId) && r.status === 'fail')).toBe(true);
    expect(scan.results).toEqual(full.results.filter((r) => r.status === 'skipped' || kept.has(r.checkId)));
    expect(scan.findings).toEqual(full.findings);
    expect(scan.counts).toEqual(full.counts);
    expect(runAudit(snap, { now: FROZEN_NOW, keepResultsOf: new Set() }).results).toEqual(skipped);
  });

  it('carries the quota samples of quotaSamplesOf, equal to quotaUsageOf of every result, whatever it keeps', () => {
    const snap = busyFleet();
    snap.accounts[0]!.regions[0]!.clusters.push(factory.cluster({ clusterId: 'c-unread', kubernetes: undefined }));
    const full = runAudit(snap, { now: FROZEN_NOW });
    expect(full.quotaUsage).toBeUndefined();
    const want = quotaUsageOf(full.results, QUOTA_USAGE_CHECK_IDS);
    // Passes and fails of more than one quota check, in more than one resource order.
    expect(new Set(want.map((s) => s.checkId)).size).toBeGreaterThan(2);
    expect(want.some((s) => s.ratio >= 0.8)).toBe(true);
    expect(want.some((s) => s.ratio < 0.8)).toBe(true);
    const lean = runAudit(snap, { now: FROZEN_NOW, keepResultsOf: new Set(), quotaSamplesOf: QUOTA_USAGE_CHECK_IDS });
    expect(lean.quotaUsage).toEqual(want);
    expect(lean.results).toEqual(full.results.filter((r) => r.status === 'skipped'));
    expect(lean.findings).toEqual(full.findings);
    expect(lean.counts).toEqual(full.counts);
    // Every result kept: the samples are taken from the returned lists, the same ones.
    expect(runAudit(snap, { now: FROZEN_NOW, quotaSamplesOf: QUOTA_USAGE_CHECK_IDS }).quotaUsage).toEqual(want);
    // One check sampled, another kept: only that check's samples; an owned load balancer's sample names its cluster.
    const one = new Set(['CLB_BACKEND_QUOTA']);
    const some = runAudit(snap, { now: FROZEN_NOW, keepResultsOf: new Set(['ECS_LB_ATTACHMENT_QUOTA']), quotaSamplesOf: one });
    expect(some.quotaUsage).toEqual(quotaUsageOf(full.results, one));
    expect(some.quotaUsage!.every((s) => s.resource.kind === 'LoadBalancer')).toBe(true);
    expect(some.quotaUsage!.some((s) => s.resource.clusterId !== undefined)).toBe(true);
  });

  it('drops the samples of a check that throws, with its results', () => {
    const snap = busyFleet();
    const only = { keepResultsOf: new Set<string>(), quotaSamplesOf: new Set(['CLB_BACKEND_QUOTA']) };
    expect(runAudit(snap, { now: FROZEN_NOW, ...only }).quotaUsage!.length).toBeGreaterThan(0);
    // Pushes its results (passes sampled through the tally's sink), then fails.
    const out = withCheckThatThrows('CLB_BACKEND_QUOTA', () => runAudit(snap, { now: FROZEN_NOW, ...only }));
    expect(out.quotaUsage).toEqual([]);
    expect(out.counts.get('CLB_BACKEND_QUOTA')).toEqual({ pass: 0, fail: 0, skipped: snap.accounts.length });
  });

  it('drops the results about resources resultsAbout refuses, from results, findings, counts and samples alike', () => {
    const snap = busyFleet();
    snap.accounts[0]!.regions[0]!.clusters.push(factory.cluster({ clusterId: 'c-unread', kubernetes: undefined }));
    const full = runAudit(snap, { now: FROZEN_NOW });
    // Refused: the unread cluster's skipped results, every ECS instance (ECS_LB_ATTACHMENT_QUOTA passes and samples)
    // and the load balancer of the first CLB finding (its fails, passes and samples).
    const failedLb = full.findings.find((f) => f.resource.kind === 'LoadBalancer')!.resource.id;
    const about = (r: ResourceRef): boolean => r.kind !== 'EcsInstance' && r.clusterId !== 'c-unread' && r.id !== failedLb;
    const refused = full.results.filter((r) => !about(r.resource));
    expect(new Set(refused.map((r) => r.status))).toEqual(new Set(['pass', 'fail', 'skipped']));
    const reported = full.results.filter((r) => about(r.resource));
    const wantFindings = full.findings.filter((f) => about(f.resource));
    expect(wantFindings.length).toBeGreaterThan(0);
    expect(wantFindings.length).toBeLessThan(full.findings.length);
    const wantSamples = quotaUsageOf(reported, QUOTA_USAGE_CHECK_IDS);
    expect(quotaUsageOf(full.results, QUOTA_USAGE_CHECK_IDS).length).toBeGreaterThan(wantSamples.length);
    // Every result kept (the engine filters the returned lists) and none kept (the tally's sink drops them as pushed).
    const all = runAudit(snap, { now: FROZEN_NOW, resultsAbout: about, quotaSamplesOf: QUOTA_USAGE_CHECK_IDS });
    expect(all.results).toEqual(reported);
    expect(all.findings).toEqual(wantFindings);
    expect(all.counts).toEqual(statusCountsOf(reported));
    expect(all.quotaUsage).toEqual(wantSamples);
    const lean = runAudit(snap, { now: FROZEN_NOW, resultsAbout: about, keepResultsOf: new Set(), quotaSamplesOf: QUOTA_USAGE_CHECK_IDS });
    expect(lean.results).toEqual(reported.filter((r) => r.status === 'skipped'));
    expect(lean.findings).toEqual(wantFindings);
    expect(lean.counts).toEqual(statusCountsOf(reported));
    expect(lean.quotaUsage).toEqual(wantSamples);
    // A check that throws is one skipped result per account, about the account: refused too, kept or not.
    withCheckThatThrows('CLB_BACKEND_QUOTA', () => {
      const notAccount = (r: ResourceRef): boolean => r.kind !== 'Account';
      expect(runAudit(snap, { now: FROZEN_NOW, keepResultsOf: new Set() }).counts.get('CLB_BACKEND_QUOTA')).toEqual({ pass: 0, fail: 0, skipped: 1 });
      for (const keep of [undefined, new Set<string>()]) {
        const out = runAudit(snap, { now: FROZEN_NOW, resultsAbout: notAccount, ...(keep ? { keepResultsOf: keep } : {}) });
        expect(out.counts.get('CLB_BACKEND_QUOTA')).toBeUndefined();
        expect(out.results.some((r) => r.checkId === 'CLB_BACKEND_QUOTA')).toBe(false);
      }
    });
  });

  it('evaluates a whole service with many checks at once', () => {
    const svc = factory.service({ uid: uid(), annotations: { [`${P}id`]: 'lb-full' } });
    const snap = busyFleet();
    snap.accounts[0]!.regions[0]!.clusters[0]!.kubernetes!.services.push(svc);
    const out = runAudit(snap, { now: FROZEN_NOW });
    expect(
      out.results.filter((r) => r.resource.id === 'default/web' && r.resource.clusterId === CLUSTER_ID)
        .length,
    ).toBeGreaterThan(2);
  });
});

describe('fingerprintOf', () => {
  const ref: ResourceRef = { kind: 'LoadBalancer', id: 'lb-1', accountId: '1', regionId: 'cn-hangzhou' };

  it('is the first 32 hex chars of sha256(check id + resource key)', () => {
    const expected = createHash('sha256')
      .update('LB_ORPHANED\u0000LoadBalancer|1|cn-hangzhou||lb-1')
      .digest('hex')
      .slice(0, 32);
    expect(fingerprintOf('LB_ORPHANED', ref)).toBe(expected);
  });

  it('differs by check, account and region, and ignores the display name', () => {
    const base = fingerprintOf('LB_ORPHANED', ref);
    expect(fingerprintOf('CLB_BACKEND_QUOTA', ref)).not.toBe(base);
    expect(fingerprintOf('LB_ORPHANED', { ...ref, accountId: '2' })).not.toBe(base);
    expect(fingerprintOf('LB_ORPHANED', { ...ref, regionId: 'cn-beijing' })).not.toBe(base);
    expect(fingerprintOf('LB_ORPHANED', { ...ref, name: 'renamed' })).toBe(base);
  });
});

describe('runAudit with settings resolved already (resolvedSettings)', () => {
  const failedIds = (out: ReturnType<typeof runAudit>) => out.findings.map((f) => `${f.checkId} ${f.resource.id} ${f.severity}`).sort();

  it('judges by the resolved settings it is given, as by the settings they were resolved from, instead of resolving `settings`', () => {
    const settings = { quota: { warningRatio: 0.5, criticalRatio: 0.6 } };
    const want = failedIds(runAudit(busyFleet(), { now: FROZEN_NOW, settings }));
    expect(want).not.toEqual(failedIds(runAudit(busyFleet(), { now: FROZEN_NOW })));
    const resolvedSettings = resolveAuditSettings(settings, CHECK_IDS);
    expect(failedIds(runAudit(busyFleet(), { now: FROZEN_NOW, settings, resolvedSettings }))).toEqual(want);
    expect(failedIds(runAudit(busyFleet(), { now: FROZEN_NOW, resolvedSettings }))).toEqual(want);
    // The resolved settings win: the partial ones are not read again.
    expect(failedIds(runAudit(busyFleet(), { now: FROZEN_NOW, settings: { quota: { warningRatio: 0.99, criticalRatio: 0.995 } }, resolvedSettings }))).toEqual(want);
  });
});
