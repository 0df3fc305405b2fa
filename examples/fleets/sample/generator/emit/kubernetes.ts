/**
 * Emitters of the Kubernetes side: each cluster's `kubernetes/<kind>.yaml` objects, in the shape `kubectl
 * get <kind> -A -o yaml` prints them. They draw resource versions, UIDs and name suffixes from the fleet's
 * PRNG, so the order of the calls is part of the output (see generate.ts).
 */
import { FINALIZER_CLB, FINALIZER_NLB, LABEL_NODE_ROLE_MASTER, NLB_LOAD_BALANCER_CLASS, TAG_CLUSTER_ID } from '@app/domain';
import { ccmMajor, type SampleFleet } from '../model';
import type { Cluster, Node, Pod, Service, ServiceEvent } from '../types';
import { HEX, KHASH } from '../random';
import { D, NOW, iso, plus } from '../time';

/**
 * Options of js-yaml's writer for the sample: keys sorted and double quotes (as kubectl prints them), no line
 * folding, no anchors; its default schema quotes every string a YAML 1.1 reader (kubectl's) would take for another
 * type (`yes`, `on`).
 */
export const yamlOpts = { sortKeys: true, lineWidth: -1, noRefs: true, quoteStyle: 'double' } as const;

/** A `v1 List` of objects, as `kubectl get ... -o yaml` prints several. */
export const list = (items: object[]) => ({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });

/** CPU cores and memory (KiB) a node of each instance type reports as capacity. */
const NODE_CAPACITY: Record<string, readonly [cpu: number, memoryKi: number]> = {
  'ecs.g6.xlarge': [4, 16132256],
  'ecs.g6.2xlarge': [8, 32247008],
  'ecs.g7.xlarge': [4, 16132256],
  'ecs.g7.2xlarge': [8, 32247008],
  'ecs.c7.xlarge': [4, 7869228],
};

