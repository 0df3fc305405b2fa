/**
 * Named table cases for the edge cases of each check (STYLE.md G.34), built with the factories.
 * The common path of each check is covered by the fixtures (check-fixtures.spec.ts).
 */
import { describe, expect, it } from 'vitest';
import { CHECKS, runAudit, type PartialAuditSettings } from '@app/checks';
import { CCM_ERROR_ROWS, type CheckResult, type FleetSnapshot, type K8sEvent } from '@app/domain';
import { CLUSTER_ID, FIXTURE_DEFAULT_LB_NAME, FIXTURE_UID, FROZEN_NOW, P, factory, uid } from './factories';

/** Runs one check and returns its results. */
function run(checkId: string, snapshot: FleetSnapshot, settings: PartialAuditSettings = {}): CheckResult[] {
  const checks: NonNullable<PartialAuditSettings['checks']> = { ...settings.checks };
  for (const c of CHECKS) if (c.id !== checkId) checks[c.id] = { enabled: false };
  return runAudit(snapshot, { now: FROZEN_NOW, settings: { ...settings, checks } }).results;
}

function one(results: CheckResult[], id?: string): CheckResult {
  const r = id ? results.filter((x) => x.resource.id === id) : results;
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('CLB_BACKEND_QUOTA', () => {
  const withEntries = (n: number, extra: Partial<Parameters<typeof factory.region>[0]> = {}) =>
    factory.fleet([
      factory.region({
        loadBalancers: [
          factory.clb({ vServerGroups: [factory.vServerGroup({ backendServers: factory.backends(n) })] }),
        ],
        ...extra,
      }),
    ]);

  it.each([
    ['159 of 200 (79.5 %) passes', 159, 'pass', undefined],
    ['160 of 200 (80 %) is a warning', 160, 'fail', 'warning'],
    ['189 of 200 (94.5 %) is a warning', 189, 'fail', 'warning'],
    ['190 of 200 (95 %) is critical', 190, 'fail', 'critical'],
    ['201 of 200 is critical', 201, 'fail', 'critical'],
  ])('%s', (_name, n, status, severity) => {
    const r = one(run('CLB_BACKEND_QUOTA', withEntries(n)));
    expect(r.status).toBe(status);
    if (severity) expect(r.severity).toBe(severity);
    expect(r.figures).toMatchObject({ used: n, limit: 200 });
  });

  it('counts entries across groups and the default group but distinct servers once', () => {
    const snap = factory.fleet([
      factory.region({
        loadBalancers: [
          factory.clb({
            defaultBackendServers: factory.backends(5),
            vServerGroups: [
              factory.vServerGroup({ vServerGroupId: 'rsp-1', backendServers: factory.backends(5) }),
              factory.vServerGroup({
                vServerGroupId: 'rsp-2',
                backendServers: factory.backends(5, 'i-b', 30081),
              }),
            ],
          }),
        ],
      }),
    ]);
    expect(one(run('CLB_BACKEND_QUOTA', snap)).figures).toMatchObject({
      used: 15,
      distinctServers: 5,
      vServerGroups: 2,
    });
  });

  it('ignores Quota Center entries of other quotas and falls back to 200', () => {
    const r = one(
      run(
        'CLB_BACKEND_QUOTA',
        withEntries(10, { quotas: [{ quotaActionCode: 'slb_quota_listeners_num', totalQuota: 5 }] }),
      ),
    );
    expect(r.figures).toMatchObject({ limit: 200, limitSource: 'default' });
  });
});

describe('ECS_LB_ATTACHMENT_QUOTA', () => {
  it('counts one CLB once even when the ECS is in several of its groups, and ignores ENI backends', () => {
    const snap = factory.fleet([
      factory.region({
        ecsInstances: [factory.ecs(1)],
        loadBalancers: [
          factory.clb({
            loadBalancerId: 'lb-a',
            vServerGroups: [
              factory.vServerGroup({
                vServerGroupId: 'rsp-1',
                backendServers: [factory.backend('i-node0001')],
              }),
              factory.vServerGroup({
                vServerGroupId: 'rsp-2',
                backendServers: [factory.backend('i-node0001', { port: 30081 })],
              }),
            ],
          }),
          factory.clb({ loadBalancerId: 'lb-b', defaultBackendServers: [factory.backend('i-node0001')] }),
          factory.clb({
            loadBalancerId: 'lb-c',
            vServerGroups: [
              factory.vServerGroup({ backendServers: [factory.backend('eni-1', { type: 'eni' })] }),
            ],
          }),
        ],
      }),
    ]);
    const results = run('ECS_LB_ATTACHMENT_QUOTA', snap);
    expect(one(results, 'i-node0001').figures).toMatchObject({ used: 2, vServerGroups: 3, limit: 50 });
    expect(results.find((r) => r.resource.id === 'eni-1')).toBeUndefined();
  });

  it('names the node and cluster of an ECS that is a cluster node', () => {
    const snap = factory.fleet([
      factory.region({
        loadBalancers: [factory.clb({ defaultBackendServers: [factory.backend('i-node0003')] })],
        clusters: [factory.cluster({ kubernetes: factory.kubernetes({ nodes: factory.nodes(5) }) })],
      }),
    ]);
    expect(one(run('ECS_LB_ATTACHMENT_QUOTA', snap)).resource).toMatchObject({
      id: 'i-node0003',
      name: 'node-3',
      clusterId: CLUSTER_ID,
    });
  });
});

describe('CLUSTER_MODE_BLOWUP', () => {
  const clusterWith = (
    svc = factory.service(),
    nodes = factory.nodes(30),
    over: Parameters<typeof factory.cluster>[0] = {},
  ) =>
    factory.cluster({
      kubernetes: factory.kubernetes({
        nodes,
        services: [svc],
        endpointSlices: [factory.endpointSlice(svc.name, [['172.20.0.9', 'node-1']])],
      }),
      ...over,
    });

  it('multiplies by the number of NodePorts', () => {
    const svc = factory.service({
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 },
        { name: 'https', protocol: 'TCP', port: 443, targetPort: 8443, nodePort: 30443 },
      ],
    });
    const r = one(
      run('CLUSTER_MODE_BLOWUP', factory.fleet([factory.region({ clusters: [clusterWith(svc)] })])),
    );
    expect(r.figures).toMatchObject({ used: 60, localModeBackends: 2, extraBackends: 58, ports: 2 });
  });

  it('keeps cordoned nodes unless remove-unscheduled-backend is "on" (seed 004)', () => {
    const nodes = [
      ...factory.nodes(12),
      ...Array.from({ length: 8 }, (_, i) => factory.node(100 + i, { unschedulable: true })),
    ];
    const keep = one(
      run(
        'CLUSTER_MODE_BLOWUP',
        factory.fleet([factory.region({ clusters: [clusterWith(factory.service(), nodes)] })]),
      ),
    );
    expect(keep.figures?.['eligibleNodes']).toBe(20);
    const drop = one(
      run(
        'CLUSTER_MODE_BLOWUP',
        factory.fleet([
          factory.region({
            clusters: [
              clusterWith(
                factory.service({ annotations: { [`${P}remove-unscheduled-backend`]: 'on' } }),
                nodes,
              ),
            ],
          }),
        ]),
      ),
    );
    expect(drop.figures?.['eligibleNodes']).toBe(12);
  });

  it("is critical when the Service's CLB is at the critical quota ratio", () => {
    const snap = factory.fleet([
      factory.region({
        loadBalancers: [
          factory.ccmClb({
            vServerGroups: [factory.vServerGroup({ backendServers: factory.backends(195) })],
          }),
        ],
        clusters: [clusterWith()],
      }),
    ]);
    const r = one(run('CLUSTER_MODE_BLOWUP', snap));
    expect(r).toMatchObject({
      status: 'fail',
      severity: 'critical',
      figures: { loadBalancerId: 'lb-1', ratio: 0.975 },
    });
  });

  describe('on a small cluster', () => {
    // 4 nodes, the Service's pods on node-1 only: Cluster mode attaches 3 extra backends, under the absolute
    // floor of 10. Every node is also in 3 other CLBs, so with the Service's CLB each holds 4 attachments.
    const nodeIds = ['i-node0001', 'i-node0002', 'i-node0003', 'i-node0004'];
    const smallCluster = (attachQuota?: number) =>
      factory.fleet([
        factory.region({
          ...(attachQuota !== undefined
            ? {
                quotas: [
                  { quotaActionCode: 'slb_quota_backendserver_attached_num', totalQuota: attachQuota },
                ],
              }
            : {}),
          loadBalancers: [
            factory.ccmClb({
              vServerGroups: [
                factory.vServerGroup({ backendServers: nodeIds.map((id) => factory.backend(id)) }),
              ],
            }),
            ...['lb-o1', 'lb-o2', 'lb-o3'].map((id) =>
              factory.clb({
                loadBalancerId: id,
                name: id,
                defaultBackendServers: nodeIds.map((n) => factory.backend(n)),
              }),
            ),
          ],
          clusters: [clusterWith(factory.service(), factory.nodes(4))],
        }),
      ]);

    it('names the burnt attachments when the attachment quota is lowered to 5 (4 of 5 used: warning)', () => {
      const r = one(run('CLUSTER_MODE_BLOWUP', smallCluster(5)));
      expect(r).toMatchObject({
        status: 'fail',
        severity: 'warning',
        figures: {
          eligibleNodes: 4,
          localNodes: 1,
          extraBackends: 3,
          minExtraBackends: 1,
          maxExtraNodeAttachmentRatio: 0.8,
          loadBalancerId: 'lb-1',
        },
      });
      expect(r.message).toContain(
        'the ECS attachment quota of a node attached only by Cluster mode (4/5, 80',
      );
    });

    it('reports a blowup that pushes the attachment quota to warning even above the scaled floor', () => {
      const r = one(run('CLUSTER_MODE_BLOWUP', smallCluster(5), { clusterModeBlowup: { minFactor: 40 } }));
      expect(r.status).toBe('fail');
      expect(r.message).toContain('attached only by Cluster mode (4/5');
    });

    it('stays silent on the same cluster with the default attachment quota of 50 (4 of 50 used)', () => {
      const r = one(run('CLUSTER_MODE_BLOWUP', smallCluster()));
      expect(r).toMatchObject({
        status: 'pass',
        figures: { extraBackends: 3, minExtraBackends: 10, maxExtraNodeAttachmentRatio: 0.08 },
      });
    });
  });

  it('honours the configured thresholds', () => {
    const snap = factory.fleet([factory.region({ clusters: [clusterWith()] })]);
    expect(one(run('CLUSTER_MODE_BLOWUP', snap)).status).toBe('fail');
    expect(
      one(run('CLUSTER_MODE_BLOWUP', snap, { clusterModeBlowup: { minExtraBackends: 50 } })).status,
    ).toBe('pass');
    expect(one(run('CLUSTER_MODE_BLOWUP', snap, { clusterModeBlowup: { minFactor: 40 } })).status).toBe(
      'pass',
    );
  });

  it('treats a Service without ready pods as pure waste (factor = eligible nodes)', () => {
    const svc = factory.service();
    const c = factory.cluster({
      kubernetes: factory.kubernetes({ nodes: factory.nodes(30), services: [svc] }),
    });
    expect(
      one(run('CLUSTER_MODE_BLOWUP', factory.fleet([factory.region({ clusters: [c] })]))).figures,
    ).toMatchObject({
      localNodes: 0,
      blowupFactor: 30,
    });
  });

  it.each([
    [
      'NLB Services in the CLB part (the NLB part gives its one result: skipped here, the region has no nlb data)',
      factory.service({ loadBalancerClass: 'alibabacloud.com/nlb' }),
      1,
    ],
    ['NodePort Services', factory.service({ type: 'NodePort' }), 0],
    [
      'LoadBalancer Services with a tunnel-type key',
      factory.service({ annotations: { [`${P}tunnel-type`]: '' } }),
      0,
    ],
  ])('ignores %s', (_name, svc, n) => {
    expect(
      run('CLUSTER_MODE_BLOWUP', factory.fleet([factory.region({ clusters: [clusterWith(svc)] })])),
    ).toHaveLength(n);
  });

  it('skips a Service when the add-ons (network plugin) were not read, unless backend-type is explicit', () => {
    const noAddons = clusterWith(factory.service(), factory.nodes(30), {
      addons: undefined,
      networkPlugin: 'unknown',
    });
    expect(
      one(run('CLUSTER_MODE_BLOWUP', factory.fleet([factory.region({ clusters: [noAddons] })]))).status,
    ).toBe('skipped');
    const explicit = clusterWith(
      factory.service({ annotations: { 'service.beta.kubernetes.io/backend-type': 'ecs' } }),
      factory.nodes(30),
      {
        addons: undefined,
        networkPlugin: 'unknown',
      },
    );
    expect(
      one(run('CLUSTER_MODE_BLOWUP', factory.fleet([factory.region({ clusters: [explicit] })]))).status,
    ).toBe('fail');
  });

  it('skips a Service whose backend-label does not parse', () => {
    const c = clusterWith(factory.service({ annotations: { [`${P}backend-label`]: 'pool' } }));
    expect(
      one(run('CLUSTER_MODE_BLOWUP', factory.fleet([factory.region({ clusters: [c] })]))).reason,
    ).toContain('parse backend label');
  });
});

