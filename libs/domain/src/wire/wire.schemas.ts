/**
 * Zod schemas of the APIs' native wire shapes, as they appear in a fleet directory
 * (`../shared/fleet-format.md`) and on the wire (`../shared/research/alibaba-cloud-api.md`,
 * `../shared/research/sdk-model-shapes.txt`, `../shared/fixtures/alibaba-api-samples/`).
 *
 * Schemas are loose: they check the fields the product reads (names, types) and keep every other
 * field, so the simulator can serve a real dump back unchanged. Numbers that some APIs send as
 * strings are accepted in both forms where the documented samples show both.
 */
import { z } from 'zod';
import { numLike, optStr, str } from './wire-scalars.util';

/** `Tags: {Tag: [{TagKey, TagValue}]}` as CLB and ECS responses carry it. */
export const wireTagsSchema = z
  .looseObject({
    Tag: z.array(z.looseObject({ TagKey: str, TagValue: z.string().optional().default('') })).default([]),
  })
  .optional();

/** A CLB backend server (DescribeLoadBalancerAttribute / DescribeVServerGroupAttribute BackendServers.BackendServer[]). */
export const wireBackendServerSchema = z.looseObject({
  ServerId: str,
  ServerIp: optStr,
  Port: numLike.optional(),
  Weight: numLike.optional(),
  Type: optStr,
  Description: optStr,
});

/** SLB 2014-05-15 DescribeLoadBalancerAttribute response body (RequestId optional). */
export const wireLoadBalancerAttributeSchema = z.looseObject({
  LoadBalancerId: z.string().regex(/^lb-/, 'a CLB id (lb-...)'),
  LoadBalancerName: optStr,
  RegionId: optStr,
  AddressType: optStr,
  Address: optStr,
  VpcId: optStr,
  VSwitchId: optStr,
  NetworkType: optStr,
  LoadBalancerSpec: optStr,
  InstanceChargeType: optStr,
  ResourceGroupId: optStr,
  LoadBalancerStatus: optStr,
  CreateTime: optStr,
  Tags: wireTagsSchema,
  ListenerPortsAndProtocol: z
    .looseObject({
      ListenerPortAndProtocol: z
        .array(
          z.looseObject({
            ListenerPort: numLike,
            ListenerProtocol: str,
            Description: optStr,
            ForwardPort: numLike.optional(),
            ListenerForward: optStr,
            VServerGroupId: optStr,
          }),
        )
        .default([]),
    })
    .optional(),
  BackendServers: z.looseObject({ BackendServer: z.array(wireBackendServerSchema).default([]) }).optional(),
});
export type WireLoadBalancerAttribute = z.infer<typeof wireLoadBalancerAttributeSchema>;

/** SLB DescribeVServerGroupAttribute response body. */
export const wireVServerGroupAttributeSchema = z.looseObject({
  VServerGroupId: z.string().regex(/^rsp-/, 'a vServer group id (rsp-...)'),
  VServerGroupName: z.string().default(''),
  LoadBalancerId: z.string().regex(/^lb-/, 'a CLB id (lb-...)'),
  BackendServers: z.looseObject({ BackendServer: z.array(wireBackendServerSchema).default([]) }).optional(),
});
export type WireVServerGroupAttribute = z.infer<typeof wireVServerGroupAttributeSchema>;

/** ECS DescribeInstances -> Instances.Instance[] item. */
export const wireEcsInstanceSchema = z.looseObject({
  InstanceId: z.string().regex(/^i-/, 'an ECS instance id (i-...)'),
  InstanceName: optStr,
  HostName: optStr,
  RegionId: optStr,
  ZoneId: optStr,
  Status: optStr,
  InstanceType: optStr,
  VpcAttributes: z
    .looseObject({
      VpcId: optStr,
      VSwitchId: optStr,
      PrivateIpAddress: z.looseObject({ IpAddress: z.array(str).default([]) }).optional(),
    })
    .optional(),
  Tags: wireTagsSchema,
});
export type WireEcsInstance = z.infer<typeof wireEcsInstanceSchema>;

/** VPC DescribeVSwitches -> VSwitches.VSwitch[] item. */
export const wireVSwitchSchema = z.looseObject({
  VSwitchId: z.string().regex(/^vsw-/, 'a vSwitch id (vsw-...)'),
  VpcId: optStr,
  ZoneId: optStr,
  CidrBlock: optStr,
  AvailableIpAddressCount: numLike.optional(),
});
export type WireVSwitch = z.infer<typeof wireVSwitchSchema>;

/** Quota Center 2020-05-10 ListProductQuotas -> Quotas[] item. */
export const wireQuotaSchema = z.looseObject({
  ProductCode: optStr,
  QuotaActionCode: str,
  QuotaName: optStr,
  TotalQuota: numLike,
  TotalUsage: numLike.optional(),
  Dimensions: z.record(z.string(), z.string()).optional(),
  Adjustable: z.boolean().optional(),
  UnadjustableDetail: optStr,
  ApplicableRange: z.array(numLike).optional(),
});
export type WireQuota = z.infer<typeof wireQuotaSchema>;

