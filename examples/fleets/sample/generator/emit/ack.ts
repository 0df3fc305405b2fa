/** Emitters of the ACK (CS) bodies of a cluster: `cluster.json`, `addons.json`, `resources.json`. */
import { apiLbOf, ccmMajor, type SampleFleet } from '../model';
import type { Cluster } from '../types';
import { D, csTime, plus } from '../time';

/** The `team` tag of each cluster (`DescribeClusterDetail` `tags`). */
const TEAM: Record<string, string> = { 'payments-legacy': 'payments', storefront: 'web', 'data-platform': 'data', 'preview-envs': 'web', arena: 'games', 'batch-legacy': 'data' };

/** ACK `DescribeClusterDetail` body of a cluster. */
export function clusterDetail(f: SampleFleet, cl: Cluster) {
  const { uuid } = f.random;
  const apiLb = apiLbOf(cl);
  const reg = cl.reg.id;
  const pro = cl.spec === 'ack.pro.small';
  return {
    cluster_id: cl.id,
    name: cl.name,
    region_id: reg,
    zone_id: cl.nodeVsw[0].ZoneId,
    cluster_type: cl.type,
    ...(cl.spec ? { cluster_spec: cl.spec } : {}),
    profile: 'Default',
    state: 'running',
    size: cl.nodes.length,
    current_version: cl.version,
    init_version: cl.initVersion,
    next_version: '',
    created: csTime(cl.createdAt),
    updated: csTime(D('2026-10-28T02:11:35Z')),
    vpc_id: cl.vpc,
    vswitch_id: cl.nodeVsw.map((v) => v.VSwitchId).join(','),
    vswitch_ids: cl.nodeVsw.map((v) => v.VSwitchId),
    security_group_id: cl.sg,
    resource_group_id: cl.account.rg,
    container_cidr: cl.containerCidr,
    service_cidr: cl.serviceCidr,
    ...(cl.plugin === 'flannel' ? { node_cidr_mask: '25' } : {}),
    network_mode: cl.plugin === 'flannel' ? 'vpc' : '',
    proxy_mode: 'ipvs',
    ip_stack: 'ipv4',
    external_loadbalancer_id: apiLb.id,
    master_url: JSON.stringify({ api_server_endpoint: '', intranet_api_server_endpoint: `https://${apiLb.address}:6443` }),
    deletion_protection: true,
    docker_version: '',
    private_zone: false,
    timezone: 'Asia/Shanghai',
    cluster_domain: 'cluster.local',
    ...(cl.type === 'Kubernetes' ? { worker_ram_role_name: cl.workerRole } : { worker_ram_role_name: `KubernetesWorkerRole-${uuid()}` }),
    tags: [{ key: 'team', value: TEAM[cl.name] }],
    maintenance_window: { enable: pro, maintenance_time: '2026-01-01T03:00:00+08:00', duration: '3h', weekly_period: 'Thursday', recurrence: '' },
    operation_policy: { cluster_auto_upgrade: { enabled: false, channel: '' } },
    ...(cl.nodePortRange ? { control_plane_config: { node_port_range: cl.nodePortRange } } : {}),
    ...(pro ? { control_plane_endpoints_config: { internal_dns_config: { enabled: false, bind_vpcs: [] }, load_balancers_config: [{ endpoint: `https://${apiLb.address}:6443`, endpoint_type: 'intranet', load_balancer_id: apiLb.id }] } } : {}),
  };
}

/** ACK `ListClusterAddonInstances` body: CCM (its version), the network plugin and a few add-ons of the cluster's era. */
export function addonsBody(cl: Cluster) {
  const v1 = ccmMajor(cl) === 1;
  const network =
    cl.plugin === 'flannel'
      ? { name: 'flannel', version: v1 ? 'v0.11.0.2-g6e46593e-aliyun' : 'v0.15.1.22-20a397e6-aliyun', state: 'active' }
      : { name: 'terway-eniip', version: 'v1.14.3', state: 'active' };
  return {
    addons: [
      { name: 'cloud-controller-manager', version: cl.ccm, state: 'active' },
      network,
      { name: 'coredns', version: v1 ? 'v1.8.4.1-3a376cc-aliyun' : 'v1.11.3.2-f57ea7ed6-aliyun', state: 'active' },
      { name: 'csi-plugin', version: v1 ? 'v1.20.7-aafce42-aliyun' : 'v1.33.1-67e8986-aliyun', state: 'active' },
      { name: 'metrics-server', version: v1 ? 'v0.3.8.5-307cf45-aliyun' : 'v0.3.9.4-ff225cd-aliyun', state: 'active' },
    ],
  };
}

/** ACK `DescribeClusterResources` body: the API server CLB, the security group and (dedicated) the master RAM role. */
export function resourcesBody(cl: Cluster) {
  const apiLb = apiLbOf(cl);
  const r = (type: string, id: string | undefined, created: Date, extra: Record<string, unknown> = {}) => ({ cluster_id: cl.id, created: csTime(created), instance_id: id, resource_info: '', resource_type: type, state: 'CREATE_COMPLETE', auto_create: 1, ...extra });
  const out = [r('ALIYUN::SLB::LoadBalancer', apiLb.id, apiLb.created), r('ALIYUN::ECS::SecurityGroup', cl.sg, plus(cl.createdAt, 20))];
  if (cl.type === 'Kubernetes') out.push(r('ALIYUN::RAM::Role', cl.masterRole, plus(cl.createdAt, 5)));
  return out;
}