describe('NODEPORT_IN_EPHEMERAL_RANGE', () => {
  it('gives no result for Services without NodePorts and reports nodes per range', () => {
    const c = factory.cluster({
      nodeLocalPortRanges: {
        'i-node0000': { from: 30000, to: 60999 },
        'i-node0001': { from: 30000, to: 60999 },
        'i-node0002': { from: 32768, to: 60999 },
      },
      kubernetes: factory.kubernetes({
        services: [
          factory.service(),
          factory.service({
            name: 'internal',
            uid: uid(),
            type: 'ClusterIP',
            ports: [{ protocol: 'TCP', port: 80 }],
          }),
        ],
      }),
    });
    const r = one(run('NODEPORT_IN_EPHEMERAL_RANGE', factory.fleet([factory.region({ clusters: [c] })])));
    expect(r).toMatchObject({
      status: 'fail',
      resource: { id: 'default/web' },
      figures: { nodesAffected: 2 },
    });
  });

  it('counts the nodes of each distinct range, consecutive or not, ranges that share a start apart', () => {
    const c = factory.cluster({
      nodeLocalPortRanges: {
        'i-node0000': { from: 30000, to: 60999 },
        'i-node0001': { from: 30000, to: 30001 },
        'i-node0002': { from: 30000, to: 60999 },
        'i-node0003': { from: 30000, to: 60999 },
        'i-node0004': { from: 30070, to: 30090 },
        'i-node0005': { from: 30070, to: 30090 },
      },
      kubernetes: factory.kubernetes({ services: [factory.service()] }),
    });
    const r = one(run('NODEPORT_IN_EPHEMERAL_RANGE', factory.fleet([factory.region({ clusters: [c] })])));
    expect(r).toMatchObject({ status: 'fail', figures: { nodesAffected: 5, portsInside: 1 } });
    expect(r.message).toBe('default/web uses NodePort 30080 (in 30000-60999, 30070-30090 on 5 nodes) inside ip_local_port_range');
  });
});