/** A Node as `kubectl get nodes -o yaml` prints it (trimmed to identity and what CCM and the audit read). */
export function nodeObj(f: SampleFleet, cl: Cluster, n: Node) {
  const { int } = f.random;
  const { resourceVersion } = f;
  const reg = cl.reg.id;
  const labels: Record<string, string> = {
    [TAG_CLUSTER_ID]: cl.id,
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': n.name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': n.type,
    'topology.kubernetes.io/region': reg,
    'topology.kubernetes.io/zone': n.zone,
  };
  if (n.nodepool) labels['alibabacloud.com/nodepool-id'] = n.nodepool.id;
  if (n.master) labels[LABEL_NODE_ROLE_MASTER] = '';
  const taints: { effect: string; key: string; timeAdded?: string }[] = [];
  if (n.master) taints.push({ effect: 'NoSchedule', key: LABEL_NODE_ROLE_MASTER });
  if (n.cordoned) taints.push({ effect: 'NoSchedule', key: 'node.kubernetes.io/unschedulable', timeAdded: '2026-11-19T14:02:11Z' });
  if (!n.ready) taints.push({ effect: 'NoSchedule', key: 'node.kubernetes.io/unreachable', timeAdded: '2026-11-21T06:48:40Z' }, { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', timeAdded: '2026-11-21T06:48:45Z' });
  const hb = iso(plus(NOW, -int(5, 50)));
  const capacity = NODE_CAPACITY[n.type];
  if (!capacity) throw new Error(`sample fleet: node ${n.name}: no capacity known for instance type ${n.type}`);
  const [cpu, memKi] = capacity;
  const kubelet = `v${cl.version}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { creationTimestamp: iso(plus(n.created, 95)), labels, name: n.name, resourceVersion: resourceVersion(), uid: n.uid },
    spec: {
      ...(n.podCidr ? { podCIDR: n.podCidr, podCIDRs: [n.podCidr] } : {}),
      providerID: `${reg}.${n.ecsId}`,
      ...(taints.length ? { taints } : {}),
      ...(n.cordoned ? { unschedulable: true } : {}),
    },
    status: {
      addresses: [
        { address: n.ip, type: 'InternalIP' },
        { address: n.name, type: 'Hostname' },
      ],
      allocatable: { cpu: `${cpu * 1000 - 100}m`, memory: `${memKi - 1460000}Ki`, pods: cl.plugin === 'terway' ? '64' : '128' },
      conditions: [
        n.ready
          ? { lastHeartbeatTime: hb, lastTransitionTime: iso(plus(n.created, 120)), message: 'kubelet is posting ready status', reason: 'KubeletReady', status: 'True', type: 'Ready' }
          : { lastHeartbeatTime: '2026-11-21T06:47:58Z', lastTransitionTime: '2026-11-21T06:48:40Z', message: 'Kubelet stopped posting node status.', reason: 'NodeStatusUnknown', status: 'Unknown', type: 'Ready' },
      ],
      nodeInfo: { containerRuntimeVersion: ccmMajor(cl) === 1 ? 'containerd://1.5.13' : 'containerd://1.6.38', kubeletVersion: kubelet, osImage: 'Alibaba Cloud Linux 3.2104 U11 (OpenAnolis Edition)' },
    },
  };
}

/** A Pod of a Deployment as `kubectl get pods -o yaml` prints it. */
export function podObj(f: SampleFleet, p: Pod) {
  const { resourceVersion } = f;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      creationTimestamp: iso(p.created),
      generateName: `${p.rs.name}-`,
      labels: p.labels,
      name: p.name,
      namespace: p.ns,
      ownerReferences: [{ apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'ReplicaSet', name: p.rs.name, uid: p.rs.uid }],
      resourceVersion: resourceVersion(),
      uid: p.uid,
    },
    spec: {
      containers: [
        {
          image: p.image,
          imagePullPolicy: 'IfNotPresent',
          name: p.containerName,
          ports: p.containerPorts.map((c) => ({ ...c, protocol: 'TCP' })),
        },
      ],
      nodeName: p.node.name,
    },
    status: {
      conditions: [{ lastProbeTime: null, lastTransitionTime: iso(plus(p.created, 25)), status: 'True', type: 'Ready' }],
      hostIP: p.node.ip,
      phase: 'Running',
      podIP: p.ip,
      podIPs: [{ ip: p.ip }],
    },
  };
}

/** A Service as `kubectl get services -o yaml` prints it (CCM v2 adds `ipMode: VIP` to the ingress). */
export function serviceObj(f: SampleFleet, cl: Cluster, s: Service) {
  const { resourceVersion } = f;
  const modern = ccmMajor(cl) >= 2;
  const ports = s.ports.map((p) => {
    const rest = { ...p };
    delete rest.lbProtocol;
    return rest;
  });
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      ...(Object.keys(s.annotations).length ? { annotations: s.annotations } : {}),
      creationTimestamp: iso(s.created),
      ...(s.finalizer ? { finalizers: [s.loadBalancerClass === NLB_LOAD_BALANCER_CLASS ? FINALIZER_NLB : FINALIZER_CLB] } : {}),
      ...(Object.keys(s.labels).length ? { labels: s.labels } : {}),
      name: s.name,
      namespace: s.ns,
      resourceVersion: resourceVersion(),
      uid: s.uid,
    },
    spec: {
      ...(s.type === 'LoadBalancer' ? { allocateLoadBalancerNodePorts: true } : {}),
      clusterIP: s.clusterIp,
      clusterIPs: [s.clusterIp],
      externalTrafficPolicy: s.policy,
      ...(s.healthCheckNodePort ? { healthCheckNodePort: s.healthCheckNodePort } : {}),
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ...(s.loadBalancerClass ? { loadBalancerClass: s.loadBalancerClass } : {}),
      ports,
      selector: s.selector,
      sessionAffinity: 'None',
      type: s.type,
    },
    status: {
      loadBalancer: s.ingressIp
        ? { ingress: [{ ip: s.ingressIp, ...(modern ? { ipMode: 'VIP' } : {}) }] }
        : s.ingressHostname
          ? { ingress: [{ hostname: s.ingressHostname }] }
          : {},
    },
  };
}

/**
 * The EndpointSlice of a Service: every pod, its port resolved like the EndpointSlice controller does
 * (a named targetPort through the pods' container ports).
 *
 * @throws Error when a named targetPort matches no container port of the Service's first pod
 */
export function sliceObj(f: SampleFleet, s: Service) {
  const { chars, uuid } = f.random;
  const { resourceVersion } = f;
  const slicePorts = s.ports.map((p) => {
    const containerPort = typeof p.targetPort === 'number' ? p.targetPort : s.pods[0]?.containerPorts.find((c) => c.name === p.targetPort)?.containerPort;
    if (containerPort === undefined) throw new Error(`sample fleet: Service ${s.ns}/${s.name} port ${p.name}: no container port named ${p.targetPort}`);
    return { name: p.name, port: containerPort, protocol: p.protocol };
  });
  const name = `${s.name}-${chars(KHASH, 5)}`;
  return {
    addressType: 'IPv4',
    apiVersion: 'discovery.k8s.io/v1',
    endpoints: s.pods.map((p) => ({
      addresses: [p.ip],
      conditions: { ready: p.ready, serving: p.ready, terminating: false },
      nodeName: p.node.name,
      targetRef: { kind: 'Pod', name: p.name, namespace: p.ns, uid: p.uid },
      zone: p.node.zone,
    })),
    kind: 'EndpointSlice',
    metadata: {
      creationTimestamp: iso(plus(s.created, 1)),
      generateName: `${s.name}-`,
      labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': s.name },
      name,
      namespace: s.ns,
      resourceVersion: resourceVersion(),
      uid: uuid(),
    },
    ports: slicePorts,
  };
}

/** A core/v1 Event about a Service, as `kubectl get events -o yaml` prints it. */
export function eventObj(f: SampleFleet, e: ServiceEvent) {
  const { chars, uuid } = f.random;
  const { resourceVersion } = f;
  return {
    apiVersion: 'v1',
    count: e.count,
    eventTime: null,
    firstTimestamp: iso(e.first),
    involvedObject: { apiVersion: 'v1', kind: 'Service', name: e.svc.name, namespace: e.svc.ns, resourceVersion: resourceVersion(), uid: e.svc.uid },
    kind: 'Event',
    lastTimestamp: iso(e.last),
    message: e.message,
    metadata: { creationTimestamp: iso(e.first), name: `${e.svc.name}.${chars(HEX, 16)}`, namespace: e.svc.ns, resourceVersion: resourceVersion(), uid: uuid() },
    reason: e.reason,
    reportingComponent: '',
    reportingInstance: '',
    source: { component: 'service-controller' },
    type: e.type,
  };
}

/** kube-system static Pods of a dedicated cluster's masters: kube-apiserver (NodePort range flag) and CCM. */
export function kubeSystemObjs(f: SampleFleet, cl: Cluster): object[] {
  const { chars, uuid } = f.random;
  const { resourceVersion } = f;
  if (cl.type !== 'Kubernetes') return [];
  const masters = cl.nodes.filter((n) => n.master);
  const etcd = masters.map((m) => `https://${m.ip}:2379`).join(',');
  const out: object[] = [];
  for (const m of masters) {
    const created = D('2026-05-12T03:10:00Z');
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': chars(HEX, 32) },
        creationTimestamp: iso(plus(created, m.k * 41)),
        labels: { component: 'kube-apiserver', tier: 'control-plane' },
        name: `kube-apiserver-${m.name}`,
        namespace: 'kube-system',
        ownerReferences: [{ apiVersion: 'v1', controller: true, kind: 'Node', name: m.name, uid: m.uid }],
        resourceVersion: resourceVersion(),
        uid: uuid(),
      },
      spec: {
        containers: [
          {
            command: [
              'kube-apiserver',
              `--advertise-address=${m.ip}`,
              '--allow-privileged=true',
              '--apiserver-count=3',
              '--authorization-mode=Node,RBAC',
              '--client-ca-file=/etc/kubernetes/pki/ca.crt',
              '--enable-admission-plugins=NodeRestriction,PodSecurityPolicy',
              '--enable-aggregator-routing=true',
              `--etcd-servers=${etcd}`,
              '--etcd-cafile=/etc/kubernetes/pki/etcd/ca.pem',
              '--etcd-certfile=/etc/kubernetes/pki/etcd/etcd-client.pem',
              '--etcd-keyfile=/etc/kubernetes/pki/etcd/etcd-client-key.pem',
              '--kubelet-client-certificate=/etc/kubernetes/pki/apiserver-kubelet-client.crt',
              '--kubelet-client-key=/etc/kubernetes/pki/apiserver-kubelet-client.key',
              '--secure-port=6443',
              '--service-account-issuer=https://kubernetes.default.svc',
              '--service-account-key-file=/etc/kubernetes/pki/sa.pub',
              '--service-account-signing-key-file=/etc/kubernetes/pki/sa.key',
              `--service-cluster-ip-range=${cl.serviceCidr}`,
              `--service-node-port-range=${cl.nodePortFlag}`,
              '--tls-cert-file=/etc/kubernetes/pki/apiserver.crt',
              '--tls-private-key-file=/etc/kubernetes/pki/apiserver.key',
            ],
            image: `registry-vpc.${cl.reg.id}.aliyuncs.com/acs/kube-apiserver:v${cl.version}`,
            imagePullPolicy: 'IfNotPresent',
            name: 'kube-apiserver',
            resources: { requests: { cpu: '250m' } },
          },
        ],
        hostNetwork: true,
        nodeName: m.name,
        priorityClassName: 'system-node-critical',
      },
      status: { hostIP: m.ip, phase: 'Running', podIP: m.ip, podIPs: [{ ip: m.ip }], qosClass: 'Burstable', startTime: iso(plus(created, m.k * 41)) },
    });
  }
  const dsUid = uuid();
  for (const m of masters) {
    const created = D('2020-09-14T03:33:05Z');
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        creationTimestamp: iso(plus(created, m.k * 3)),
        generateName: 'cloud-controller-manager-',
        labels: { app: 'cloud-controller-manager', 'controller-revision-hash': `${chars(KHASH, 10)}`, tier: 'control-plane' },
        name: `cloud-controller-manager-${chars(KHASH, 5)}`,
        namespace: 'kube-system',
        ownerReferences: [{ apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'DaemonSet', name: 'cloud-controller-manager', uid: dsUid }],
        resourceVersion: resourceVersion(),
        uid: uuid(),
      },
      spec: {
        containers: [
          {
            command: [
              '/cloud-controller-manager',
              '--kubeconfig=/etc/kubernetes/cloud-controller-manager.conf',
              '--address=127.0.0.1',
              '--allow-untagged-cloud=true',
              '--leader-elect=true',
              '--cloud-provider=alicloud',
              '--cloud-config=/etc/kubernetes/config/cloud-config.conf',
              '--allocate-node-cidrs=true',
              `--cluster-cidr=${cl.containerCidr}`,
              '--configure-cloud-routes=true',
              '--route-reconciliation-period=3m',
              '--leader-elect-resource-lock=endpoints',
            ],
            image: `registry-vpc.${cl.reg.id}.aliyuncs.com/acs/cloud-controller-manager-amd64:${cl.ccm}`,
            imagePullPolicy: 'IfNotPresent',
            name: 'cloud-controller-manager',
            resources: { requests: { cpu: '200m' } },
          },
        ],
        hostNetwork: true,
        nodeName: m.name,
        priorityClassName: 'system-node-critical',
      },
      status: { hostIP: m.ip, phase: 'Running', podIP: m.ip, podIPs: [{ ip: m.ip }], qosClass: 'Burstable', startTime: iso(plus(created, m.k * 3 + 2)) },
    });
  }
  return out;
}
