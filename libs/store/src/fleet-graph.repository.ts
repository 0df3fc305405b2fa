import { LRUCache } from 'lru-cache';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import {
  GRAPH_CLUSTER,
  GRAPH_ECS_INSTANCE,
  GRAPH_LOAD_BALANCER,
  GRAPH_NLB,
  GRAPH_NLB_SERVER_GROUP,
  GRAPH_REGION,
  GRAPH_SERVER_GROUP,
  GRAPH_SERVICE,
  type FleetGraph,
  type BuiltNlb,
  type BuiltNlbServerGroup,
  type BuiltRegion,
  type BuiltServerGroup,
  type GraphBackendEntry,
  type GraphCluster,
  type GraphEcsInstance,
  type GraphLoadBalancer,
  type GraphNlb,
  type GraphNlbServerGroup,
  type GraphRegion,
  type GraphServerGroup,
  type GraphService,
  type QuotaUsageSample,
  type ResourceKind,
} from '@app/domain';
import { columnsOf, jsonInt, jsonString, rowMapperOf, unpackedRowsOf } from './fleet-graph.columns';
import { insertRows, type ColumnSpec } from './bulk-insert.util';
import { copyPart, dedupeRows, type CopyPart } from './copy.util';
import { keysetOrderBy, type KeysetColumn, type KeysetValue } from './keyset-cursor.util';
import { emptyPage, pagingSql, Params, toPage, type GraphPage, type GraphPageArgs } from './keyset-page.util';
import { isUuid } from './page.util';
import { scopeCondition, type Scoped } from './principal';
import { teamClustersCoverCondition, teamRowCondition } from './team-scope.util';
import { scopeCacheKey, type ReadGenerations } from './read-generation';
import { ColumnProbe } from './schema-probe.util';
import { toNumber } from './sql.util';
import { quotaSampleOfRow, quotaTeamColumns, type QuotaUsageRow } from './quota-usage.repository';

/** An account of a scan's graph: its name and how many of its regions were scanned. */
export interface GraphAccount {
  accountId: string;
  accountName: string;
  regionCount: number;
}

/** Rows per INSERT statement (one jsonb parameter per statement); server groups carry their backends, so fewer. */
const ROWS_PER_INSERT = 5000;
const SERVER_GROUPS_PER_INSERT = 1000;
/** NLBs carry their server groups and servers (at most 400 server entries each), so fewer per statement. */
const NLBS_PER_INSERT = 500;

/**
 * An NLB server group as it is stored and served (`GRAPH_NLB_SERVER_GROUP`): a built graph's group holds the
 * snapshot's own servers (`BuiltNlbServerGroup`); stored, each server has its declared fields, an absent one null.
 * Called per row while the row is written, so the copies are garbage at once instead of living until the store ends.
 */
export function storedNlbServerGroup(g: BuiltNlbServerGroup): GraphNlbServerGroup {
  return {
    ...g,
    servers: g.servers.map((sv) => ({
      serverId: sv.serverId,
      serverIp: sv.serverIp ?? null,
      type: sv.type,
      port: sv.port ?? null,
      weight: sv.weight ?? null,
      status: sv.status ?? null,
      zoneId: sv.zoneId ?? null,
    })),
  };
}

/**
 * A built fleet graph (`buildFleetGraph`) as the store keeps and serves it: CLB backends and NLB servers with their
 * declared fields only, absent ones null (`GraphBackend`, `GraphNlbServer`). What a read of the stored graph equals.
 */
export function storedFleetGraph(graph: FleetGraph): FleetGraph & {
  regions: GraphRegion[];
  serverGroups: GraphServerGroup[];
  nlbs: GraphNlb[];
} {
  return {
    ...graph,
    regions: graph.regions.map((r) => ({ ...r, unusedNlbServerGroups: r.unusedNlbServerGroups.map(storedNlbServerGroup) })),
    serverGroups: graph.serverGroups.map((g) => ({
      ...g,
      backends: g.backends.map((b) => ({ serverId: b.serverId, serverIp: b.serverIp ?? null, port: b.port ?? null, weight: b.weight, type: b.type })),
    })),
    nlbs: graph.nlbs.map((n) => ({ ...n, serverGroups: n.serverGroups.map(storedNlbServerGroup) })),
  };
}

/**
 * `columns` with the value of `column` read by `value` instead (a declared list column written in its stored form).
 * @throws Error at start-up when `columns` has no such column (a programming error)
 */
function withColumnValue<T>(columns: ColumnSpec<T>, column: string, value: (row: T) => unknown): ColumnSpec<T> {
  if (!columns.some(([c]) => c === column)) throw new Error(`fleet-graph columns: no column ${column}`);
  // The other columns keep their property paths (what the COPY encoder reads them by).
  return columns.map((spec): ColumnSpec<T>[number] => (spec[0] === column ? [column, spec[1], value] : spec));
}

// Columns and row mappers follow from the resource declarations (libs/domain fleet-graph.resources.ts) through
// fleet-graph.columns.ts: a declared field is a column `snake_case(field)` of its table. A region's unused NLB server
// groups and an NLB's server groups are written in their stored form (`storedNlbServerGroup`).
const REGION_COLUMNS = withColumnValue(columnsOf<typeof GRAPH_REGION, BuiltRegion>(GRAPH_REGION), 'unused_nlb_server_groups', (r) =>
  r.unusedNlbServerGroups.map(storedNlbServerGroup),
);
const CLUSTER_COLUMNS = columnsOf(GRAPH_CLUSTER);
const SERVICE_COLUMNS = columnsOf(GRAPH_SERVICE);
const LOAD_BALANCER_COLUMNS = columnsOf(GRAPH_LOAD_BALANCER);
/**
 * An NLB's server groups with their servers are stored packed (`NlbServerGroupsJson`: each group and each server an
 * array of its declared fields) in a text column (migration 1800600000000): the bench fleet's NLB rows hold about
 * 14 kB of jsonb each, whose parse was the largest share of PostgreSQL's CPU for the graph. A group whose servers
 * share type, port, weight and status holds them by reference (migration 1800900000000): its servers' ids, IPs and
 * zones are a row of `graph_server_lists`, as a CLB server group's backends are, and `server_lists` names the rows an
 * NLB's groups refer to (what its reads join). Written by `NlbServerGroupsJson` (one per store), read back by
 * `nlbOfRow`. A built group's servers are the snapshot's entries, whose absent fields pack as null, as
 * `storedNlbServerGroup` stores them.
 */
function nlbColumns(groups: NlbServerGroupsJson, byReference: boolean): ColumnSpec<NlbRow> {
  const columns = withColumnValue(NLB_ROW_COLUMNS, 'server_groups', (r) => groups.of(r.nlb.serverGroups, r.lists));
  return byReference ? [...columns, ['server_lists', 'integer[]', (r) => r.listNumbers]] : columns;
}

/** The declared NLB columns read off an `NlbRow`; `server_groups` is packed JSON text (its value is `nlbColumns`'). */
const NLB_ROW_COLUMNS: ColumnSpec<NlbRow> = columnsOf<typeof GRAPH_NLB, BuiltNlb>(GRAPH_NLB).map(
  ([c, kind, get, path]): ColumnSpec<NlbRow>[number] => [c, c === 'server_groups' ? 'json' : kind, (r: NlbRow) => get(r.nlb), path && ['nlb', ...path]],
);
const nlbColumnsOfRow = rowMapperOf(GRAPH_NLB);
const unpackedNlbServerGroups = unpackedRowsOf(GRAPH_NLB_SERVER_GROUP);

/**
 * An NLB as read: its declared columns, its server groups unpacked from their stored text (`nlbColumns`), a group held
 * by reference given the servers of its list (`list_numbers` and `list_servers`: the rows of `graph_server_lists` its
 * `server_lists` name, as the NLBS listing joins them).
 * @throws Error when a group names a server list that is not stored (a store that wrote one without the other: never
 *   by the store's own writes, which commit both in the scan's transaction or not at all)
 */
function nlbOfRow(row: QueryResultRow): GraphNlb {
  const nlb = nlbColumnsOfRow(row);
  const stored = row.server_groups as unknown;
  const groups = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  if (Array.isArray(groups)) {
    let lists: Map<number, [string, string | null, string?][]> | undefined;
    for (const g of groups as unknown[][]) {
      const ref = Array.isArray(g) ? (g[7] as NlbServerListRef | unknown[] | null) : null;
      if (ref === null || Array.isArray(ref) || typeof ref !== 'object') continue;
      if (lists === undefined) {
        lists = new Map();
        const numbers = (row.list_numbers as number[] | null | undefined) ?? [];
        const texts = (row.list_servers as string[] | null | undefined) ?? [];
        for (let i = 0; i < numbers.length; i += 1) lists.set(numbers[i]!, JSON.parse(texts[i]!) as [string, string | null, string?][]);
      }
      const servers = lists.get(ref.serverList);
      if (!servers) {
        throw new Error(`graph_nlbs: server group '${String(g[0])}' of NLB ${String(row.nlb_id)} in scan ${String(row.scan_id)} names server list ${String(ref.serverList)}, which is not stored`);
      }
      g[7] = servers.map(([serverId, serverIp, zoneId]) => [serverId, serverIp, ref.type, ref.port, ref.weight, ref.status, zoneId ?? null]);
    }
  }
  nlb.serverGroups = unpackedNlbServerGroups(groups);
  return nlb;
}

/**
 * An NLB server group's servers held by reference, in its packed text (the place of its servers' array): the number
 * of their list in `graph_server_lists` (ids, IPs and zones, in order) and the fields every one of them shares.
 */
interface NlbServerListRef {
  serverList: number;
  type: string;
  port: number | null;
  weight: number | null;
  status: string | null;
}

/**
 * An NLB as written: the built NLB, per server group the number of its servers' list in `graph_server_lists` (null:
 * inline), and those numbers distinct and ascending (null when none: the `server_lists` column).
 */
export interface NlbRow {
  nlb: BuiltNlb;
  lists: readonly (number | null)[];
  listNumbers: number[] | null;
}

/**
 * Whether an NLB server group's servers can be held by reference: at least one, and every one with the first one's
 * type, port, weight and status (CCM adds every node of a Cluster-mode Service's cluster at the NodePort, with one
 * weight: nlbv2/server_groups.go `buildClusterBackends`). Zones differ by server and are part of the list.
 */