describe('LB_ORPHANED', () => {
  it('skips a CLB tagged for an unknown cluster when the cluster list failed', () => {
    const snap = factory.fleet(
      [factory.region({ loadBalancers: [factory.ccmClb({ clusterId: 'cgone' })] })],
      {
        coverage: [
          {
            accountId: '1234567890123456',
            regionId: 'cn-hangzhou',
            api: 'cs',
            status: 'failed',
            message: 'Throttling',
          },
        ],
      },
    );
    expect(one(run('LB_ORPHANED', snap))).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('Throttling'),
    });
  });

  it('does not match a Service of another cluster with the same name (UIDs differ)', () => {
    const snap = factory.fleet([
      factory.region({
        loadBalancers: [factory.ccmClb({ ownerName: FIXTURE_DEFAULT_LB_NAME })],
        clusters: [
          factory.cluster({
            kubernetes: factory.kubernetes({ services: [factory.service({ uid: uid() })] }),
          }),
        ],
      }),
    ]);
    expect(one(run('LB_ORPHANED', snap))).toMatchObject({
      status: 'fail',
      figures: { orphanReason: 'service-gone' },
    });
  });

  it('ignores CLBs without the kubernetes.do.not.delete tag, including the usual API server CLB', () => {
    const snap = factory.fleet([
      factory.region({
        loadBalancers: [
          factory.clb({ loadBalancerId: 'lb-api', tags: { 'ack.aliyun.com': CLUSTER_ID } }),
          factory.clb({ loadBalancerId: 'lb-console' }),
        ],
        clusters: [factory.cluster({ apiServerLoadBalancerId: 'lb-api', kubernetes: factory.kubernetes() })],
      }),
    ]);
    expect(run('LB_ORPHANED', snap)).toEqual([]);
  });
});