/**
 * Quota Center 2020-05-10 ListQuotaApplications -> QuotaApplications[] item (research/quota-center.md 4). `Dimension`
 * is typed as a map but the GetQuotaApplication doc sample gives an array: both are accepted and not read here (the
 * region is the query's dimension).
 */
export const wireQuotaApplicationSchema = z.looseObject({
  ApplicationId: str,
  ProductCode: optStr,
  QuotaActionCode: str,
  Status: str,
  DesireValue: numLike,
  ApproveValue: numLike.optional().nullable(),
  AuditReason: optStr.nullable(),
  Reason: optStr.nullable(),
  ApplyTime: optStr.nullable(),
});
export type WireQuotaApplication = z.infer<typeof wireQuotaApplicationSchema>;

/** RAM ListRoles -> Roles.Role[] item. */
export const wireRamRoleSchema = z.looseObject({
  RoleName: str,
  RoleId: optStr,
  Arn: optStr,
  Description: optStr,
});
export type WireRamRole = z.infer<typeof wireRamRoleSchema>;

/** RAM ListPoliciesForRole -> Policies.Policy[] item. */
export const wireRamPolicyRefSchema = z.looseObject({
  PolicyName: str,
  PolicyType: str,
  DefaultVersion: optStr,
});
export type WireRamPolicyRef = z.infer<typeof wireRamPolicyRefSchema>;

/**
 * RAM policy as in `ram/policies.json` (GetPolicy + GetPolicyVersion; PolicyDocument is the JSON string): the
 * ListPoliciesForRole item's fields, then Description and PolicyDocument (same key order as before, still loose).
 */
export const wireRamPolicySchema = wireRamPolicyRefSchema.extend({
  Description: optStr,
  PolicyDocument: str,
});
export type WireRamPolicy = z.infer<typeof wireRamPolicySchema>;

/** `ram/role-policies.json`: role name -> attached policies. */
export const wireRolePoliciesSchema = z.record(z.string(), z.array(wireRamPolicyRefSchema));

/** CS 2015-12-15 DescribeClusterDetail body (snake_case). */
export const wireClusterDetailSchema = z.looseObject({
  cluster_id: z.string().regex(/^c[0-9a-f]{32}$/, 'a cluster id (c + 32 hex characters)'),
  name: str,
  region_id: str,
  cluster_type: str,
  cluster_spec: optStr,
  state: optStr,
  current_version: optStr,
  created: optStr,
  vpc_id: optStr,
  external_loadbalancer_id: optStr,
  control_plane_config: z.looseObject({ node_port_range: optStr }).optional(),
  /** Flannel pod CIDR (empty on Terway clusters). */
  container_cidr: z.string().optional(),
  /** Per-node mask of the pod CIDR, a string in the SDK model (sdk-model-shapes.txt), a number in some bodies. */
  node_cidr_mask: z.union([z.string(), z.number()]).optional(),
  /** `[{key, value}]`; read leniently (malformed entries are left out by the mapper, never a failed cluster). */
  tags: z.unknown().optional(),
});
export type WireClusterDetail = z.infer<typeof wireClusterDetailSchema>;

/** CS ListClusterAddonInstances body. */
export const wireAddonsSchema = z.looseObject({
  addons: z.array(z.looseObject({ name: str, version: z.string().default(''), state: optStr })),
});
export type WireAddons = z.infer<typeof wireAddonsSchema>;

/** CS DescribeClusterResources body: a bare array. */
export const wireClusterResourcesSchema = z.array(
  z.looseObject({ resource_type: str, instance_id: str, cluster_id: optStr, state: optStr }),
);
export type WireClusterResources = z.infer<typeof wireClusterResourcesSchema>;

/** `node-sysctls.json`: ECS instance id -> sysctl name -> value (what `sysctl -n` prints). */
export const wireNodeSysctlsSchema = z.record(
  z.string().regex(/^i-/, 'an ECS instance id (i-...)'),
  z.record(z.string(), z.string()),
);
export type WireNodeSysctls = z.infer<typeof wireNodeSysctlsSchema>;

/** `fleet.yaml`. */
export const fleetYamlSchema = z.looseObject({
  name: z.string().min(1),
  description: optStr,
  generate: z.record(z.string(), z.unknown()).optional(),
});
export type FleetYaml = z.infer<typeof fleetYamlSchema>;

/** `accounts/<accountId>/account.yaml`. */
export const accountYamlSchema = z.looseObject({
  accountId: z
    .union([z.string(), z.number()])
    .transform(String)
    .pipe(z.string().regex(/^\d+$/, 'a numeric account id')),
  name: z.string().default(''),
  regions: z
    .array(z.string().regex(/^[a-z]{2}(-[a-z0-9]+)+$/, 'a region id such as cn-hangzhou'))
    .default([]),
  auditRoleArn: optStr,
  management: z.boolean().optional(),
  /**
   * The simulator only (a live scan and the offline audit ignore it): what the simulated Quota Center decides on this
   * account's quota applications (apps/fleet-sim quotas.handler.ts).
   */
  quotaApplications: z
    .strictObject({
      decision: z.enum(['approve', 'refuse', 'pending']).default('pending'),
      approvePercent: z.number().min(1).max(100).default(100),
      reason: z.string().max(500).optional(),
    })
    .optional(),
});
export type AccountYaml = z.infer<typeof accountYamlSchema>;

