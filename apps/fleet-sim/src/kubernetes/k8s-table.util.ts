/**
 * Server-side printing (`meta.k8s.io/v1` Table) for `kubectl get` without `-o`: kubectl asks
 * for `application/json;as=Table;v=v1;g=meta.k8s.io` and prints the columns the server chose.
 * Columns follow the API server's printers (kubernetes `pkg/printers/internalversion`) for the
 * served kinds, reduced to the default (priority 0) ones plus a few wide (priority 1) ones.
 */
import type { K8sResource } from './k8s-resources.constants';

type Obj = Record<string, unknown>;

/** Whether an `Accept` header asks for a Table. */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

const get = (o: unknown, path: string): unknown => {
  let cur: unknown = o;
  for (const p of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
};
const str = (v: unknown, dflt = '<none>'): string =>
  v === undefined || v === null || v === '' ? dflt : String(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Kubernetes `duration.HumanDuration`-like age: 45s, 12m, 5h, 3d, 2y. */
export function humanAge(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' && !(timestamp instanceof Date)) return '<unknown>';
  const t = new Date(timestamp).getTime();
  if (Number.isNaN(t)) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

interface Column {
  name: string;
  priority: 0 | 1;
  cell: (o: Obj, now: Date) => string | number;
}

const age: Column = {
  name: 'Age',
  priority: 0,
  cell: (o, now) => humanAge(get(o, 'metadata.creationTimestamp'), now),
};
const name: Column = { name: 'Name', priority: 0, cell: (o) => str(get(o, 'metadata.name'), '') };

const servicePorts = (o: Obj): string =>
  arr(get(o, 'spec.ports'))
    .map(
      (p) =>
        `${str(get(p, 'port'), '')}${get(p, 'nodePort') ? `:${String(get(p, 'nodePort'))}` : ''}/${str(get(p, 'protocol'), 'TCP')}`,
    )
    .join(',') || '<none>';

const externalIp = (o: Obj): string => {
  const type = get(o, 'spec.type');
  const ingress = arr(get(o, 'status.loadBalancer.ingress')).map((i) =>
    str(get(i, 'ip') ?? get(i, 'hostname'), ''),
  );
  if (type === 'LoadBalancer') return ingress.filter((x) => x !== '').join(',') || '<pending>';
  return arr(get(o, 'spec.externalIPs')).map(String).join(',') || '<none>';
};

const nodeStatus = (o: Obj): string => {
  const ready = arr(get(o, 'status.conditions')).find((c) => get(c, 'type') === 'Ready');
  const s = ready === undefined ? 'Unknown' : get(ready, 'status') === 'True' ? 'Ready' : 'NotReady';
  return get(o, 'spec.unschedulable') === true ? `${s},SchedulingDisabled` : s;
};

const nodeRoles = (o: Obj): string => {
  const labels = (get(o, 'metadata.labels') ?? {}) as Record<string, string>;
  const roles = Object.keys(labels)
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  return roles.join(',') || '<none>';
};

const podReady = (o: Obj): string => {
  const containers = arr(get(o, 'spec.containers')).length;
  const ready = arr(get(o, 'status.containerStatuses')).filter((c) => get(c, 'ready') === true).length;
  return `${ready}/${containers}`;
};

const podRestarts = (o: Obj): number =>
  arr(get(o, 'status.containerStatuses')).reduce<number>(
    (n, c) => n + Number(get(c, 'restartCount') ?? 0),
    0,
  );

const COLUMNS: Readonly<Record<string, Column[]>> = {
  Node: [
    name,
    { name: 'Status', priority: 0, cell: nodeStatus },
    { name: 'Roles', priority: 0, cell: nodeRoles },
    age,
    { name: 'Version', priority: 0, cell: (o) => str(get(o, 'status.nodeInfo.kubeletVersion'), '') },
    {
      name: 'Internal-IP',
      priority: 1,
      cell: (o) =>
        str(
          get(
            arr(get(o, 'status.addresses')).find((a) => get(a, 'type') === 'InternalIP'),
            'address',
          ),
        ),
    },
  ],
  Namespace: [name, { name: 'Status', priority: 0, cell: (o) => str(get(o, 'status.phase'), '') }, age],
  Service: [
    name,
    { name: 'Type', priority: 0, cell: (o) => str(get(o, 'spec.type'), 'ClusterIP') },
    { name: 'Cluster-IP', priority: 0, cell: (o) => str(get(o, 'spec.clusterIP')) },
    { name: 'External-IP', priority: 0, cell: externalIp },
    { name: 'Port(s)', priority: 0, cell: servicePorts },
    age,
    {
      name: 'Selector',
      priority: 1,
      cell: (o) =>
        Object.entries((get(o, 'spec.selector') ?? {}) as Record<string, string>)
          .map(([k, v]) => `${k}=${v}`)
          .join(',') || '<none>',
    },
  ],
  Pod: [
    name,
    { name: 'Ready', priority: 0, cell: podReady },
    { name: 'Status', priority: 0, cell: (o) => str(get(o, 'status.phase'), 'Unknown') },
    { name: 'Restarts', priority: 0, cell: podRestarts },
    age,
    { name: 'IP', priority: 1, cell: (o) => str(get(o, 'status.podIP')) },
    { name: 'Node', priority: 1, cell: (o) => str(get(o, 'spec.nodeName')) },
  ],
  EndpointSlice: [
    name,
    { name: 'AddressType', priority: 0, cell: (o) => str(get(o, 'addressType'), '') },
    {
      name: 'Ports',
      priority: 0,
      cell: (o) =>
        arr(get(o, 'ports'))
          .map((p) => str(get(p, 'port'), ''))
          .join(',') || '<unset>',
    },
    {
      name: 'Endpoints',
      priority: 0,
      cell: (o) =>
        arr(get(o, 'endpoints'))
          .flatMap((e) => arr(get(e, 'addresses')).map(String))
          .slice(0, 3)
          .join(',') || '<unset>',
    },
    age,
  ],
  Event: [
    {
      name: 'Last Seen',
      priority: 0,
      cell: (o, now) =>
        humanAge(get(o, 'lastTimestamp') ?? get(o, 'eventTime') ?? get(o, 'metadata.creationTimestamp'), now),
    },
    { name: 'Type', priority: 0, cell: (o) => str(get(o, 'type'), '') },
    { name: 'Reason', priority: 0, cell: (o) => str(get(o, 'reason'), '') },
    {
      name: 'Object',
      priority: 0,
      cell: (o) =>
        `${String(get(o, 'involvedObject.kind') ?? '').toLowerCase()}/${str(get(o, 'involvedObject.name'), '')}`,
    },
    { name: 'Message', priority: 0, cell: (o) => str(get(o, 'message'), '') },
  ],
};

/**
 * Turn a `<Kind>List` into a Table whose rows carry the objects' metadata
 * (`PartialObjectMetadata`, what kubectl needs for the NAMESPACE column).
 */
export function tableFor(resource: K8sResource, list: Obj, now: Date = new Date()): Obj {
  const columns = COLUMNS[resource.kind] ?? [name, age];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: list['metadata'] ?? {},
    columnDefinitions: columns.map((c) => ({
      name: c.name,
      type: typeof c.cell({}, now) === 'number' ? 'integer' : 'string',
      format: c === name ? 'name' : '',
      description: c.name,
      priority: c.priority,
    })),
    rows: arr(list['items']).map((item) => {
      const o = item as Obj;
      return {
        cells: columns.map((c) => c.cell(o, now)),
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: o['metadata'] ?? {},
        },
      };
    }),
  };
}