describe('LB_REUSE_OF_CCM_CREATED / LB_REUSE_OF_APISERVER', () => {
  const reuse = (lbId: string, legacy = false) =>
    factory.service({
      name: 'edge',
      uid: uid(),
      annotations: { [legacy ? `service.beta.kubernetes.io/alicloud-loadbalancer-id` : `${P}id`]: lbId },
    });

  it('reads the legacy alicloud- prefix too', () => {
    const snap = factory.fleet([
      factory.region({
        loadBalancers: [factory.ccmClb({ loadBalancerId: 'lb-web' })],
        clusters: [
          factory.cluster({ kubernetes: factory.kubernetes({ services: [reuse('lb-web', true)] }) }),
        ],
      }),
    ]);
    expect(one(run('LB_REUSE_OF_CCM_CREATED', snap)).status).toBe('fail');
  });

  it('fails on an ack.aliyun.com tag alone (CCM checks either key)', () => {
    const snap = factory.fleet([
      factory.region({
        loadBalancers: [factory.clb({ loadBalancerId: 'lb-ack', tags: { 'ack.aliyun.com': 'cother' } })],
        clusters: [factory.cluster({ kubernetes: factory.kubernetes({ services: [reuse('lb-ack')] }) })],
      }),
    ]);
    expect(one(run('LB_REUSE_OF_CCM_CREATED', snap))).toMatchObject({
      status: 'fail',
      figures: { clusterTag: 'cother' },
    });
  });

  it('leaves the API server CLB to LB_REUSE_OF_APISERVER, which also fails without CLB data', () => {
    const snap = factory.fleet([
      factory.region({
        clusters: [
          factory.cluster({
            apiServerLoadBalancerId: 'lb-api',
            kubernetes: factory.kubernetes({ services: [reuse('lb-api')] }),
          }),
        ],
      }),
    ]);
    expect(one(run('LB_REUSE_OF_CCM_CREATED', snap)).status).toBe('skipped');
    expect(one(run('LB_REUSE_OF_APISERVER', snap)).status).toBe('fail');
  });

  it("skips when the region's CLBs were not read", () => {
    const snap = factory.fleet([
      factory.region({
        clusters: [factory.cluster({ kubernetes: factory.kubernetes({ services: [reuse('lb-x')] }) })],
      }),
    ]);
    expect(one(run('LB_REUSE_OF_CCM_CREATED', snap)).reason).toContain('were not read');
    expect(one(run('LB_REUSE_CROSS_VPC', snap)).status).toBe('skipped');
  });

  // Account B's Service names a CLB of account A (same region id): CCM runs with B's credentials in B's region,
  // never sees A's CLB and answers "can not find loadbalancer" (clbv1/loadbalancer.go `Find`). Before, these two
  // checks looked the CLB up fleet-wide and reported a refusal / a NetworkConflict that cannot happen.
  describe("a CLB of another account (CCM's view is the Service's account and region)", () => {
    const OTHER = '6543210987654321';
    const crossAccount = (clbOver: Parameters<typeof factory.clb>[0]) =>
      factory.snapshot({
        accounts: [
          factory.account({ regions: [factory.region({ loadBalancers: [factory.clb({ loadBalancerId: 'lb-a', ...clbOver })] })] }),
          factory.account({
            accountId: OTHER,
            name: 'acme-other',
            regions: [
              factory.region({
                accountId: OTHER,
                loadBalancers: [],
                clusters: [
                  factory.cluster({ clusterId: 'cother', accountId: OTHER, kubernetes: factory.kubernetes({ services: [reuse('lb-a')] }) }),
                ],
              }),
            ],
          }),
        ],
      });

    it('LB_REUSE_OF_CCM_CREATED does not report reuse of a CCM-created CLB of another account', () => {
      const snap = crossAccount({ tags: { 'kubernetes.do.not.delete': 'aother', 'ack.aliyun.com': 'cfirst' } });
      expect(one(run('LB_REUSE_OF_CCM_CREATED', snap))).toMatchObject({
        status: 'skipped',
        reason: 'CLB lb-a is not among the CLB instances of cn-hangzhou (see LB_NOT_FOUND_FOR_SERVICE)',
        figures: { loadBalancerId: 'lb-a' },
      });
      expect(one(run('LB_NOT_FOUND_FOR_SERVICE', snap)).status).toBe('fail');
    });

    it('LB_REUSE_CROSS_VPC does not report a NetworkConflict for an internal CLB of another account', () => {
      const snap = crossAccount({ addressType: 'intranet', vpcId: 'vpc-elsewhere' });
      expect(one(run('LB_REUSE_CROSS_VPC', snap))).toMatchObject({ status: 'skipped', figures: { loadBalancerId: 'lb-a' } });
    });

    it('the same CLB in the Service\'s own account is judged (the fence is the account, not the id)', () => {
      const snap = crossAccount({ tags: { 'kubernetes.do.not.delete': 'aother' } });
      snap.accounts[1]!.regions[0]!.loadBalancers = snap.accounts[0]!.regions[0]!.loadBalancers!.map((l) => ({ ...l, accountId: OTHER }));
      snap.accounts[0]!.regions[0]!.loadBalancers = [];
      expect(one(run('LB_REUSE_OF_CCM_CREATED', snap)).status).toBe('fail');
    });
  });
});