function sharesServerFields(servers: BuiltNlbServerGroup['servers']): boolean {
  const n = servers.length;
  if (n === 0) return false;
  const first = servers[0]!;
  const type = first.type;
  const port = first.port ?? null;
  const weight = first.weight ?? null;
  const status = first.status ?? null;
  if (typeof type !== 'string') return false;
  for (let i = 1; i < n; i += 1) {
    const sv = servers[i]!;
    if (sv.type !== type || (sv.port ?? null) !== port || (sv.weight ?? null) !== weight || (sv.status ?? null) !== status) return false;
  }
  return true;
}

/**
 * NLBs with their server groups' servers by reference where they can be (`sharesServerFields`), numbered in `lists`
 * after the CLB server groups' lists of the same graph (`serverGroupRows`). The groups of a cluster's NLB Services list
 * the same nodes, so they share rows; an NLB server's zone is part of its list, so they share none with CLB groups
 * (whose backends have no zone).
 * @param lists null: every group inline (a schema before migration 1800900000000)
 * @returns one row per NLB, in input order
 */
export function nlbRows(nlbs: readonly BuiltNlb[], lists: ServerLists | null): NlbRow[] {
  const rows = new Array<NlbRow>(nlbs.length);
  for (let i = 0; i < nlbs.length; i += 1) {
    const nlb = nlbs[i]!;
    if (lists === null) {
      rows[i] = { nlb, lists: [], listNumbers: null };
      continue;
    }
    let numbers: number[] | null = null;
    const refs = nlb.serverGroups.map((g) => {
      if (!sharesServerFields(g.servers)) return null;
      const n = lists.numberOf(nlb.accountId, nlb.regionId, g.servers);
      if (numbers === null) numbers = [n];
      else if (!numbers.includes(n)) numbers.push(n);
      return n;
    });
    rows[i] = { nlb, lists: refs, listNumbers: numbers === null ? null : (numbers as number[]).sort((a, b) => a - b) };
  }
  return rows;
}

/**
 * The columns of an ECS instance's attachments (its CLB ids, NLB server-group ids, NLB ids): stored by reference in
 * `graph_ecs_attachments`, one row per distinct lists of a scan's (account, region) (migration 1800200000000), since
 * most nodes of a cluster share them (Cluster mode attaches every node to every CLB of its cluster).
 */
const ATTACHMENT_COLUMNS = ['load_balancer_ids', 'nlb_server_group_ids', 'nlb_ids'] as const;

/** An ECS instance as written: the instance, its row in `graph_ecs_attachments` (null: no attachment at all). */
interface EcsRow {
  instance: GraphEcsInstance;
  attachmentSet: number | null;
}

/** A row of `graph_ecs_attachments`: the lists shared by the ECS instances of one account and region. */
interface AttachmentRow {
  instance: GraphEcsInstance;
  attachmentSet: number;
}

/**
 * The columns of `graph_ecs_instances`: the declared fields but the attachments, then the row's attachment set and
 * the count of its CLB ids (what the min/maxLoadBalancers filter bounds).
 */
const ECS_COLUMNS: ColumnSpec<EcsRow> = [
  ...columnsOf(GRAPH_ECS_INSTANCE)
    .filter(([column]) => !(ATTACHMENT_COLUMNS as readonly string[]).includes(column))
    .map(([column, kind, value, path]) => [column, kind, (r: EcsRow) => value(r.instance), path && ['instance', ...path]] as const),
  ['attachment_set', 'integer', (r) => r.attachmentSet],
  ['load_balancer_count', 'integer', (r) => r.instance.loadBalancerIds.length],
];

/** The columns of `graph_ecs_attachments` after `scan_id`; the lists are those of the set's first instance. */
const ATTACHMENT_SET_COLUMNS: ColumnSpec<AttachmentRow> = [
  ['account_id', 'text', (r) => r.instance.accountId],
  ['region_id', 'text', (r) => r.instance.regionId],
  ['attachment_set', 'integer', (r) => r.attachmentSet],
  ['load_balancer_ids', 'text[]', (r) => r.instance.loadBalancerIds],
  ['nlb_server_group_ids', 'text[]', (r) => r.instance.nlbServerGroupIds],
  ['nlb_ids', 'text[]', (r) => r.instance.nlbIds],
];

