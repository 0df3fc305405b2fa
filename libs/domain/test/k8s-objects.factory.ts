/**
 * Kubernetes objects for the unit tests of libs/domain's CCM models and libs/checks' rules, declared once: a
 * LoadBalancer Service and a node with the fields every test needs, each test overriding only what it is about.
 */
import type { K8sNode, K8sService } from '../src/snapshot.types';

/**
 * A Service of type LoadBalancer: `default/web` with the CCM fixture UID (annotations_test.go
 * TestGetDefaultLoadBalancerName), no labels, annotations, finalizers or ingress, one TCP port 80 -> 8080 on
 * NodePort 30080; `over` replaces whole fields.
 */
export function k8sService(over: Partial<K8sService> = {}): K8sService {
  return {
    namespace: 'default',
    name: 'web',
    uid: '5e4dbfc9-c2ae-4642-b033-5607860aef6a',
    type: 'LoadBalancer',
    labels: {},
    annotations: {},
    finalizers: [],
    ports: [{ protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
    ingress: [],
    ...over,
  };
}

/**
 * A ready, schedulable node without labels or taints backed by ECS instance `ecsInstanceId` of cn-hangzhou
 * (providerID `cn-hangzhou.{ecsInstanceId}`); `over` replaces whole fields.
 */
export function k8sNode(name: string, ecsInstanceId: string, over: Partial<K8sNode> = {}): K8sNode {
  return {
    name,
    labels: {},
    providerId: `cn-hangzhou.${ecsInstanceId}`,
    ecsInstanceId,
    unschedulable: false,
    ready: true,
    taints: [],
    ...over,
  };
}