describe('CCM_ANNOTATION_UNSUPPORTED', () => {
  const clusterWith = (ccmVersion: string, svc = factory.service()) =>
    factory.fleet([
      factory.region({
        clusters: [factory.cluster({ ccmVersion, kubernetes: factory.kubernetes({ services: [svc] }) })],
      }),
    ]);

  it.each([
    [
      'legacy prefix counts',
      'v1.9.3.276-g372aa98-aliyun',
      { 'service.beta.kubernetes.io/alicloud-loadbalancer-delete-protection': 'on' },
      'fail',
    ],
    [
      'boundary version supports it',
      'v1.9.3.313-g748f81e-aliyun',
      { [`${P}delete-protection`]: 'on' },
      'pass',
    ],
    [
      'backend-type needs v1.9.3.164',
      'v1.9.3.105-gfd4e547-aliyun',
      { 'service.beta.kubernetes.io/backend-type': 'eni' },
      'fail',
    ],
    ['unknown annotations are not judged', 'v1.9.3', { [`${P}made-up`]: 'x', 'example.com/x': 'y' }, 'pass'],
    [
      'dev builds compare by commits after the tag',
      'v2.10.0-5-gabc1234',
      { [`${P}preserve-lb-on-delete`]: 'true' },
      'pass',
    ],
  ])('%s', (_name, version, annotations, status) => {
    expect(
      one(run('CCM_ANNOTATION_UNSUPPORTED', clusterWith(version, factory.service({ annotations })))).status,
    ).toBe(status);
  });

  it('judges NLB Services against the NLB table (v2.5.0 minimum)', () => {
    const nlb = factory.service({
      loadBalancerClass: 'alibabacloud.com/nlb',
      annotations: { [`${P}zone-maps`]: 'cn-hangzhou-k:vsw-1' },
    });
    expect(one(run('CCM_ANNOTATION_UNSUPPORTED', clusterWith('v2.4.4', nlb))).status).toBe('fail');
    expect(one(run('CCM_ANNOTATION_UNSUPPORTED', clusterWith('v2.5.1', nlb))).status).toBe('pass');
  });

  it('skips a cluster whose CCM version does not parse', () => {
    expect(one(run('CCM_ANNOTATION_UNSUPPORTED', clusterWith('custom-build'))).reason).toContain(
      'does not parse',
    );
  });
});