const k8sMeta = z.looseObject({
  name: str,
  namespace: optStr,
  uid: optStr,
  labels: z.record(z.string(), z.string()).nullish(),
  annotations: z.record(z.string(), z.string()).nullish(),
  finalizers: z.array(str).nullish(),
  creationTimestamp: z.union([z.string(), z.date()]).nullish(),
  deletionTimestamp: z.union([z.string(), z.date()]).nullish(),
});

/** core/v1 Node (as `kubectl get -o yaml` prints it). */
export const k8sNodeSchema = z.looseObject({
  kind: z.literal('Node').optional(),
  metadata: k8sMeta,
  spec: z
    .looseObject({
      providerID: optStr,
      unschedulable: z.boolean().nullish(),
      taints: z.array(z.looseObject({ key: str, value: optStr, effect: str })).nullish(),
    })
    .nullish(),
  status: z
    .looseObject({
      conditions: z.array(z.looseObject({ type: str, status: str })).nullish(),
      addresses: z.array(z.looseObject({ type: str, address: str })).nullish(),
    })
    .nullish(),
});
export type K8sNodeWire = z.infer<typeof k8sNodeSchema>;

/** core/v1 Service. */
export const k8sServiceSchema = z.looseObject({
  kind: z.literal('Service').optional(),
  metadata: k8sMeta.extend({ namespace: z.string().default('default') }),
  spec: z.looseObject({
    type: z.string().default('ClusterIP'),
    externalTrafficPolicy: optStr,
    loadBalancerClass: optStr,
    healthCheckNodePort: z.number().int().nullish(),
    selector: z.record(z.string(), z.string()).nullish(),
    ports: z
      .array(
        z.looseObject({
          name: optStr,
          protocol: z.string().default('TCP'),
          port: z.number().int(),
          targetPort: z.union([z.number().int(), z.string()]).nullish(),
          nodePort: z.number().int().nullish(),
        }),
      )
      .nullish(),
  }),
  status: z
    .looseObject({
      loadBalancer: z
        .looseObject({ ingress: z.array(z.looseObject({ ip: optStr, hostname: optStr })).nullish() })
        .nullish(),
    })
    .nullish(),
});
export type K8sServiceWire = z.infer<typeof k8sServiceSchema>;

/** core/v1 Pod. */
export const k8sPodSchema = z.looseObject({
  kind: z.literal('Pod').optional(),
  metadata: k8sMeta.extend({ namespace: z.string().default('default') }),
  spec: z
    .looseObject({
      nodeName: optStr,
      containers: z
        .array(z.looseObject({ name: str, command: z.array(str).nullish(), args: z.array(str).nullish() }))
        .nullish(),
    })
    .nullish(),
  status: z.looseObject({ phase: optStr, podIP: optStr }).nullish(),
});
export type K8sPodWire = z.infer<typeof k8sPodSchema>;

/** discovery.k8s.io/v1 EndpointSlice. */
export const k8sEndpointSliceSchema = z.looseObject({
  kind: z.literal('EndpointSlice').optional(),
  metadata: k8sMeta.extend({ namespace: z.string().default('default') }),
  addressType: optStr,
  ports: z
    .array(z.looseObject({ name: z.string().nullish(), port: z.number().int().nullish(), protocol: optStr }))
    .nullish(),
  endpoints: z
    .array(
      z.looseObject({
        addresses: z.array(str),
        conditions: z
          .looseObject({
            ready: z.boolean().nullish(),
            serving: z.boolean().nullish(),
            terminating: z.boolean().nullish(),
          })
          .nullish(),
        nodeName: optStr,
        targetRef: z.looseObject({ kind: optStr, name: optStr }).nullish(),
      }),
    )
    .nullish(),
});
export type K8sEndpointSliceWire = z.infer<typeof k8sEndpointSliceSchema>;

/** core/v1 Event. */
export const k8sEventSchema = z.looseObject({
  kind: z.literal('Event').optional(),
  metadata: k8sMeta.extend({ namespace: z.string().default('default') }),
  type: z.string().default('Normal'),
  reason: z.string().default(''),
  message: z.string().default(''),
  count: z.number().int().nullish(),
  involvedObject: z.looseObject({ kind: str, namespace: optStr, name: str, uid: optStr }),
  lastTimestamp: z.union([z.string(), z.date()]).nullish(),
  eventTime: z.union([z.string(), z.date()]).nullish(),
  firstTimestamp: z.union([z.string(), z.date()]).nullish(),
});
export type K8sEventWire = z.infer<typeof k8sEventSchema>;