/** FNV-1a step over a string, then a separator no UTF-16 code unit equals; 30 bits (a small integer). */
function hashString(h: number, s: string): number {
  for (let i = 0; i < s.length; i += 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return Math.imul(h ^ 0x10000, 0x01000193);
}

/** FNV-1a of a list of ids, each closed as in `hashString`, the list by a value no code unit has. */
function listHash(h: number, list: readonly string[]): number {
  for (const id of list) h = hashString(h, id);
  return Math.imul(h ^ 0x10001, 0x01000193);
}

/**
 * The hashes of an account and region and of attachment lists, by identity: the graph's build gives the instances of
 * one set the same list objects (libs/checks fleet-graph.ts `IdPath`), so each list is hashed once, not once per
 * instance (50,000 instances of some 15 CLB ids each at 500 clusters).
 */
class AttachmentHasher {
  private readonly lists = new Map<readonly string[], number>();
  private account: string | undefined;
  private region: string | undefined;
  private locationHash = 0;

  /** FNV-1a of an instance's account, region and attachment lists (30 bits). */
  hash(e: GraphEcsInstance): number {
    if (e.accountId !== this.account || e.regionId !== this.region) {
      this.account = e.accountId;
      this.region = e.regionId;
      this.locationHash = hashString(hashString(0x811c9dc5, e.accountId), e.regionId);
    }
    let h = this.locationHash;
    h = Math.imul(h ^ this.list(e.loadBalancerIds), 0x01000193);
    h = Math.imul(h ^ this.list(e.nlbServerGroupIds), 0x01000193);
    h = Math.imul(h ^ this.list(e.nlbIds), 0x01000193);
    return h & 0x3fffffff;
  }

  private list(ids: readonly string[]): number {
    if (ids.length === 0) return 0x2545f491;
    let h = this.lists.get(ids);
    if (h === undefined) {
      h = listHash(0x811c9dc5, ids);
      this.lists.set(ids, h);
    }
    return h;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether two instances share account, region and attachment lists. */
function sameAttachments(a: GraphEcsInstance, b: GraphEcsInstance): boolean {
  return (
    a.accountId === b.accountId &&
    a.regionId === b.regionId &&
    sameList(a.loadBalancerIds, b.loadBalancerIds) &&
    sameList(a.nlbServerGroupIds, b.nlbServerGroupIds) &&
    sameList(a.nlbIds, b.nlbIds)
  );
}

/**
 * ECS instances with their attachments by reference: each distinct (CLB ids, NLB server-group ids, NLB ids) of an
 * account and region numbered from 1 within that account and region, in order of first appearance; instances without
 * any attachment get none (null). So the graph of one account and region (a shard of a sharded scan) numbers its sets
 * as the whole fleet's graph does (the same instances in the same order), and never meets another shard's. Hashed
 * into an open-addressing table of set numbers (no key string per instance: see copy.util.ts `dedupeRows`), a hash
 * match confirmed by comparing the lists.
 * @returns the instance rows (in input order) and the attachment sets (in order of first appearance)
 */
export function ecsAttachmentRows(instances: readonly GraphEcsInstance[]): { instances: EcsRow[]; sets: AttachmentRow[] } {
  let size = 16;
  while (size < instances.length * 2) size *= 2;
  const mask = size - 1;
  // Slot -> 1 + the index in `sets` of the set kept there (0: empty), and that set's hash.
  const slots = new Array<number>(size).fill(0);
  const hashes = new Array<number>(size).fill(0);
  const sets: AttachmentRow[] = [];
  const rows: EcsRow[] = [];
  // Sets numbered so far per account and region (key `account\u0000region`: built once per new set only).
  const numbered = new Map<string, number>();
  const hasher = new AttachmentHasher();
  for (const instance of instances) {
    if (instance.loadBalancerIds.length === 0 && instance.nlbServerGroupIds.length === 0 && instance.nlbIds.length === 0) {
      rows.push({ instance, attachmentSet: null });
      continue;
    }
    const h = hasher.hash(instance);
    let slot = h & mask;
    let found: AttachmentRow | undefined;
    for (; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const set = sets[slots[slot]! - 1]!;
      if (hashes[slot] === h && sameAttachments(set.instance, instance)) {
        found = set;
        break;
      }
    }
    if (!found) {
      const region = `${instance.accountId}\u0000${instance.regionId}`;
      const n = (numbered.get(region) ?? 0) + 1;
      numbered.set(region, n);
      found = { instance, attachmentSet: n };
      sets.push(found);
      slots[slot] = sets.length;
      hashes[slot] = h;
    }
    rows.push({ instance, attachmentSet: found.attachmentSet });
  }
  return { instances: rows, sets };
}

/**
 * A CLB server group as written: the group (whose backends are the snapshot's entries: `BuiltServerGroup`) and its
 * backend servers' row in `graph_server_lists` (null: its backends inline in `backends`).
 */
export interface ServerGroupRow {
  group: BuiltServerGroup;
  serverList: number | null;
}

/**
 * A server a list of `graph_server_lists` holds: a CLB backend's or an NLB server's id and IP, and an NLB server's
 * zone (its ECS instance's: each server has its own); absent ones null.
 */
interface ListedServer {
  readonly serverId: string;
  readonly serverIp?: string | null;
  readonly zoneId?: string | null;
}

/**
 * A row of `graph_server_lists`: the servers (id, IP, zone, in order) of the first group that listed them (a CLB
 * server group's backends or an NLB server group's servers), numbered `serverList` within their account and region.
 */
export interface ServerListRow {
  accountId: string;
  regionId: string;
  servers: readonly ListedServer[];
  serverList: number;
}

/**
 * A server group's backends are stored packed (declared `column: false`), in one of two forms (migration
 * 1800700000000), with `backend_count` beside them:
 *  - by reference: `server_list` names the group's backend servers' row in `graph_server_lists`, and the port, weight
 *    and type every backend of the group shares are `backend_port`, `backend_weight`, `backend_type`;
 *  - inline: `backends` is one `json` text of [serverId, serverIp, port, weight, type] tuples (a group whose backends
 *    differ in port, weight or type, or have none).
 * The columns of one store share a `BackendsJson` (its memo lives as long as they do). The declared columns read no
 * backend, so they read a built group as they read a stored one.
 */
function serverGroupColumns(backends: BackendsJson): ColumnSpec<ServerGroupRow> {
  const shared = (r: ServerGroupRow): GraphBackendEntry | undefined => (r.serverList === null ? undefined : r.group.backends[0]);
  return [
    ...columnsOf<typeof GRAPH_SERVER_GROUP, BuiltServerGroup>(GRAPH_SERVER_GROUP).map(
      ([column, kind, value, path]) => [column, kind, (r: ServerGroupRow) => value(r.group), path && ['group', ...path]] as const,
    ),
    ['backend_count', 'integer', (r) => r.group.backends.length],
    ['backends', 'json', (r) => (r.serverList === null ? backends.of(r.group.backends) : null)],
    ['server_list', 'integer', (r) => r.serverList],
    ['backend_port', 'integer', (r) => shared(r)?.port ?? null],
    ['backend_weight', 'integer', (r) => shared(r)?.weight ?? null],
    ['backend_type', 'text', (r) => shared(r)?.type ?? null],
  ];
}

/** The columns of `graph_server_lists` after `scan_id`: the servers are the id, IP and zone of each server of the list's first group. */
const SERVER_LIST_COLUMNS: ColumnSpec<ServerListRow> = [
  ['account_id', 'text', (r) => r.accountId],
  ['region_id', 'text', (r) => r.regionId],
  ['server_list', 'integer', (r) => r.serverList],
  ['servers', 'json', (r) => serversJson(r.servers)],
];

/**
 * `JSON.stringify` of each server as `[serverId, serverIp]`, with its zone as a third element where it has one (an NLB
 * server: a CLB backend has none, so a CLB list is written as before migration 1800900000000), byte for byte.
 */
function serversJson(backends: readonly ListedServer[]): string {
  const parts = new Array<string>(backends.length);
  for (let i = 0; i < backends.length; i += 1) {
    const b = backends[i]!;
    const zone = b.zoneId ?? null;
    parts[i] = `[${jsonString(b.serverId)},${jsonString(b.serverIp ?? null)}${zone === null ? '' : `,${jsonString(zone)}`}]`;
  }
  return `[${parts.join(',')}]`;
}

/** A port or weight the integer columns hold: an integer of PostgreSQL's `integer` range, or absent. */
function storableInt(n: number | null | undefined): boolean {
  return n === null || n === undefined || (Number.isInteger(n) && n >= -2147483648 && n <= 2147483647);
}

/**
 * Whether a group's backends can be held by reference: at least one, and every one with the first one's port, weight
 * and type (storable in the integer and text columns).
 */
function sharesPortWeightType(backends: readonly GraphBackendEntry[]): boolean {
  const n = backends.length;
  if (n === 0) return false;
  const { port, weight, type } = backends[0]!;
  if (!storableInt(port) || !storableInt(weight) || (type !== undefined && type !== null && typeof type !== 'string')) return false;
  for (let i = 1; i < n; i += 1) {
    const b = backends[i]!;
    if ((b.port ?? null) !== (port ?? null) || (b.weight ?? null) !== (weight ?? null) || (b.type ?? null) !== (type ?? null)) return false;
  }
  return true;
}

/** Whether two server lists hold the same servers (id, IP and zone) in the same order. */
function sameServers(a: readonly ListedServer[], b: readonly ListedServer[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.serverId !== y.serverId || (x.serverIp ?? null) !== (y.serverIp ?? null) || (x.zoneId ?? null) !== (y.zoneId ?? null)) return false;
  }
  return true;
}

/** FNV-1a of a server list's ids and IPs (30 bits), each closed as in `hashString` (zones are compared, not hashed). */
function serversHash(h: number, backends: readonly ListedServer[]): number {
  for (const b of backends) h = hashString(hashString(h, b.serverId), b.serverIp ?? '\u0000');
  return h & 0x3fffffff;
}

/** The server lists of one account and region (`ServerLists`). */
interface RegionLists {
  /** The last list starting with each server. */
  last: Map<string, ServerListRow>;
  /** Every list, by hash. */
  byHash: Map<number, ServerListRow[]>;
  /** The account's and region's hash, where each list's starts. */
  hash: number;
  /** Lists numbered so far. */
  count: number;
}

/**
 * The server lists of one graph's rows (`graph_server_lists`): each distinct list of servers (id, IP, zone, in order) of
 * an account and region numbered from 1 within that account and region, in order of first appearance. So the graph
 * of one account and region (a shard of a sharded scan) numbers its lists as the whole fleet's graph does (the same
 * groups in the same order: CLB server groups first, then NLB server groups), and never meets another shard's.
 *
 * The lists of a region repeat each other in order (in Cluster mode every vServer group of a cluster lists the same
 * nodes, and so does every server group of its NLB Services), so the last list starting with a group's first server
 * is tried first: one identity comparison per server, no hash. Only when it differs is the list hashed and looked up
 * among every list of its region (a hash match confirmed by comparing the lists).
 */
export class ServerLists {
  /** The lists numbered so far, in order of first appearance: the rows of `graph_server_lists`. */
  readonly rows: ServerListRow[] = [];
  // Per account and region (key `account\u0000region`).
  private readonly regions = new Map<string, RegionLists>();
  private account: string | undefined;
  private regionId: string | undefined;
  private region: RegionLists | undefined;

  /**
   * The number of `servers`' list within its account and region, numbered (and added to `rows`) when new.
   * @param servers at least one server
   */
  numberOf(accountId: string, regionId: string, servers: readonly ListedServer[]): number {
    let region = this.region;
    if (region === undefined || accountId !== this.account || regionId !== this.regionId) {
      this.account = accountId;
      this.regionId = regionId;
      const key = `${accountId}\u0000${regionId}`;
      region = this.regions.get(key);
      if (region === undefined) {
        region = { last: new Map(), byHash: new Map(), hash: hashString(hashString(0x811c9dc5, accountId), regionId), count: 0 };
        this.regions.set(key, region);
      }
      this.region = region;
    }
    const first = servers[0]!.serverId;
    let found = region.last.get(first);
    if (found === undefined || !sameServers(found.servers, servers)) {
      const h = serversHash(region.hash, servers);
      const same = region.byHash.get(h);
      found = same?.find((l) => sameServers(l.servers, servers));
      if (found === undefined) {
        region.count += 1;
        found = { accountId, regionId, servers, serverList: region.count };
        this.rows.push(found);
        if (same) same.push(found);
        else region.byHash.set(h, [found]);
      }
      region.last.set(first, found);
    }
    return found.serverList;
  }
}

/**
 * Server groups with their backend servers by reference, numbered in `lists` (`ServerLists`), for the groups whose
 * backends share port, weight and type (`sharesPortWeightType`); the others keep theirs inline (null).
 * @param lists where the lists are numbered (the NLB server groups of the same graph are numbered after: `nlbRows`)
 * @returns the group rows (in input order) and the server lists numbered so far (in order of first appearance)
 */
export function serverGroupRows(groups: readonly BuiltServerGroup[], lists: ServerLists = new ServerLists()): { groups: ServerGroupRow[]; lists: ServerListRow[] } {
  const rows = new Array<ServerGroupRow>(groups.length);
  for (let i = 0; i < groups.length; i += 1) {
    const group = groups[i]!;
    rows[i] = sharesPortWeightType(group.backends) ? { group, serverList: lists.numberOf(group.accountId, group.regionId, group.backends) } : { group, serverList: null };
  }
  return { groups: rows, lists: lists.rows };
}
/**
 * Writes a server group's backends as the `backends` column's JSON text (`of`). The backend lists of a region repeat
 * each other (in Cluster mode every vServer group of a cluster lists the same nodes, in the same order, at another
 * port), so the text of a backend's id and IP (`["id","ip",`) is kept per position of the last list starting with the
 * same server (as libs/checks fleet-graph.ts `RecordRows` keeps records) and reused when that position holds the
 * same id and IP again. A list whose backends share port, weight and type (the common one) is then one `join` of
 * those texts: a flat string written in one native pass, not a rope of a few strings per backend that each later
 * scan or write of the text must flatten first.
 */
export class BackendsJson {
  private readonly rows = new Map<string, { ids: string[]; ips: (string | null)[]; heads: string[] }>();

  /**
   * The text of `JSON.stringify(backends.map((b) => [serverId, serverIp, port, weight, type]))`, byte for byte (an
   * absent IP or port, as a snapshot's entry may have, written as null, as JSON.stringify writes it in an array),
   * without the array per backend (10M of them at 5,000 clusters). JSON.stringify escapes control characters and
   * lone surrogates, so the text is always storable.
   */
  of(backends: readonly GraphBackendEntry[]): string {
    const n = backends.length;
    if (n === 0) return '[]';
    const row = this.row(backends[0]!.serverId);
    const { weight, type } = backends[0]!;
    const port = backends[0]!.port ?? null;
    let uniform = true;
    for (let i = 0; i < n; i += 1) {
      const b = backends[i]!;
      const ip = b.serverIp ?? null;
      // Positions are filled in order, so a row never has a hole.
      if (i >= row.ids.length || row.ids[i] !== b.serverId || row.ips[i] !== ip) {
        row.ids[i] = b.serverId;
        row.ips[i] = ip;
        row.heads[i] = `[${jsonString(b.serverId)},${jsonString(ip)},`;
      }
      if (uniform && ((b.port ?? null) !== port || b.weight !== weight || b.type !== type)) uniform = false;
    }
    const heads = row.heads.length === n ? row.heads : row.heads.slice(0, n);
    if (uniform) {
      const tail = `${jsonInt(port)},${jsonInt(weight)},${jsonString(type)}]`;
      return `[${heads.join(`${tail},`)}${tail}]`;
    }
    const entries = new Array<string>(n);
    for (let i = 0; i < n; i += 1) {
      const b = backends[i]!;
      entries[i] = `${heads[i]!}${jsonInt(b.port)},${jsonInt(b.weight)},${jsonString(b.type)}]`;
    }
    return `[${entries.join(',')}]`;
  }

  private row(firstId: string): { ids: string[]; ips: (string | null)[]; heads: string[] } {
    let r = this.rows.get(firstId);
    if (r === undefined) {
      r = { ids: [], ips: [], heads: [] };
      this.rows.set(firstId, r);
    }
    return r;
  }
}

/**
 * Writes an NLB's server groups as the `server_groups` column's packed text (`of`): each server group an array of its
 * declared fields in declaration order (GRAPH_NLB_SERVER_GROUP), its servers packed the same way (GRAPH_NLB_SERVER),
 * an absent value null: the text of `JSON.stringify` of those arrays, byte for byte, read back by
 * fleet-graph.columns.ts `unpackedRowsOf`. A server's head (`["id","ip","type",`) is kept per position of the last
 * server list starting with the same server and reused when that position holds the same server again (CCM lists a
 * cluster's nodes in every server group of its NLBs, at another port), and a list whose servers share port, weight,
 * status and zone is one `join`, as `BackendsJson` writes CLB backends.
 */
export class NlbServerGroupsJson {
  private readonly rows = new Map<string, { ids: string[]; ips: (string | null)[]; types: string[]; heads: string[] }>();

  /**
   * The packed text of `groups` (each server group's declared fields, then its servers packed, or, where `lists` gives
   * the group a list number, the reference to that list: `NlbServerListRef`'s JSON, its keys in declaration order).
   * @param lists per group, the number of its servers' list (`nlbRows`; null or absent: inline)
   */
  of(groups: readonly BuiltNlbServerGroup[], lists?: readonly (number | null)[]): string {
    if (groups.length === 0) return '[]';
    let s = '[';
    for (let k = 0; k < groups.length; k += 1) {
      const g = groups[k]!;
      const list = lists?.[k] ?? null;
      s +=
        `${k === 0 ? '[' : ',['}${jsonString(g.serverGroupId)},${jsonString(g.name)},${jsonString(g.type)},${jsonString(g.protocol)},` +
        `${jsonString(g.status)},${jsonString(g.ownerTag)},${jsonInt(g.serverCount)},${list === null ? this.servers(g.servers) : serverListRef(list, g.servers[0]!)}]`;
    }
    return `${s}]`;
  }

  private servers(servers: BuiltNlbServerGroup['servers']): string {
    const n = servers.length;
    if (n === 0) return '[]';
    const first = servers[0]!;
    let row = this.rows.get(first.serverId);
    if (row === undefined) {
      row = { ids: [], ips: [], types: [], heads: [] };
      this.rows.set(first.serverId, row);
    }
    const port = first.port ?? null;
    const weight = first.weight ?? null;
    const status = first.status ?? null;
    const zone = first.zoneId ?? null;
    let uniform = true;
    for (let i = 0; i < n; i += 1) {
      const sv = servers[i]!;
      const ip = sv.serverIp ?? null;
      // Positions are filled in order, so a row never has a hole.
      if (i >= row.ids.length || row.ids[i] !== sv.serverId || row.ips[i] !== ip || row.types[i] !== sv.type) {
        row.ids[i] = sv.serverId;
        row.ips[i] = ip;
        row.types[i] = sv.type;
        row.heads[i] = `[${jsonString(sv.serverId)},${jsonString(ip)},${jsonString(sv.type)},`;
      }
      if (uniform && ((sv.port ?? null) !== port || (sv.weight ?? null) !== weight || (sv.status ?? null) !== status || (sv.zoneId ?? null) !== zone)) uniform = false;
    }
    const heads = row.heads.length === n ? row.heads : row.heads.slice(0, n);
    if (uniform) {
      const tail = `${jsonInt(port)},${jsonInt(weight)},${jsonString(status)},${jsonString(zone)}]`;
      return `[${heads.join(`${tail},`)}${tail}]`;
    }
    const entries = new Array<string>(n);
    for (let i = 0; i < n; i += 1) {
      const sv = servers[i]!;
      entries[i] = `${heads[i]!}${jsonInt(sv.port)},${jsonInt(sv.weight)},${jsonString(sv.status)},${jsonString(sv.zoneId)}]`;
    }
    return `[${entries.join(',')}]`;
  }
}

/** The JSON text of an `NlbServerListRef` to list `list`, the shared fields read off its first server. */
function serverListRef(list: number, first: BuiltNlbServerGroup['servers'][number]): string {
  return `{"serverList":${list},"type":${jsonString(first.type)},"port":${jsonInt(first.port)},"weight":${jsonInt(first.weight)},"status":${jsonString(first.status)}}`;
}

/** `BackendsJson.of` without a memo: a server group's backends as the `backends` column's JSON text. */
export function backendsJson(backends: readonly GraphBackendEntry[]): string {
  return new BackendsJson().of(backends);
}
const serverGroupOfRow = rowMapperOf(GRAPH_SERVER_GROUP);

/** The join condition of ECS instance alias `e` to its attachment set, alias `a`. */
function ATTACHMENT_JOIN(e: string, a: string): string {
  return `${a}.scan_id = ${e}.scan_id AND ${a}.account_id = ${e}.account_id AND ${a}.region_id = ${e}.region_id AND ${a}.attachment_set = ${e}.attachment_set`;
}

/** The FROM clause of a listing's row reads (its table as `g`, and its joins), after `SELECT`. */
function rowsOf(listing: { table: string; rows?: { select: string; join: string } }): string {
  return listing.rows ? `${listing.rows.select} FROM ${listing.table} g ${listing.rows.join}` : `g.* FROM ${listing.table} g`;
}

/** A listing: table, its sort key (ascending, unique within a scan) and its row mapper. */
interface Listing<T> {
  table: string;
  /**
   * What a row read of it selects from its table (alias `g`), joins included: `g.*` and nothing joined unless given
   * (ECS instances join their attachment set).
   */
  rows?: { select: string; join: string };
  /** The team rule of its rows (team-scope.util.ts) for row alias `a`: what a team-scoped principal sees. */
  team: TeamRule;
  keys: readonly KeysetColumn[];
  /** The key values of a row (what its cursor carries). */
  keyOf: (row: T) => KeysetValue[];
  map: (row: QueryResultRow) => T;
}

const asc = (expr: string): KeysetColumn => ({ expr, dir: 'asc' });

/** The SQL condition restricting rows of alias `a` to a principal's teams (`TRUE` without a team scope). */
type TeamRule = (a: string, scope: Scoped, add: (value: unknown) => string) => string;

/** A region is visible to a team owning a cluster in it (an account: in one of its regions). */
const REGION_TEAMS: TeamRule = (a, scope, add) => teamRowCondition({ scan: `${a}.scan_id`, account: `${a}.account_id`, region: `${a}.region_id` }, scope, add);
/** A row of one cluster (the cluster itself, its Services, the node an ECS instance is): that cluster's team; other ECS instances of none. */
const CLUSTER_TEAMS =
  (teamColumn?: string): TeamRule =>
  (a, scope, add) =>
    teamRowCondition({ scan: `${a}.scan_id`, account: `${a}.account_id`, cluster: `${a}.cluster_id`, ...(teamColumn ? { team: `${a}.${teamColumn}` } : {}), shared: 'FALSE' }, scope, add);
/**
 * A CLB: every cluster it serves (the clusters of the Services using it, and the cluster whose API server it is) of
 * the principal's teams, so a CLB shared with another team's cluster is not shown (it would name that cluster).
 */
const CLB_TEAMS: TeamRule = (a, scope, add) =>
  teamClustersCoverCondition(`array_remove(${a}.cluster_ids || ${a}.api_server_cluster_id::text, NULL)`, `${a}.scan_id`, scope, add);
/** An NLB: every cluster of the Services using it of the principal's teams. */
const NLB_TEAMS: TeamRule = (a, scope, add) => teamClustersCoverCondition(`${a}.cluster_ids`, `${a}.scan_id`, scope, add);
/** A server group: visible with its CLB. */
const SERVER_GROUP_TEAMS: TeamRule = (a, scope, add) =>
  scope.teamScope === undefined
    ? 'TRUE'
    : `EXISTS (SELECT 1 FROM graph_load_balancers sl WHERE sl.scan_id = ${a}.scan_id AND sl.load_balancer_id = ${a}.load_balancer_id AND ${CLB_TEAMS('sl', scope, add)})`;
/** A quota sample: the rule of `quota_usage` rows (quota-usage.repository.ts quotaTeamColumns). */
const QUOTA_TEAMS: TeamRule = (a, scope, add) => teamRowCondition(quotaTeamColumns(a), scope, add);

/** The account and team condition of a listing's rows (alias `a`): the one policy layer for the graph tables. */
function inScope(listing: { team: TeamRule }, a: string, scope: Scoped, add: (value: unknown) => string): string {
  const team = listing.team(a, scope, add);
  const account = scopeCondition(`${a}.account_id`, scope, add);
  return team === 'TRUE' ? account : `${account} AND ${team}`;
}

const REGIONS: Listing<GraphRegion> = {
  table: 'graph_regions',
  team: REGION_TEAMS,
  keys: [asc('g.account_id'), asc('g.region_id')],
  keyOf: (r) => [r.accountId, r.regionId],
  map: rowMapperOf(GRAPH_REGION),
};

const CLUSTERS: Listing<GraphCluster> = {
  table: 'graph_clusters',
  team: CLUSTER_TEAMS('team'),
  keys: [asc('g.cluster_id')],
  keyOf: (r) => [r.clusterId],
  map: rowMapperOf(GRAPH_CLUSTER),
};

const SERVICES: Listing<GraphService> = {
  table: 'graph_services',
  team: CLUSTER_TEAMS(),
  keys: [asc('g.cluster_id'), asc('g.namespace'), asc('g.name')],
  keyOf: (r) => [r.clusterId, r.namespace, r.name],
  map: rowMapperOf(GRAPH_SERVICE),
};

const LOAD_BALANCERS: Listing<GraphLoadBalancer> = {
  table: 'graph_load_balancers',
  team: CLB_TEAMS,
  keys: [asc('g.load_balancer_id')],
  keyOf: (r) => [r.loadBalancerId],
  map: rowMapperOf(GRAPH_LOAD_BALANCER),
};

const SERVER_GROUPS: Listing<GraphServerGroup> = {
  table: 'graph_server_groups',
  // The backend servers of a group held by reference (`server_list`) as `list_servers`: null for an inline group.
  rows: {
    select: 'g.*, sl.servers AS list_servers',
    join: 'LEFT JOIN graph_server_lists sl ON sl.scan_id = g.scan_id AND sl.account_id = g.account_id AND sl.region_id = g.region_id AND sl.server_list = g.server_list',
  },
  team: SERVER_GROUP_TEAMS,
  keys: [asc('g.load_balancer_id'), asc('g.vserver_group_id')],
  keyOf: (r) => [r.loadBalancerId, r.vServerGroupId],
  map: serverGroupOfStoredRow,
};

/**
 * A stored server group (either form: `serverGroupColumns`) with its backends in the CLB's order.
 * @throws Error when a group held by reference has no row in `graph_server_lists` (a store that wrote one without the
 *   other: never by the store's own writes, which commit both in the scan's transaction or not at all)
 */
function serverGroupOfStoredRow(r: QueryResultRow): GraphServerGroup {
  if (r.backends !== null && r.backends !== undefined) {
    const backends = JSON.parse(r.backends as string) as [string, string | null, number | null, number, string][];
    return { ...serverGroupOfRow(r), backends: backends.map(([serverId, serverIp, port, weight, type]) => ({ serverId, serverIp, port, weight, type })) };
  }
  if (typeof r.list_servers !== 'string') {
    throw new Error(`graph_server_groups: server group '${String(r.vserver_group_id)}' of CLB ${String(r.load_balancer_id)} in scan ${String(r.scan_id)} names server list ${String(r.server_list)}, which is not stored`);
  }
  const servers = JSON.parse(r.list_servers) as [string, string | null][];
  const port = (r.backend_port as number | null) ?? null;
  const weight = r.backend_weight as number;
  const type = r.backend_type as string;
  return { ...serverGroupOfRow(r), backends: servers.map(([serverId, serverIp]) => ({ serverId, serverIp, port, weight, type })) };
}

const ECS_INSTANCES: Listing<GraphEcsInstance> = {
  table: 'graph_ecs_instances',
  // The attachment lists under their own column names (the row mapper's), empty without a set.
  rows: {
    select: `g.*, ${ATTACHMENT_COLUMNS.map((c) => `COALESCE(ea.${c}, '{}') AS ${c}`).join(', ')}`,
    join: `LEFT JOIN graph_ecs_attachments ea ON ${ATTACHMENT_JOIN('g', 'ea')}`,
  },
  team: CLUSTER_TEAMS(),
  keys: [asc('g.instance_id')],
  keyOf: (r) => [r.instanceId],
  map: rowMapperOf(GRAPH_ECS_INSTANCE),
};

/** The NLB listing on a schema before migration 1800900000000 (every server group inline). */
const NLBS_INLINE: Listing<GraphNlb> = {
  table: 'graph_nlbs',
  team: NLB_TEAMS,
  keys: [asc('g.nlb_id')],
  keyOf: (r) => [r.nlbId],
  map: nlbOfRow,
};

const NLBS: Listing<GraphNlb> = {
  ...NLBS_INLINE,
  // The server lists its groups hold by reference (`server_lists`), as `list_numbers` and `list_servers` (nlbOfRow).
  rows: {
    select: 'g.*, sl.list_numbers, sl.list_servers',
    join:
      'LEFT JOIN LATERAL (SELECT array_agg(l.server_list) AS list_numbers, array_agg(l.servers) AS list_servers FROM graph_server_lists l ' +
      'WHERE g.server_lists IS NOT NULL AND l.scan_id = g.scan_id AND l.account_id = g.account_id AND l.region_id = g.region_id AND l.server_list = ANY(g.server_lists)) sl ON TRUE',
  },
};

const QUOTAS: Listing<QuotaUsageSample> = {
  table: 'quota_usage',
  team: QUOTA_TEAMS,
  keys: [asc('g.check_id'), asc('g.account_id'), asc('g.region_id'), asc('g.resource_kind'), asc('g.resource_id')],
  keyOf: (q) => [q.checkId, q.resource.accountId, q.resource.regionId, q.resource.kind, q.resource.id],
  map: (row) => quotaSampleOfRow(row as QuotaUsageRow),
};

/**
 * One filter of a listing: a string is equality with the column; `contains` an element of a text[] column;
 * `range` inclusive bounds on a numeric expression, either optional (undefined: not filtered).
 */
type FilterValue = string | { contains: string } | { range: { atLeast?: number; atMost?: number } } | undefined;

/** Filters of a listing: SQL column or expression (from code, never input) -> filter (AND-ed). */
type Filters = Record<string, FilterValue>;

/** Filters of the CLB listing (`loadBalancersPage`): equality, and `clusterId` one of the CLB's `clusterIds`. */
export interface LoadBalancerListFilter {
  accountId?: string;
  regionId?: string;
  /** ccm | reused | console (libs/domain LB_OWNERS). */
  owner?: string;
  /** internet | intranet. */
  addressType?: string;
  /** A cluster among the CLB's `clusterIds` (the clusters of the Services using it). */
  clusterId?: string;
}

/** Filters of the ECS listing (`ecsInstancesPage`); `min/maxLoadBalancers` bound the count of its stored `loadBalancerIds`. */
export interface EcsInstanceListFilter {
  accountId?: string;
  regionId?: string;
  /** The cluster of the node it backs. */
  clusterId?: string;
  minLoadBalancers?: number;
  maxLoadBalancers?: number;
}

/** Filters of the NLB listing (`nlbsPage`): equality, and `clusterId` one of the NLB's `clusterIds`. */
export interface NlbListFilter {
  accountId?: string;
  regionId?: string;
  /** ccm | reused | console (libs/domain LB_OWNERS). */
  owner?: string;
  /** A cluster among the NLB's `clusterIds` (the clusters of the Services using it). */
  clusterId?: string;
}

function nlbFilters(f: NlbListFilter): Filters {
  return {
    'g.account_id': f.accountId,
    'g.region_id': f.regionId,
    'g.owner': f.owner,
    'g.cluster_ids': f.clusterId === undefined ? undefined : { contains: f.clusterId },
  };
}

function loadBalancerFilters(f: LoadBalancerListFilter): Filters {
  return {
    'g.account_id': f.accountId,
    'g.region_id': f.regionId,
    'g.owner': f.owner,
    'g.address_type': f.addressType,
    'g.cluster_ids': f.clusterId === undefined ? undefined : { contains: f.clusterId },
  };
}

function ecsInstanceFilters(f: EcsInstanceListFilter): Filters {
  const range = { ...(f.minLoadBalancers !== undefined ? { atLeast: f.minLoadBalancers } : {}), ...(f.maxLoadBalancers !== undefined ? { atMost: f.maxLoadBalancers } : {}) };
  return {
    'g.account_id': f.accountId,
    'g.region_id': f.regionId,
    'g.cluster_id': f.clusterId,
    'g.load_balancer_count': Object.keys(range).length === 0 ? undefined : { range },
  };
}

/**
 * The stored fleet graph of each succeeded scan (tables `graph_*`, migration 1797300000000) and the quota
 * usage rows (`quota_usage`) as the API reads them: keyset pages with opaque cursors, and batch reads made for
 * DataLoaders (one SQL statement per batch of parent ids, whatever their number). Writes happen only inside
 * `ScanRepository.complete` (COPY chunks through `copyParts` and scan-store.ts, or `replaceForScan` in one
 * transaction) and by the shards of a sharded scan (`insertForScan`).
 *
 * Every read takes the caller's principal (`Scoped`) and filters `account_id` in SQL (principal.ts: the one
 * policy layer), and for a team-scoped principal the rows of its teams (team-scope.util.ts: rows of its clusters,
 * regions and accounts where it owns a cluster, CLBs / NLBs serving only its clusters, quota samples of its clusters and
 * the account / region quotas they draw on), so a scoped token never reads a row of another account or team, also
 * when it follows an id it found elsewhere. Reads of a scan without a stored graph (completed before this table existed) return nothing.
 * `scanId` must be a uuid (callers resolve "latest" first); another string matches nothing.
 */
export class FleetGraphRepository {
  /** @param pool the store's connection pool */
  /** Counts of listings, by (findings generation, table, scan, scope, filters): see `count`. */
  private readonly counts = new LRUCache<string, number, () => Promise<number>>({
    max: 10_000,
    fetchMethod: (_key, _stale, { context }) => context(),
  });

  /**
   * @param pool the store's connection pool
   * @param generations with it, listing counts are cached under the findings generation (`count`)
   */
  /** Whether `graph_nlbs.server_lists` exists (migration 1800900000000: NLB server groups by reference). */
  private readonly nlbServerLists: ColumnProbe;

  constructor(
    private readonly pool: Pool,
    private readonly generations?: ReadGenerations,
  ) {
    this.nlbServerLists = new ColumnProbe(pool, 'graph_nlbs', 'server_lists');
  }

  /** The NLB listing of this database's schema. */
  private async nlbListing(): Promise<Listing<GraphNlb>> {
    return (await this.nlbServerLists.exists()) ? NLBS : NLBS_INLINE;
  }

  /**
   * Replace the graph of a scan (completing a scan again leaves exactly the second graph). Rows are written
   * with multi-row `INSERT ... VALUES` per table and chunk (at most 65,535 parameters; 1,000 server
   * groups), so a 1M-backend fleet costs tens of statements. Duplicate keys keep the first row.
   * @param client the transaction's client (`ScanRepository.complete`)
   */
  async replaceForScan(client: PoolClient, scanId: string, graph: FleetGraph): Promise<void> {
    for (const t of ['graph_regions', 'graph_clusters', 'graph_services', 'graph_load_balancers', 'graph_server_groups', 'graph_server_lists', 'graph_ecs_instances', 'graph_ecs_attachments', 'graph_nlbs']) {
      await client.query(`DELETE FROM ${t} WHERE scan_id = $1`, [scanId]);
    }
    await this.insertForScan(client, scanId, graph);
  }

  /**
   * Add graph rows to a scan (rows of a key already there are kept): `replaceForScan` without its DELETEs; a
   * shard of a sharded analysis adds the graph of its (account, region) with it (ScanShardRepository). The ECS
   * attachment sets are numbered per call (`ecsAttachmentRows`) and keyed by account and region, so the graphs added
   * must each hold accounts and regions of their own (one per shard).
   * @param client the transaction's client
   */
  async insertForScan(client: PoolClient, scanId: string, graph: FleetGraph): Promise<void> {
    await insertRows(client, 'graph_regions', REGION_COLUMNS, scanId, graph.regions, ROWS_PER_INSERT);
    await insertRows(client, 'graph_clusters', CLUSTER_COLUMNS, scanId, graph.clusters, ROWS_PER_INSERT);
    await insertRows(client, 'graph_services', SERVICE_COLUMNS, scanId, graph.services, ROWS_PER_INSERT);
    await insertRows(client, 'graph_load_balancers', LOAD_BALANCER_COLUMNS, scanId, graph.loadBalancers, ROWS_PER_INSERT);
    // One row per key before numbering the server lists: a list no kept group names is never written.
    const lists = new ServerLists();
    const byReference = await this.nlbServerLists.exists(client);
    const groups = serverGroupRows(dedupeRows(graph.serverGroups, (r) => [r.loadBalancerId, r.vServerGroupId]), lists);
    const nlbs = nlbRows(dedupeRows(graph.nlbs, (r) => [r.nlbId]), byReference ? lists : null);
    await insertRows(client, 'graph_server_groups', serverGroupColumns(new BackendsJson()), scanId, groups.groups, SERVER_GROUPS_PER_INSERT);
    await insertRows(client, 'graph_server_lists', SERVER_LIST_COLUMNS, scanId, lists.rows, SERVER_GROUPS_PER_INSERT);
    // One row per instance id before numbering the attachment sets: a set no kept row names is never written.
    const ecs = ecsAttachmentRows(dedupeRows(graph.ecsInstances, (r) => [r.instanceId]));
    await insertRows(client, 'graph_ecs_instances', ECS_COLUMNS, scanId, ecs.instances, ROWS_PER_INSERT);
    await insertRows(client, 'graph_ecs_attachments', ATTACHMENT_SET_COLUMNS, scanId, ecs.sets, ROWS_PER_INSERT);
    await insertRows(client, 'graph_nlbs', nlbColumns(new NlbServerGroupsJson(), byReference), scanId, nlbs, NLBS_PER_INSERT);
  }

  /**
   * The graph's rows as COPY parts (copy.util.ts), one per table, one row per key (the first of each, as the
   * INSERT path keeps): what a chunked store of a scan writes (scan-store.ts).
   */
  async copyParts(graph: FleetGraph): Promise<CopyPart[]> {
    const ROWS = 50_000;
    const byReference = await this.nlbServerLists.exists();
    // Each step is a pass over up to a million rows (about a second at 5,000 clusters): the store's COPY lanes, which
    // encode on this thread too, go on between them instead of waiting for all of them.
    const between = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const instances = dedupeRows(graph.ecsInstances, (r) => [r.instanceId]);
    await between();
    const ecs = ecsAttachmentRows(instances);
    await between();
    const lists = new ServerLists();
    const kept = dedupeRows(graph.serverGroups, (r) => [r.loadBalancerId, r.vServerGroupId]);
    await between();
    const groups = serverGroupRows(kept, lists);
    await between();
    const nlbs = nlbRows(dedupeRows(graph.nlbs, (r) => [r.nlbId]), byReference ? lists : null);
    await between();
    return [
      copyPart('graph_regions', REGION_COLUMNS, dedupeRows(graph.regions, (r) => [r.accountId, r.regionId]), ROWS),
      copyPart('graph_clusters', CLUSTER_COLUMNS, dedupeRows(graph.clusters, (r) => [r.clusterId]), ROWS),
      copyPart('graph_services', SERVICE_COLUMNS, dedupeRows(graph.services, (r) => [r.clusterId, r.namespace, r.name]), ROWS),
      copyPart('graph_load_balancers', LOAD_BALANCER_COLUMNS, dedupeRows(graph.loadBalancers, (r) => [r.loadBalancerId]), ROWS),
      // Server groups and NLBs carry their backends / server groups: fewer per chunk bounds a chunk's bytes.
      copyPart('graph_server_groups', serverGroupColumns(new BackendsJson()), groups.groups, ROWS / 5),
      copyPart('graph_server_lists', SERVER_LIST_COLUMNS, lists.rows, ROWS / 5),
      copyPart('graph_ecs_instances', ECS_COLUMNS, ecs.instances, ROWS),
      copyPart('graph_ecs_attachments', ATTACHMENT_SET_COLUMNS, ecs.sets, ROWS),
      copyPart('graph_nlbs', nlbColumns(new NlbServerGroupsJson(), byReference), nlbs, ROWS / 10),
    ];
  }

  /** Whether the scan has a stored graph (scans completed before migration 1797300000000 have none). */
  async hasGraph(scanId: string): Promise<boolean> {
    if (!isUuid(scanId)) return false;
    const { rows } = await this.pool.query('SELECT 1 FROM graph_regions WHERE scan_id = $1 LIMIT 1', [scanId]);
    return rows.length > 0;
  }

  // ---- accounts and regions -------------------------------------------------------------------------

  /**
   * A page of the scan's accounts (from its regions), by account id.
   * @throws StoreError INVALID_ARGUMENT for bad paging or a malformed cursor
   */
  async accountsPage(scanId: string, scope: Scoped, args: GraphPageArgs): Promise<GraphPage<GraphAccount>> {
    const p = new Params();
    const { limit, backward, conditions, order } = pagingSql([asc('a.account_id')], args, p.add);
    const scanParam = p.add(scanId);
    const where = [`g.scan_id = ${scanParam}`, inScope(REGIONS, 'g', scope, p.add)];
    const sql = `SELECT * FROM (SELECT g.account_id, min(g.account_name) AS account_name, count(*) AS region_count
        FROM graph_regions g WHERE ${where.join(' AND ')} GROUP BY g.account_id) a
      WHERE ${conditions.length ? conditions.join(' AND ') : 'TRUE'} ${order} LIMIT ${p.add(limit + 1)}`;
    if (!isUuid(scanId)) return emptyPage();
    const { rows } = await this.pool.query(sql, p.values);
    const mapped = rows.map((r) => ({ accountId: r.account_id as string, accountName: r.account_name as string, regionCount: toNumber(r.region_count) }));
    return toPage(mapped, (a) => [a.accountId], limit, backward, args);
  }

  /** How many accounts the scan's graph holds within the scope. */
  async countAccounts(scanId: string, scope: Scoped): Promise<number> {
    if (!isUuid(scanId)) return 0;
    const p = new Params();
    const { rows } = await this.pool.query(
      `SELECT count(DISTINCT g.account_id) AS n FROM graph_regions g WHERE g.scan_id = ${p.add(scanId)} AND ${inScope(REGIONS, 'g', scope, p.add)}`,
      p.values,
    );
    return toNumber(rows[0].n);
  }

  /**
   * Pages of regions per account (the same paging arguments for each account), one SQL statement.
   * @returns account id -> page (accounts outside the scope or the scan get an empty page)
   */
  async regionPagesByAccountIds(scanId: string, accountIds: readonly string[], args: GraphPageArgs, scope: Scoped): Promise<Map<string, GraphPage<GraphRegion>>> {
    const pages = await this.pagesByParent(REGIONS, scanId, ['account_id'], accountIds.map((a) => [a]), args, scope);
    const narrow = await this.unusedGroupNarrower(scanId, scope);
    return new Map(accountIds.map((a, i) => [a, { ...pages[i]!, edges: pages[i]!.edges.map((e) => ({ ...e, node: narrow(e.node) })) }]));
  }

  /** Regions by (account id, region id) keys `accountId/regionId`, within the scope. */
  async regionsByKeys(scanId: string, keys: readonly { accountId: string; regionId: string }[], scope: Scoped): Promise<GraphRegion[]> {
    const regions = await this.byTuples(REGIONS, scanId, ['account_id', 'region_id'], keys.map((k) => [k.accountId, k.regionId]), scope);
    return regions.map(await this.unusedGroupNarrower(scanId, scope));
  }

  /**
   * What a principal sees of a region's unused NLB server groups: all of them, or for a team-scoped principal those
   * of its teams' clusters (CCM names a server group `k8s.{port}.{protocol}.{service}.{namespace}.{clusterId}`,
   * research/nlb.md), so a group left by another team's cluster is not shown.
   */
  private async unusedGroupNarrower(scanId: string, scope: Scoped): Promise<(region: GraphRegion) => GraphRegion> {
    if (scope.teamScope === undefined) return (region) => region;
    const mine = new Set((await this.teamClusters(scanId, scope)).map((c) => c.clusterId));
    return (region) => ({ ...region, unusedNlbServerGroups: region.unusedNlbServerGroups.filter((g) => mine.has(g.name.slice(g.name.lastIndexOf('.') + 1))) });
  }

  /**
   * The regions of a scan whose NLBs were read (`nlb_server_group_count` set), optionally of one account and/or region,
   * by account and region id, within the scope; with `unusedOnly`, only those holding a server group no NLB uses.
   * Unpaged: a region holds at most 3,000 NLB server groups (the fixed quota), and a fleet a few hundred regions.
   */
  async regionsWithNlbData(scanId: string, scope: Scoped, filter: { accountId?: string; regionId?: string; unusedOnly?: boolean } = {}): Promise<GraphRegion[]> {
    if (!isUuid(scanId)) return [];
    const p = new Params();
    const where = [
      `g.scan_id = ${p.add(scanId)}`,
      inScope(REGIONS, 'g', scope, p.add),
      'g.nlb_server_group_count IS NOT NULL',
      ...filterConditions({ 'g.account_id': filter.accountId, 'g.region_id': filter.regionId }, p.add),
      ...(filter.unusedOnly ? ["g.unused_nlb_server_groups <> '[]'::jsonb"] : []),
    ];
    const { rows } = await this.pool.query(`SELECT g.* FROM graph_regions g WHERE ${where.join(' AND ')} ORDER BY g.account_id, g.region_id`, p.values);
    const regions = rows.map(REGIONS.map).map(await this.unusedGroupNarrower(scanId, scope));
    return filter.unusedOnly ? regions.filter((r) => r.unusedNlbServerGroups.length > 0) : regions;
  }

  // ---- clusters --------------------------------------------------------------------------------------

  /**
   * The clusters of a team-scoped principal's teams in the scan's graph, within its accounts (by id); every cluster in
   * its accounts without a team scope. For readers that narrow in memory what SQL cannot (metrics' forecasts).
   */
  async teamClusters(scanId: string, scope: Scoped): Promise<{ clusterId: string; accountId: string; regionId: string }[]> {
    if (!isUuid(scanId)) return [];
    const p = new Params();
    const { rows } = await this.pool.query<{ cluster_id: string; account_id: string; region_id: string }>(
      `SELECT g.cluster_id, g.account_id, g.region_id FROM graph_clusters g WHERE g.scan_id = ${p.add(scanId)} AND ${inScope(CLUSTERS, 'g', scope, p.add)} ORDER BY g.cluster_id`,
      p.values,
    );
    return rows.map((r) => ({ clusterId: r.cluster_id, accountId: r.account_id, regionId: r.region_id }));
  }

  /**
   * A page of the scan's clusters by cluster id, optionally of one account and/or region.
   * @throws StoreError INVALID_ARGUMENT for bad paging or a malformed cursor
   */
  clustersPage(scanId: string, scope: Scoped, args: GraphPageArgs, filter: { accountId?: string; regionId?: string } = {}): Promise<GraphPage<GraphCluster>> {
    return this.page(CLUSTERS, scanId, scope, args, { 'g.account_id': filter.accountId, 'g.region_id': filter.regionId });
  }

  /** How many clusters match (same filters as `clustersPage`). */
  countClusters(scanId: string, scope: Scoped, filter: { accountId?: string; regionId?: string } = {}): Promise<number> {
    return this.count(CLUSTERS, scanId, scope, { 'g.account_id': filter.accountId, 'g.region_id': filter.regionId });
  }

  /** Pages of clusters per region (same paging arguments for each), one SQL statement; result in input order. */
  clusterPagesByRegions(scanId: string, regions: readonly { accountId: string; regionId: string }[], args: GraphPageArgs, scope: Scoped): Promise<GraphPage<GraphCluster>[]> {
    return this.pagesByParent(CLUSTERS, scanId, ['account_id', 'region_id'], regions.map((r) => [r.accountId, r.regionId]), args, scope);
  }

  /** Clusters by id (missing and out-of-scope ids are absent), one SQL statement. */
  clustersByIds(scanId: string, ids: readonly string[], scope: Scoped): Promise<GraphCluster[]> {
    return this.byTuples(CLUSTERS, scanId, ['cluster_id'], ids.map((i) => [i]), scope);
  }

  // ---- services ----------------------------------------------------------------------------------------

  /** A page of LoadBalancer Services by (cluster, namespace, name), optionally of one cluster / account / CLB. */
  servicesPage(
    scanId: string,
    scope: Scoped,
    args: GraphPageArgs,
    filter: { accountId?: string; clusterId?: string; loadBalancerId?: string } = {},
  ): Promise<GraphPage<GraphService>> {
    return this.page(SERVICES, scanId, scope, args, {
      'g.account_id': filter.accountId,
      'g.cluster_id': filter.clusterId,
      'g.load_balancer_id': filter.loadBalancerId,
    });
  }

  /** Pages of Services per cluster id (same paging arguments for each), one SQL statement; result in input order. */
  servicePagesByClusterIds(scanId: string, clusterIds: readonly string[], args: GraphPageArgs, scope: Scoped): Promise<GraphPage<GraphService>[]> {
    return this.pagesByParent(SERVICES, scanId, ['cluster_id'], clusterIds.map((c) => [c]), args, scope);
  }

  /** Pages of the Services sharing each CLB (same paging arguments for each), one SQL statement; result in input order. */
  servicePagesByLoadBalancerIds(scanId: string, loadBalancerIds: readonly string[], args: GraphPageArgs, scope: Scoped): Promise<GraphPage<GraphService>[]> {
    return this.pagesByParent(SERVICES, scanId, ['load_balancer_id'], loadBalancerIds.map((c) => [c]), args, scope);
  }

  /** Every Service of each cluster (unpaged: REST detail views), one SQL statement. */
  async servicesByClusterIds(scanId: string, clusterIds: readonly string[], scope: Scoped): Promise<Map<string, GraphService[]>> {
    return groupBy(await this.byTuples(SERVICES, scanId, ['cluster_id'], clusterIds.map((c) => [c]), scope), (s) => s.clusterId, clusterIds);
  }

  /** Every Service using each CLB (unpaged; a CLB has few), one SQL statement. */
  async servicesByLoadBalancerIds(scanId: string, loadBalancerIds: readonly string[], scope: Scoped): Promise<Map<string, GraphService[]>> {
    const rows = await this.byTuples(SERVICES, scanId, ['load_balancer_id'], loadBalancerIds.map((c) => [c]), scope);
    return groupBy(rows, (s) => s.loadBalancerId ?? '', loadBalancerIds);
  }

  // ---- load balancers ----------------------------------------------------------------------------------

  /** A page of CLB instances by id, optionally of one account / region / owner / address type / cluster (all AND-ed). */
  loadBalancersPage(scanId: string, scope: Scoped, args: GraphPageArgs, filter: LoadBalancerListFilter = {}): Promise<GraphPage<GraphLoadBalancer>> {
    return this.page(LOAD_BALANCERS, scanId, scope, args, loadBalancerFilters(filter));
  }

  /** How many CLB instances match (same filters as `loadBalancersPage`). */
  countLoadBalancers(scanId: string, scope: Scoped, filter: LoadBalancerListFilter = {}): Promise<number> {
    return this.count(LOAD_BALANCERS, scanId, scope, loadBalancerFilters(filter));
  }

  /** CLB instances by id (missing and out-of-scope ids are absent), one SQL statement. */
  loadBalancersByIds(scanId: string, ids: readonly string[], scope: Scoped): Promise<GraphLoadBalancer[]> {
    return this.byTuples(LOAD_BALANCERS, scanId, ['load_balancer_id'], ids.map((i) => [i]), scope);
  }

  /**
   * The server groups (default group first when it has backends, then vServer groups by id) of each CLB,
   * with their backends in the CLB's order, one SQL statement. This is where backend servers are read.
   */
  async serverGroupsByLoadBalancerIds(scanId: string, loadBalancerIds: readonly string[], scope: Scoped): Promise<Map<string, GraphServerGroup[]>> {
    const rows = await this.byTuples(SERVER_GROUPS, scanId, ['load_balancer_id'], loadBalancerIds.map((i) => [i]), scope);
    return groupBy(rows, (g) => g.loadBalancerId, loadBalancerIds);
  }

  /** The CLBs each ECS instance is an `ecs` backend of (by CLB id), one SQL statement. */
  async loadBalancersByEcsIds(scanId: string, ecsIds: readonly string[], scope: Scoped): Promise<Map<string, GraphLoadBalancer[]>> {
    const out = new Map<string, GraphLoadBalancer[]>(ecsIds.map((i) => [i, []]));
    if (!isUuid(scanId) || ecsIds.length === 0) return out;
    const p = new Params();
    const { rows } = await this.pool.query(
      `SELECT e.instance_id AS ecs_instance_id, g.* FROM graph_ecs_instances e
         JOIN graph_ecs_attachments ea ON ${ATTACHMENT_JOIN('e', 'ea')}
         CROSS JOIN LATERAL unnest(ea.load_balancer_ids) AS l(id)
         JOIN graph_load_balancers g ON g.scan_id = e.scan_id AND g.load_balancer_id = l.id
        WHERE e.scan_id = ${p.add(scanId)} AND e.instance_id = ANY(${p.add([...ecsIds])}::text[])
          AND ${inScope(ECS_INSTANCES, 'e', scope, p.add)} AND ${inScope(LOAD_BALANCERS, 'g', scope, p.add)}
        ORDER BY e.instance_id, g.load_balancer_id`,
      p.values,
    );
    for (const r of rows) out.get(r.ecs_instance_id as string)?.push(LOAD_BALANCERS.map(r));
    return out;
  }

  /**
   * The ids of the CLBs each ECS instance is an `ecs` backend of, within the scope (sorted), one SQL statement: what
   * `loadBalancersByEcsIds` gives without reading the CLB rows (their listeners and clusters), for listings that
   * show only ids (an ECS page of 100 instances names some 2,000 CLBs).
   */
  async loadBalancerIdsByEcsIds(scanId: string, ecsIds: readonly string[], scope: Scoped): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(ecsIds.map((i) => [i, []]));
    if (!isUuid(scanId) || ecsIds.length === 0) return out;
    const p = new Params();
    const { rows } = await this.pool.query<{ ecs_instance_id: string; load_balancer_id: string }>(
      `SELECT e.instance_id AS ecs_instance_id, g.load_balancer_id FROM graph_ecs_instances e
         JOIN graph_ecs_attachments ea ON ${ATTACHMENT_JOIN('e', 'ea')}
         CROSS JOIN LATERAL unnest(ea.load_balancer_ids) AS l(id)
         JOIN graph_load_balancers g ON g.scan_id = e.scan_id AND g.load_balancer_id = l.id
        WHERE e.scan_id = ${p.add(scanId)} AND e.instance_id = ANY(${p.add([...ecsIds])}::text[])
          AND ${inScope(ECS_INSTANCES, 'e', scope, p.add)} AND ${inScope(LOAD_BALANCERS, 'g', scope, p.add)}`,
      p.values,
    );
    for (const r of rows) out.get(r.ecs_instance_id)?.push(r.load_balancer_id);
    for (const ids of out.values()) ids.sort();
    return out;
  }

  // ---- NLBs ------------------------------------------------------------------------------------------------

  /** A page of NLB instances by id, optionally of one account / region / owner / cluster (all AND-ed). */
  async nlbsPage(scanId: string, scope: Scoped, args: GraphPageArgs, filter: NlbListFilter = {}): Promise<GraphPage<GraphNlb>> {
    return this.page(await this.nlbListing(), scanId, scope, args, nlbFilters(filter));
  }

  /** How many NLB instances match (same filters as `nlbsPage`). */
  async countNlbs(scanId: string, scope: Scoped, filter: NlbListFilter = {}): Promise<number> {
    return this.count(await this.nlbListing(), scanId, scope, nlbFilters(filter));
  }

  /** NLB instances by id (missing and out-of-scope ids are absent), one SQL statement. */
  async nlbsByIds(scanId: string, ids: readonly string[], scope: Scoped): Promise<GraphNlb[]> {
    return this.byTuples(await this.nlbListing(), scanId, ['nlb_id'], ids.map((i) => [i]), scope);
  }

  /** Every Service using each NLB (unpaged; an NLB has few), one SQL statement. */
  async servicesByNlbIds(scanId: string, nlbIds: readonly string[], scope: Scoped): Promise<Map<string, GraphService[]>> {
    const rows = await this.byTuples(SERVICES, scanId, ['nlb_id'], nlbIds.map((c) => [c]), scope);
    return groupBy(rows, (s) => s.nlbId ?? '', nlbIds);
  }

  /** Pages of the Services using each NLB (same paging arguments for each), one SQL statement; result in input order. */
  servicePagesByNlbIds(scanId: string, nlbIds: readonly string[], args: GraphPageArgs, scope: Scoped): Promise<GraphPage<GraphService>[]> {
    return this.pagesByParent(SERVICES, scanId, ['nlb_id'], nlbIds.map((c) => [c]), args, scope);
  }

  // ---- ECS instances ----------------------------------------------------------------------------------

  /**
   * A page of ECS instances by id, optionally of one account / region / cluster (the cluster of the node it backs)
   * and with a number of stored CLBs (`loadBalancerIds`) within [minLoadBalancers, maxLoadBalancers].
   */
  ecsInstancesPage(scanId: string, scope: Scoped, args: GraphPageArgs, filter: EcsInstanceListFilter = {}): Promise<GraphPage<GraphEcsInstance>> {
    return this.page(ECS_INSTANCES, scanId, scope, args, ecsInstanceFilters(filter));
  }

  /** How many ECS instances match (same filters as `ecsInstancesPage`). */
  countEcsInstances(scanId: string, scope: Scoped, filter: EcsInstanceListFilter = {}): Promise<number> {
    return this.count(ECS_INSTANCES, scanId, scope, ecsInstanceFilters(filter));
  }

  /** ECS instances by id (missing, not-read and out-of-scope ids are absent), one SQL statement. */
  ecsInstancesByIds(scanId: string, ids: readonly string[], scope: Scoped): Promise<GraphEcsInstance[]> {
    return this.byTuples(ECS_INSTANCES, scanId, ['instance_id'], ids.map((i) => [i]), scope);
  }

  // ---- quotas (quota_usage) ---------------------------------------------------------------------------

  /**
   * A page of the scan's quota usage samples (used / limit / ratio per check and resource) in key order
   * (check id, account, region, resource kind, resource id), optionally filtered; `minRatio` 0..1+.
   */
  quotasPage(
    scanId: string,
    scope: Scoped,
    args: GraphPageArgs,
    filter: { checkId?: string; accountId?: string; regionId?: string; clusterId?: string; resourceKind?: string; resourceId?: string; minRatio?: number } = {},
  ): Promise<GraphPage<QuotaUsageSample>> {
    return this.page(QUOTAS, scanId, scope, args, quotaFilters(filter), filter.minRatio);
  }

  /** How many quota samples match (same filters as `quotasPage`). */
  countQuotas(
    scanId: string,
    scope: Scoped,
    filter: { checkId?: string; accountId?: string; regionId?: string; clusterId?: string; resourceKind?: string; resourceId?: string; minRatio?: number } = {},
  ): Promise<number> {
    return this.count(QUOTAS, scanId, scope, quotaFilters(filter), filter.minRatio);
  }

  /**
   * The quota samples of each resource (`kind` + `id`), e.g. a CLB's listener and backend quotas, one SQL
   * statement. @returns key `${kind}/${id}` -> samples by check id
   */
  async quotasByResources(scanId: string, resources: readonly { kind: ResourceKind; id: string }[], scope: Scoped): Promise<Map<string, QuotaUsageSample[]>> {
    const rows = await this.byTuples(QUOTAS, scanId, ['resource_kind', 'resource_id'], resources.map((r) => [r.kind, r.id]), scope);
    return groupBy(rows, (q) => `${q.resource.kind}/${q.resource.id}`, resources.map((r) => `${r.kind}/${r.id}`));
  }

  // ---- generic ------------------------------------------------------------------------------------------

  private async page<T>(listing: Listing<T>, scanId: string, scope: Scoped, args: GraphPageArgs, filters: Filters, minRatio?: number): Promise<GraphPage<T>> {
    const p = new Params();
    const { limit, backward, conditions, order } = pagingSql(listing.keys, args, p.add);
    if (!isUuid(scanId)) return emptyPage();
    const where = [`g.scan_id = ${p.add(scanId)}`, inScope(listing, 'g', scope, p.add), ...filterConditions(filters, p.add), ...conditions];
    if (minRatio !== undefined) where.push(`g.ratio >= ${p.add(minRatio)}`);
    const { rows } = await this.pool.query(`SELECT ${rowsOf(listing)} WHERE ${where.join(' AND ')} ${order} LIMIT ${p.add(limit + 1)}`, p.values);
    return toPage(rows.map(listing.map), listing.keyOf, limit, backward, args);
  }

  /**
   * Rows of a listing matching the filters in the principal's scope. REST answers carry `total` on every page, and
   * counting an account's 50,000 ECS instances of a 5,000-cluster scan costs about 100 ms, so
   * counts are cached in memory under the findings generation (`ReadGenerations`, read first): a scan's graph is
   * written in the transaction that completes it and deleted only with the scan or when retention prunes it, and
   * each of those bumps that generation, so a cached count is never older than the generation it is keyed under.
   * Only counts of the latest succeeded scan (the generation read's `latestSucceededScanId`) are kept, as the API's
   * answer caches keep only its answers: another scan may still be running, and a sharded scan's shards add rows to
   * it (`insertForScan`) without a generation bump. Concurrent requests for one count share a single statement.
   */
  private async count<T>(listing: Listing<T>, scanId: string, scope: Scoped, filters: Filters, minRatio?: number): Promise<number> {
    if (!isUuid(scanId)) return 0;
    if (!this.generations) return this.countUncached(listing, scanId, scope, filters, minRatio);
    const generation = await this.generations.current();
    if (scanId.toLowerCase() !== generation.latestSucceededScanId?.toLowerCase()) return this.countUncached(listing, scanId, scope, filters, minRatio);
    const key = JSON.stringify([generation.findings, listing.table, scanId.toLowerCase(), scopeCacheKey(scope), filters, minRatio ?? null]);
    const n = await this.counts.fetch(key, { context: () => this.countUncached(listing, scanId, scope, filters, minRatio) });
    return n ?? this.countUncached(listing, scanId, scope, filters, minRatio);
  }

  private async countUncached<T>(listing: Listing<T>, scanId: string, scope: Scoped, filters: Filters, minRatio?: number): Promise<number> {
    const p = new Params();
    const where = [`g.scan_id = ${p.add(scanId)}`, inScope(listing, 'g', scope, p.add), ...filterConditions(filters, p.add)];
    if (minRatio !== undefined) where.push(`g.ratio >= ${p.add(minRatio)}`);
    const { rows } = await this.pool.query(`SELECT count(*) AS n FROM ${listing.table} g WHERE ${where.join(' AND ')}`, p.values);
    return toNumber(rows[0].n);
  }

  /**
   * One page per parent key tuple in ONE statement: `unnest(parent keys) WITH ORDINALITY` joined LATERAL to the
   * keyset page of each parent (each parent's LIMIT is its own). Result in input order.
   */
  private async pagesByParent<T>(
    listing: Listing<T>,
    scanId: string,
    parentColumns: readonly string[],
    parents: readonly string[][],
    args: GraphPageArgs,
    scope: Scoped,
  ): Promise<GraphPage<T>[]> {
    const p = new Params();
    const { limit, backward, conditions, order } = pagingSql(listing.keys, args, p.add);
    if (!isUuid(scanId) || parents.length === 0) return parents.map(() => emptyPage<T>());
    const arrays = parentColumns.map((_, i) => `${p.add(parents.map((t) => t[i]))}::text[]`);
    const keys = parentColumns.map((_, i) => `k${i}`);
    const where = [
      `g.scan_id = ${p.add(scanId)}`,
      ...parentColumns.map((c, i) => `g.${c} = p.k${i}`),
      inScope(listing, 'g', scope, p.add),
      ...conditions,
    ];
    const { rows } = await this.pool.query(
      `SELECT p.ord, x.* FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS p(${keys.join(', ')}, ord)
         CROSS JOIN LATERAL (SELECT ${rowsOf(listing)} WHERE ${where.join(' AND ')} ${order} LIMIT ${p.add(limit + 1)}) x
        ORDER BY p.ord`,
      p.values,
    );
    const perParent: T[][] = parents.map(() => []);
    for (const r of rows) perParent[toNumber(r.ord) - 1]!.push(listing.map(r));
    return perParent.map((items) => toPage(items, listing.keyOf, limit, backward, args));
  }

  /** Rows whose key columns equal one of the tuples (scope-filtered), in key order, one statement. */
  private async byTuples<T>(listing: Listing<T>, scanId: string, columns: readonly string[], tuples: readonly string[][], scope: Scoped): Promise<T[]> {
    if (!isUuid(scanId) || tuples.length === 0) return [];
    const p = new Params();
    const arrays = columns.map((_, i) => `${p.add(tuples.map((t) => t[i]))}::text[]`);
    const match =
      columns.length === 1
        ? `g.${columns[0]} = ANY(${arrays[0]})`
        : `(${columns.map((c) => `g.${c}`).join(', ')}) IN (SELECT * FROM unnest(${arrays.join(', ')}))`;
    const { rows } = await this.pool.query(
      `SELECT ${rowsOf(listing)} WHERE g.scan_id = ${p.add(scanId)} AND ${match} AND ${inScope(listing, 'g', scope, p.add)} ${keysetOrderBy(listing.keys)}`,
      p.values,
    );
    return rows.map(listing.map);
  }
}

function quotaFilters(filter: { checkId?: string; accountId?: string; regionId?: string; clusterId?: string; resourceKind?: string; resourceId?: string }): Filters {
  return {
    'g.check_id': filter.checkId,
    'g.account_id': filter.accountId,
    'g.region_id': filter.regionId,
    'g.cluster_id': filter.clusterId,
    'g.resource_kind': filter.resourceKind,
    'g.resource_id': filter.resourceId,
  };
}

function filterConditions(filters: Filters, add: (v: unknown) => string): string[] {
  return Object.entries(filters).flatMap(([column, v]) => {
    if (v === undefined) return [];
    if (typeof v === 'string') return [`${column} = ${add(v)}`];
    if ('contains' in v) return [`${add(v.contains)} = ANY(${column})`];
    const out: string[] = [];
    if (v.range.atLeast !== undefined) out.push(`${column} >= ${add(v.range.atLeast)}`);
    if (v.range.atMost !== undefined) out.push(`${column} <= ${add(v.range.atMost)}`);
    return out;
  });
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string, keys: readonly string[]): Map<string, T[]> {
  const out = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const r of rows) out.get(key(r))?.push(r);
  return out;
}