describe('CCM_RAM_PERMISSION_GAP', () => {
  const ALL = ['slb:*', 'ecs:DescribeInstances', 'vpc:*', 'nlb:*'];
  const dedicated = (over: Parameters<typeof factory.cluster>[0] = {}) =>
    factory.cluster({ clusterType: 'Kubernetes', ramRoleNames: ['KubernetesMasterRole-0a1b'], ...over });

  it('honours an explicit Deny over a wildcard Allow', () => {
    const ram = factory.ram([factory.ramPolicy('k8sMasterRolePolicy-Ccm-0a1b', ['*'], ['nlb:List*'])]);
    const r = one(
      run('CCM_RAM_PERMISSION_GAP', factory.fleet([factory.region({ clusters: [dedicated()] })], { ram })),
    );
    expect(r).toMatchObject({
      status: 'fail',
      severity: 'critical',
      figures: { missingActions: ['nlb:ListAsynJobs'] },
    });
  });

  it('accepts NotAction allows', () => {
    const ram = factory.ram([
      {
        policyName: 'k8sMasterRolePolicy-0a1b',
        policyType: 'Custom',
        statements: [{ effect: 'Allow', actions: [], notActions: ['ram:*'], resources: ['*'] }],
      },
    ]);
    expect(
      one(
        run('CCM_RAM_PERMISSION_GAP', factory.fleet([factory.region({ clusters: [dedicated()] })], { ram })),
      ).status,
    ).toBe('pass');
  });

  it('finds the role by naming convention when cluster resources were not read', () => {
    const ram = factory.ram([factory.ramPolicy('k8sMasterRolePolicy-Ccm-0a1b', ALL)]);
    const r = one(
      run(
        'CCM_RAM_PERMISSION_GAP',
        factory.fleet([factory.region({ clusters: [dedicated({ ramRoleNames: undefined })] })], { ram }),
      ),
    );
    expect(r).toMatchObject({
      status: 'pass',
      figures: { roleBasis: 'naming-convention', roles: ['KubernetesMasterRole-0a1b'] },
    });
  });

  it('skips when no master role can be found', () => {
    const ram = { roles: [], policies: [], rolePolicies: {} };
    const r = one(
      run(
        'CCM_RAM_PERMISSION_GAP',
        factory.fleet([factory.region({ clusters: [dedicated({ ramRoleNames: undefined })] })], { ram }),
      ),
    );
    expect(r).toMatchObject({ status: 'skipped', reason: expect.stringContaining('no master RAM role') });
  });

  it('skips when an attached policy document was not read and something looks missing', () => {
    const ram = factory.ram([factory.ramPolicy('k8sMasterRolePolicy-Ccm-0a1b', ['slb:*'])]);
    ram.rolePolicies['KubernetesMasterRole-0a1b']!.push({
      policyName: 'AliyunVPCFullAccess',
      policyType: 'System',
    });
    const r = one(
      run('CCM_RAM_PERMISSION_GAP', factory.fleet([factory.region({ clusters: [dedicated()] })], { ram })),
    );
    expect(r).toMatchObject({ status: 'skipped', reason: expect.stringContaining('AliyunVPCFullAccess') });
  });

  it('skips (not fails) when an attached policy document could not be parsed, saying which and why', () => {
    const ram = factory.ram([factory.ramPolicy('k8sMasterRolePolicy-Ccm-0a1b', ['slb:*'])]);
    ram.policies.push({ policyName: 'k8sMasterRolePolicy-Extra', policyType: 'Custom', statements: [], documentError: 'the policy document is not valid JSON' });
    ram.rolePolicies['KubernetesMasterRole-0a1b']!.push({ policyName: 'k8sMasterRolePolicy-Extra', policyType: 'Custom' });
    const r = one(
      run('CCM_RAM_PERMISSION_GAP', factory.fleet([factory.region({ clusters: [dedicated()] })], { ram })),
    );
    expect(r).toMatchObject({
      status: 'skipped',
      reason: 'documents of policies k8sMasterRolePolicy-Extra (the policy document is not valid JSON) attached to KubernetesMasterRole-0a1b could not be parsed',
    });
  });

  it('takes the target version from settings', () => {
    const ram = factory.ram([
      factory.ramPolicy('k8sMasterRolePolicy-Ccm-0a1b', ['slb:*', 'ecs:DescribeInstances', 'vpc:*']),
    ]);
    const snap = factory.fleet([factory.region({ clusters: [dedicated({ ccmVersion: 'v2.10.0' })] })], {
      ram,
    });
    expect(one(run('CCM_RAM_PERMISSION_GAP', snap)).status).toBe('fail');
    expect(one(run('CCM_RAM_PERMISSION_GAP', snap, { ccm: { ramTargetVersion: 'v2.11.4' } })).status).toBe(
      'pass',
    );
  });

  it('evaluates only the target when the installed version is unknown', () => {
    const ram = factory.ram([
      factory.ramPolicy('k8sMasterRolePolicy-Ccm-0a1b', ['slb:*', 'ecs:DescribeInstances', 'vpc:*']),
    ]);
    const snap = factory.fleet(
      [factory.region({ clusters: [dedicated({ ccmVersion: undefined, addons: [] })] })],
      { ram },
    );
    expect(one(run('CCM_RAM_PERMISSION_GAP', snap))).toMatchObject({ status: 'fail', severity: 'warning' });
  });
});

describe('SERVICE_EVENT_ERROR: one case per row of the seed error table (seeds 001/002/003)', () => {
  const LB = 'lb-bp1web000000000000';
  const wrap = (text: string) => `Error syncing load balancer [${LB}]: Message: ${text}`;
  const rid = 'request id: 5A5F4B0C-0D7E-4C62-9C3A-1F2E3D4C5B6A';
  /** A realistic event per row: CCM wraps SDK errors as `Error syncing load balancer [<lbId>]: Message: ...`. */
  const EVENTS: Record<string, { message: string; type?: string; reason?: string }> = {
    'backend-quota': {
      message: wrap(
        `code: 400, The backend server number has reached to the quota limit of this load balancer. ${rid}`,
      ),
    },
    'eni-on-shared-clb': {
      message: wrap(`code: 400, The loadbalancer does not support backend servers of eni type. ${rid}`),
    },
    'no-available-nodes': {
      type: 'Normal',
      reason: 'UnAvailableLoadBalancer',
      message: 'There are no available nodes for LoadBalancer',
    },
    'lb-not-found': {
      message:
        "Error syncing load balancer []: Message: alicloud: can not find loadbalancer, but it's defined in service [47.96.10.20] this may happen when you delete the loadbalancer",
    },
    'account-arrearage': {
      message: wrap(
        `create slb error: code: 400, ErrorCode: ORDER.ARREARAGE Message: The account is arrearage. ${rid}`,
      ),
    },
    'insufficient-balance': {
      message: wrap(
        `create slb error: code: 400, ErrorCode: PAY.INSUFFICIENT_BALANCE Message: Your account does not have enough balance. ${rid}`,
      ),
    },
    throttling: {
      message: wrap(
        `code: 400, Status Code: 400 Code: Throttling.User Message: Request was denied due to user flow control. ${rid}`,
      ),
    },
    'rspool-vip-exist': {
      message: wrap(
        `code: 400, Status Code: 400 Code: RspoolVipExist Message: there are vips associating with this vServer group. ${rid}`,
      ),
    },
    'network-conflict': {
      message: wrap(
        `AddVServerGroupBackendServers: code: 400, Status Code: 400 Code: NetworkConflict ${rid}`,
      ),
    },
    'vswitch-no-ip': {
      message: wrap(
        `create slb error: code: 400, Status Code: 400 Code: VSwitchAvailableIpNotExist Message: The specified VSwitch has no available ip. ${rid}`,
      ),
    },
    'vswitch-not-exist': {
      message: wrap(`create slb error: code: 404, Message:The specified VSwitch does not exist. ${rid}`),
    },
    'string-target-port': {
      message: wrap(`code: 400, The specified Port must be between 1 and 65535. ${rid}`),
    },
    'shared-clb-discontinued': {
      message: wrap(
        `create slb error: code: 400, Status Code: 400 Code: ShareSlbHaltSales Message: The share instance has been discontinued. ${rid}`,
      ),
    },
    'resource-group-immutable': { message: wrap('alicloud: can not change ResourceGroupId once created') },
    'eni-id-not-found': {
      message: wrap('can not find eniid for ip 172.20.1.15 in vpc vpc-bp1main0000000000000'),
    },
    'pay-by-clcu-spec': {
      message: wrap(
        `ModifyLoadBalancerInstanceSpec: code: 400, The operation is not allowed because the instanceChargeType of loadbalancer is PayByCLCU. ${rid}`,
      ),
    },
    'reuse-ccm-created': {
      message: wrap(
        'alicloud: the loadbalancer lb-bp1other000000000 can not be reused, can not reuse loadbalancer created by kubernetes.',
      ),
    },
    'address-type-immutable': {
      message: wrap('alicloud: can not change LoadBalancer AddressType once created. delete and retry'),
    },
    'rebind-different-lb': {
      message: wrap(
        'the loadbalancer lb-bp1other000000000 can not be reused, service has been associated with ip [47.96.10.20], cannot be bound to ip [47.96.10.99]',
      ),
    },
    // NLB rows (CCM nlbv2 messages; research/nlb.md 8).
    'nlb-zone-maps-missing': { message: 'Error syncing load balancer []: Message: build nlb attribute error: ParameterMissing, zone mappings are required' },
    'nlb-zone-maps-format': { message: 'Error syncing load balancer []: Message: ZoneMapping format error, expect [zone-a:vsw-id-1,zone-b:vsw-id-2], got cn-hangzhou-h' },
    'nlb-dnsname-bound': {
      message: 'Error syncing load balancer [nlb-b]: Message: the loadbalancer nlb-b can not be reused, service has been associated with dnsname [nlb-a.cn-hangzhou.nlb.aliyuncsslb.com], cannot be bound to dnsname [nlb-b.cn-hangzhou.nlb.aliyuncsslb.com]',
    },
    'nlb-ip-version-immutable': { message: 'Error syncing load balancer [nlb-a]: Message: AddressIpVersion cannot be changed, service: DualStack, nlb: ipv4' },
    'nlb-port-range-not-eni': { message: 'Error syncing load balancer []: Message: build listener from servicePort 80 error: listener port range can only be used for eni backend type service' },
    'nlb-listener-overlap': { message: 'Error syncing load balancer [nlb-a]: Message: port of listener [80-443] overlaps with listener [443]' },
    'nlb-wait-jobs': { message: 'Error syncing load balancer [nlb-a]: Message: wait jobs error: Forbidden.RAM: User not authorized to operate on the specified resource (nlb:ListAsynJobs)' },
  };

  it('has a case for every row of CCM_ERROR_ROWS', () => {
    expect(Object.keys(EVENTS).sort()).toEqual(CCM_ERROR_ROWS.map((r) => r.id).sort());
  });

  it.each(CCM_ERROR_ROWS.map((row) => [row.id, row] as const))('%s', (id, row) => {
    const e = EVENTS[id]!;
    const snap = factory.fleet([
      factory.region({
        clusters: [
          factory.cluster({
            kubernetes: factory.kubernetes({
              services: [factory.service()],
              events: [
                {
                  namespace: 'default',
                  name: 'web.17f3a2b4c5d6e7f8',
                  type: e.type ?? 'Warning',
                  reason: e.reason ?? 'SyncLoadBalancerFailed',
                  message: e.message,
                  involvedObject: { kind: 'Service', namespace: 'default', name: 'web', uid: FIXTURE_UID },
                  count: 4,
                  lastTimestamp: '2026-01-15T07:45:00Z',
                },
              ],
            }),
          }),
        ],
      }),
    ]);
    const r = one(run('SERVICE_EVENT_ERROR', snap));
    expect(r).toMatchObject({
      status: 'fail',
      severity: row.severity,
      resource: { id: 'default/web' },
      figures: { row: id, cause: row.cause, solution: row.solution, ageSeconds: 900 },
    });
    expect(r.message).toContain(row.cause);
  });
});

describe('LB_CONFIG_DRIFT', () => {
  const group = `k8s/30080/web/default/${CLUSTER_ID}`;
  const snap = (events: K8sEvent[] = []) =>
    factory.fleet([
      factory.region({
        loadBalancers: [
          factory.ccmClb({
            listeners: [{ port: 80, protocol: 'tcp', description: `k8s/80/web/default/${CLUSTER_ID}` }],
            vServerGroups: [factory.vServerGroup({ name: group, backendServers: [] })],
          }),
        ],
        clusters: [
          factory.cluster({
            kubernetes: factory.kubernetes({
              nodes: factory.nodes(2),
              services: [factory.service()],
              events,
            }),
          }),
        ],
      }),
    ]);

  it('says the CLB will be overwritten when CCM syncs succeed', () => {
    const r = one(run('LB_CONFIG_DRIFT', snap()));
    expect(r).toMatchObject({ status: 'fail', figures: { backendsToAdd: 2, ccmSyncFailing: false } });
    expect(r.message).toContain('CCM overwrites this at the next reconcile');
  });

  it('blames the failing sync, not a console edit, when the Service has a current CCM error event', () => {
    const r = one(
      run(
        'LB_CONFIG_DRIFT',
        snap([
          {
            namespace: 'default',
            name: 'web.1',
            type: 'Warning',
            reason: 'SyncLoadBalancerFailed',
            message:
              'Error syncing load balancer [lb-1]: Message: code: 400, Status Code: 400 Code: Throttling.User',
            involvedObject: { kind: 'Service', namespace: 'default', name: 'web' },
            count: 2,
          },
        ]),
      ),
    );
    expect(r).toMatchObject({ status: 'fail', figures: { ccmSyncFailing: true } });
    expect(r.message).toContain('may be the failed sync');
  });
});
