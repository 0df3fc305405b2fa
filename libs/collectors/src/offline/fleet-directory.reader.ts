/**
 * Reads and validates a fleet directory (docs/fleet-format.md) into a WireFleet.
 *
 * Which files must be there is declared once, in `fleet-layout.ts` (FLEET_FILES); a required file that is
 * missing or any file that cannot be read as a regular file is a coverage gap of its dataset, not an empty
 * dataset ("absence is not health").
 *
 * Validation of what is read is all-or-nothing: every file is parsed and checked before anything is
 * returned, so a partly valid fleet is never half-loaded. The first problem found is thrown as a
 * FleetValidationError naming the file, the JSON path and what was expected.
 */
import { loadYamlDocuments, sanitizeDeep, YamlLoadError } from '@app/domain';
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { z } from 'zod';
import {
  accountYamlSchema,
  fleetYamlSchema,
  k8sEndpointSliceSchema,
  k8sEventSchema,
  k8sNodeSchema,
  k8sPodSchema,
  k8sServiceSchema,
  wireAddonsSchema,
  wireClusterDetailSchema,
  wireClusterResourcesSchema,
  wireEcsInstanceSchema,
  wireLoadBalancerAttributeSchema,
  wireNodeSysctlsSchema,
  wireQuotaApplicationSchema,
  wireQuotaSchema,
  wireRamPolicySchema,
  wireRamRoleSchema,
  wireRolePoliciesSchema,
  wireVServerGroupAttributeSchema,
  wireVSwitchSchema,
  type CoverageDataset,
  type CoverageEntry,
  type WireAccount,
  type WireCluster,
  type WireFleet,
  type WireKubernetes,
  KIND_DATA,
  setKindWire,
  type KindWireLists,
  type LoadBalancerKindData,
  type WireRegion,
} from '@app/domain';
import { z as zod } from 'zod';
import { generateFleet, generateSpecSchema, type GenerateSpec } from '../generate/fleet.generator';
import { datasetsAt, fleetFilesAt, type FleetFileSpec, type FleetLevel, type KubernetesKind } from './fleet-layout';
import { FileLocatedError, jsonPathOf } from '../json-path.util';
import { applyDumpManifest, readDumpManifest } from './fleet-dump-manifest';

/** A fleet directory problem: which file (relative to the fleet root, or the root itself), where in it (JSON path), and what was expected. */
export class FleetValidationError extends FileLocatedError {
  override readonly name = 'FleetValidationError';
  /** Stable code (libs/errors README). */
  readonly code = 'FLEET_INVALID';
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const received = (issue as { input?: unknown }).input;
    const got = received === undefined ? 'missing' : Array.isArray(received) ? 'array' : received === null ? 'null' : typeof received;
    return `expected ${issue.expected}, got ${got}`;
  }
  return issue.message;
}

/**
 * Why a path of the format could not be read as a regular file: the errno-style code (`ENOENT`, `EACCES`,
 * `ELOOP`, `EISDIR`, `ENOTDIR`, `ENOTREG` for a FIFO, socket or device) and a few words. `missing` is true
 * only when nothing at all is at the path (the one case an optional file may be in).
 */
interface FileGap {
  file: string;
  code: string;
  what: string;
  missing: boolean;
}

/** The kind of a non-regular, non-directory file, for messages. */
function fileTypeOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** Few words for an errno code met while reading. */
function errnoWhat(code: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'a symbolic link loop';
    case 'ENOTDIR':
      return 'a parent is not a directory';
    case 'ENAMETOOLONG':
      return 'path too long';
    default:
      return 'cannot be read';
  }
}

/** Errno-like code of a file whose symbolic links resolve outside the fleet directory. */
export const OUTSIDE_FLEET_CODE = 'EOUTSIDE';

/**
 * The reason of a JSON.parse failure without any of the file's content: V8 quotes the offending token and an
 * excerpt (`Unexpected token 'P', "PATH=/root"... is not valid JSON`), which must not reach a scan's error
 * (readable over the API). Keeps the position when V8 gives one.
 */
export function jsonErrorWithoutContent(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const at = /at position (\d+)(?: \(line (\d+) column (\d+)\))?/.exec(message);
  if (/Unexpected end of JSON input/.test(message)) return 'unexpected end of input';
  if (at) return at[2] ? `syntax error at line ${at[2]} column ${at[3]}` : `syntax error at position ${at[1]}`;
  return 'syntax error';
}

class Reader {
  private realRootMemo: string | undefined;
  constructor(readonly root: string) {}

  /** The fleet root with its own symbolic links resolved (a root that is itself a link is fine). */
  private get realRoot(): string {
    this.realRootMemo ??= realpathSync(this.root);
    return this.realRootMemo;
  }

  /**
   * Whether `file` (which exists), once every symbolic link on its path is resolved, lies inside the fleet
   * directory. A link to `/proc/self/environ` or `../../secrets.json` is refused before anything is opened, so
   * no byte of a file outside the directory is ever read (or quoted in an error).
   */
  private inside(file: string): boolean {
    const rel = relative(this.realRoot, realpathSync(file));
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  }

  rel(file: string): string {
    return relative(this.root, file) || '.';
  }

  parse<S extends z.ZodType>(file: string, schema: S, data: unknown, basePath: readonly PropertyKey[] = []): z.output<S> {
    // reportInput: zod 4 only puts the offending value on an issue when asked; describeIssue needs it
    // to say "got string" rather than "got missing" for a present value of the wrong type.
    const r = schema.safeParse(data, { reportInput: true });
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new FleetValidationError(this.rel(file), jsonPathOf([...basePath, ...issue.path]), describeIssue(issue));
    }
    return r.data;
  }

  /**
   * What is at `file`, without opening it: `undefined` for a regular file (symbolic links followed), else the
   * gap. `stat` never opens the file, so a FIFO is classified, not read (opening one blocks until a writer
   * comes).
   */
  probe(file: string): FileGap | undefined {
    let st: Stats;
    try {
      st = statSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      if (code === 'ENOENT') {
        // A dangling symbolic link is something broken, not nothing.
        let link: boolean;
        try {
          link = lstatSync(file).isSymbolicLink();
        } catch {
          link = false;
        }
        return link ? { file, code, what: 'a symbolic link to nothing', missing: false } : { file, code, what: 'missing', missing: true };
      }
      return { file, code, what: errnoWhat(code), missing: false };
    }
    if (st.isDirectory()) return { file, code: 'EISDIR', what: 'a directory, not a file', missing: false };
    if (!st.isFile()) return { file, code: 'ENOTREG', what: `${fileTypeOf(st)}, not a regular file`, missing: false };
    try {
      if (!this.inside(file)) return { file, code: OUTSIDE_FLEET_CODE, what: 'a symbolic link resolving outside the fleet directory (refused, not read)', missing: false };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      return { file, code, what: errnoWhat(code), missing: false };
    }
    return undefined;
  }

  /**
   * The text of a regular file, or why it cannot be read. Probed first (never opens a non-regular file); the
   * open is non-blocking and the opened file is checked again, so a file swapped for a FIFO after the probe
   * cannot hang the read either.
   */
  readText(file: string): { text: string } | FileGap {
    const gap = this.probe(file);
    if (gap) return gap;
    let fd: number;
    try {
      fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      return { file, code, what: errnoWhat(code), missing: code === 'ENOENT' };
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return { file, code: 'ENOTREG', what: `${fileTypeOf(st)}, not a regular file`, missing: false };
      return { text: readFileSync(fd, 'utf8') };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      return { file, code, what: errnoWhat(code), missing: false };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The text of a configuration file (`fleet.yaml`, `account.yaml`), which must be there.
   * @param expected what the file should be, for the error when it is missing
   * @throws FleetValidationError when it is missing or cannot be read as a regular file
   */
  configText(file: string, expected: string): string {
    const got = this.readText(file);
    if ('text' in got) return got.text;
    throw new FleetValidationError(this.rel(file), '$', got.missing ? expected : `a readable regular file, got ${got.what} (${got.code})`);
  }

  parseJson<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
    let data: unknown;
    try {
      // NUL and lone surrogates become visible markers here, at the boundary (libs/domain text.util).
      data = sanitizeDeep(JSON.parse(text));
    } catch (e) {
      throw new FleetValidationError(this.rel(file), '$', `valid JSON (${jsonErrorWithoutContent(e)})`);
    }
    return this.parse(file, schema, data);
  }

  /**
   * The YAML documents of a file's text, empty ones left out, each sanitized (`sanitizeDeep`).
   *
   * Read by the product's one YAML loader (libs/domain `loadYamlDocuments`: YAML 1.2 core schema, a repeated key is
   * an error, alias expansion bounded), so a few hundred bytes of nested anchors cannot stall a scan.
   * @throws FleetValidationError naming the file, the document and line (1-based) and the parser's reason
   */
  yamlDocs(file: string, text: string): unknown[] {
    let docs: unknown[];
    try {
      docs = loadYamlDocuments(text, this.rel(file));
    } catch (e) {
      if (!(e instanceof YamlLoadError)) throw e;
      throw new FleetValidationError(this.rel(file), `$${e.where ? ` (${e.where})` : ''}`, e.expected);
    }
    const out: unknown[] = [];
    for (const doc of docs) {
      const v: unknown = sanitizeDeep(doc);
      if (v !== null && v !== undefined) out.push(v);
    }
    return out;
  }

  yaml<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
    const docs = this.yamlDocs(file, text);
    if (docs.length !== 1) throw new FleetValidationError(this.rel(file), '$', 'exactly one YAML document');
    return this.parse(file, schema, docs[0]);
  }

  /**
   * The entries of a directory of accounts, regions or clusters, sorted: every name except dot-files and
   * regular files (stray notes are ignored). Entries that cannot be stat'ed (a symbolic link loop, a dangling
   * link, permission denied) or are not directories (a FIFO, a socket) are kept: reading them yields the
   * gaps that say what is wrong. `problem` is set when the directory itself cannot be listed (its absence is
   * an empty list).
   */
  entries(dir: string): { names: string[]; problem?: FileGap } {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      if (code === 'ENOENT') return { names: [] };
      return { names: [], problem: { file: dir, code, what: code === 'ENOTDIR' ? 'not a directory' : errnoWhat(code), missing: false } };
    }
    return {
      names: names
        .filter((d) => {
          if (d.startsWith('.')) return false;
          try {
            return !statSync(join(dir, d)).isFile();
          } catch {
            return true;
          }
        })
        .sort(),
    };
  }
}

const listOf = <S extends z.ZodType>(s: S) => zod.array(s);

/** One dataset of one place as read: its files' texts, or the gap (`failed`), or `absent`. */
type DatasetRead =
  | { status: 'ok'; texts: Map<string, { file: string; text: string }> }
  | { status: 'absent' }
  | { status: 'failed'; errorCode: string; message: string; texts?: Map<string, { file: string; text: string }> };

/**
 * Read every file of one dataset of one place, as FLEET_FILES declares them: `failed` when a required file
 * is missing or any file is there but unreadable / looping / not a regular file (the message names every
 * such file, relative to the fleet root); `absent` when the dataset has only optional files and none is
 * there; else `ok` with the texts of the files that are there.
 */
function readDataset(r: Reader, dir: string, files: readonly FleetFileSpec[]): DatasetRead {
  const texts = new Map<string, { file: string; text: string }>();
  const gaps: FileGap[] = [];
  for (const spec of files) {
    const file = join(dir, ...spec.path.split('/'));
    const got = r.readText(file);
    if ('text' in got) texts.set(spec.path, { file, text: got.text });
    else if (!got.missing || spec.presence !== 'optional') gaps.push(got);
  }
  if (gaps.length > 0)
    return {
      status: 'failed',
      errorCode: gaps[0].code,
      message: gaps.map((g) => `${r.rel(g.file)}: ${g.missing ? 'missing, required by the fleet format' : g.what} (${g.code})`).join('; '),
      texts,
    };
  if (texts.size === 0) return { status: 'absent' };
  return { status: 'ok', texts };
}

/** Reads the datasets of one place and records their coverage. */
class PlaceReader {
  constructor(
    private readonly r: Reader,
    private readonly dir: string,
    private readonly level: FleetLevel,
    private readonly place: { accountId: string; regionId?: string; clusterId?: string },
    private readonly coverage: CoverageEntry[],
  ) {}

  /**
   * Read one dataset and record its coverage (`ok`, `absent` with "not in the fleet directory", or `failed`
   * with the code and the files).
   * @returns `ok` (the dataset was read in full) and the texts of its files that could be read: the caller
   *   validates them even when the dataset is a gap (a malformed file is refused whatever its siblings are)
   *   but keeps their data only when `ok`
   */
  read(dataset: CoverageDataset): { ok: boolean; texts: Map<string, { file: string; text: string }> } {
    const got = this.readOnly(dataset);
    this.record(dataset, got);
    return { ok: got.status === 'ok', texts: (got.status === 'absent' ? undefined : got.texts) ?? new Map() };
  }

  /** Read one dataset without recording coverage. */
  readOnly(dataset: CoverageDataset): DatasetRead {
    const files = datasetsAt(this.level).find((d) => d.dataset === dataset)?.files ?? [];
    return readDataset(this.r, this.dir, files);
  }

  /** Record the coverage of a dataset read. */
  record(api: CoverageDataset, got: DatasetRead): void {
    this.coverage.push({
      ...this.place,
      api,
      status: got.status,
      ...(got.status === 'failed' ? { errorCode: got.errorCode, message: got.message } : {}),
      ...(got.status === 'absent' ? { message: 'not in the fleet directory' } : {}),
    });
  }

  /** Parse one declared JSON file of a dataset read, or `undefined` when it was absent (optional). */
  json<S extends z.ZodType>(texts: Map<string, { file: string; text: string }>, path: string, schema: S): z.output<S> | undefined {
    const t = texts.get(path);
    return t ? this.r.parseJson(t.file, t.text, schema) : undefined;
  }
}

const K8S_KINDS = {
  Node: ['nodes', k8sNodeSchema],
  Service: ['services', k8sServiceSchema],
  Pod: ['pods', k8sPodSchema],
  EndpointSlice: ['endpointSlices', k8sEndpointSliceSchema],
  Event: ['events', k8sEventSchema],
} as const satisfies Record<KubernetesKind, readonly [keyof WireKubernetes, z.ZodType]>;

/**
 * What is read of each YAML document of a Kubernetes file before its objects: its `kind` and, for a list, its
 * `items`. Built once here, not per document or object: zod 4 compiles an object schema on its first parse, so a
 * schema built per object cost that compilation for each of the thousands of objects of a fleet.
 */
const K8S_DOCUMENT_HEAD = zod.looseObject({ kind: zod.string(), items: zod.array(zod.unknown()).optional() });
/** The `kind` of one object of a Kubernetes file, read before its kind's schema is chosen. */
const K8S_OBJECT_KIND = zod.looseObject({ kind: zod.string() });

/**
 * Parse the Kubernetes files of a cluster: each declared file lists its one kind (a v1 `List`, a typed
 * `<Kind>List` or multi-document YAML, as `kubectl get -o yaml` prints). Objects of kinds the audit does not
 * read are skipped; an audited kind in another kind's file is refused (each kind's completeness rests on its
 * own file), and so is any other file under `kubernetes/`.
 * @throws FleetValidationError naming the file and JSON path
 */
function parseKubernetes(r: Reader, kdir: string, texts: Map<string, { file: string; text: string }>): WireKubernetes {
  const out: WireKubernetes = { nodes: [], services: [], pods: [], endpointSlices: [], events: [] };
  for (const spec of fleetFilesAt('cluster')) {
    const t = spec.kind ? texts.get(spec.path) : undefined;
    if (!spec.kind || !t) continue;
    const { file, text } = t;
    const docs = r.yamlDocs(file, text);
    docs.forEach((doc, di) => {
      const base: PropertyKey[] = docs.length > 1 ? [`document ${di + 1}`] : [];
      const obj = r.parse(file, K8S_DOCUMENT_HEAD, doc, base);
      const items: { item: unknown; path: PropertyKey[] }[] =
        obj.kind === 'List' || obj.kind.endsWith('List')
          ? (obj.items ?? []).map((item, i) => ({ item, path: [...base, 'items', i] }))
          : [{ item: doc, path: base }];
      for (const { item, path } of items) {
        const kind = r.parse(file, K8S_OBJECT_KIND, item, path).kind;
        if (kind !== spec.kind) {
          if (kind in K8S_KINDS)
            throw new FleetValidationError(r.rel(file), jsonPathOf([...path, 'kind']), `${spec.kind} (${spec.path} holds \`${spec.holds}\`), got ${kind}`);
          continue; // Deployments, ConfigMaps, ...: not used by the audit
        }
        const [key, schema] = K8S_KINDS[spec.kind];
        (out[key] as unknown[]).push(r.parse(file, schema, item, path));
      }
    });
  }
  return out;
}

/** Refuse files under `kubernetes/` that the format does not declare (their objects would be silently partial). */
function checkKubernetesFiles(r: Reader, kdir: string): void {
  const declared = new Set(fleetFilesAt('cluster').flatMap((f) => (f.kind ? [f.path.slice('kubernetes/'.length)] : [])));
  let names: string[];
  try {
    names = readdirSync(kdir);
  } catch {
    return; // missing or unreadable: the declared files' reads say so
  }
  for (const n of names.sort())
    if (!n.startsWith('.') && !declared.has(n))
      throw new FleetValidationError(r.rel(join(kdir, n)), '$', `a file of the format: kubernetes/ holds ${[...declared].join(', ')} (one kind each)`);
}

/** Read one cluster; `undefined` (with `cluster` failed) when its `cluster.json` cannot be read. */
function readCluster(r: Reader, dir: string, clusterDirName: string, accountId: string, regionId: string, coverage: CoverageEntry[]): WireCluster | undefined {
  const pr = new PlaceReader(r, dir, 'cluster', { accountId, regionId, clusterId: clusterDirName }, coverage);
  const detailRead = pr.readOnly('cluster');
  if (detailRead.status !== 'ok') {
    pr.record('cluster', detailRead); // cluster.json is required: never `absent`
    return undefined;
  }
  const detail = pr.json(detailRead.texts, 'cluster.json', wireClusterDetailSchema)!;
  if (detail.cluster_id !== clusterDirName)
    throw new FleetValidationError(r.rel(join(dir, 'cluster.json')), '$.cluster_id', `"${clusterDirName}" (the directory name), got "${detail.cluster_id}"`);
  pr.record('cluster', detailRead);
  const out: WireCluster = { detail };
  const addons = pr.read('addons');
  const addonsData = pr.json(addons.texts, 'addons.json', wireAddonsSchema);
  if (addons.ok) out.addons = addonsData;
  const resources = pr.read('resources');
  const resourcesData = pr.json(resources.texts, 'resources.json', wireClusterResourcesSchema);
  if (resources.ok) out.resources = resourcesData;
  const sysctls = pr.read('sysctls');
  const sysctlsData = pr.json(sysctls.texts, 'node-sysctls.json', wireNodeSysctlsSchema);
  if (sysctls.ok) out.nodeSysctls = sysctlsData;
  const kdir = join(dir, 'kubernetes');
  checkKubernetesFiles(r, kdir);
  const k8s = pr.read('kubernetes');
  const k8sData = parseKubernetes(r, kdir, k8s.texts);
  if (k8s.ok) out.kubernetes = k8sData;
  return out;
}

/**
 * Read a load-balancer kind's files of a region (`regions/<regionId>/<dataset>/`, `LoadBalancerKindData.files`, e.g.
 * the four `nlb/` files): every file is validated against its list's schema even when a sibling is missing (a
 * malformed file is refused whatever the rest is), and the data is kept only when every file was read. Cross-file
 * references (`LoadBalancerKindData.references`) are checked like the CLB files': e.g. a listener names an NLB of
 * `nlb/load-balancers.json`, a server names a group of `nlb/server-groups.json`.
 * @returns the region's data of the kind, lists in the kind's order, or `undefined` when the dataset is a coverage gap
 * @throws FleetValidationError naming the file and JSON path of the first invalid value
 */
function readKind(r: Reader, dir: string, pr: PlaceReader, data: LoadBalancerKindData): KindWireLists | undefined {
  const got = pr.read(data.dataset);
  const lists = new Map<string, Record<string, unknown>[] | undefined>();
  for (const f of data.files)
    lists.set(f.list, pr.json(got.texts, `${data.dataset}/${f.file}`, listOf(f.schema)) as Record<string, unknown>[] | undefined);
  if (!got.ok || [...lists.values()].some((l) => !l)) return undefined;
  const fileOf = (list: string) => data.files.find((f) => f.list === list)?.file ?? `${list}.json`;
  for (const ref of data.references) {
    const known = new Set(lists.get(ref.to)!.map((item) => item[ref.toField]));
    lists.get(ref.list)!.forEach((item, i) => {
      const value = item[ref.field];
      if (!known.has(value))
        throw new FleetValidationError(
          r.rel(join(dir, data.dataset, fileOf(ref.list))),
          `$[${i}].${ref.field}`,
          `${ref.noun} listed in ${data.dataset}/${fileOf(ref.to)}, got "${String(value)}"`,
        );
    });
  }
  return Object.fromEntries(data.lists.map((l) => [l, lists.get(l) ?? []]));
}

function readRegion(r: Reader, dir: string, accountId: string, regionId: string, coverage: CoverageEntry[]): WireRegion {
  const pr = new PlaceReader(r, dir, 'region', { accountId, regionId }, coverage);
  const out: WireRegion = { regionId, clusters: [] };
  const slb = pr.read('slb');
  const lbs = pr.json(slb.texts, 'load-balancers.json', listOf(wireLoadBalancerAttributeSchema));
  const groups = pr.json(slb.texts, 'vserver-groups.json', listOf(wireVServerGroupAttributeSchema));
  if (slb.ok && lbs && groups) {
    out.loadBalancers = lbs;
    out.vServerGroups = groups;
    const known = new Set(lbs.map((l) => l.LoadBalancerId));
    groups.forEach((g, i) => {
      if (!known.has(g.LoadBalancerId))
        throw new FleetValidationError(r.rel(join(dir, 'vserver-groups.json')), `$[${i}].LoadBalancerId`, `a CLB listed in load-balancers.json, got "${g.LoadBalancerId}"`);
    });
  }
  for (const data of KIND_DATA) {
    const wire = readKind(r, dir, pr, data);
    if (wire) setKindWire(out, data, wire);
  }
  const ecs = pr.read('ecs');
  const ecsData = pr.json(ecs.texts, 'ecs-instances.json', listOf(wireEcsInstanceSchema));
  if (ecs.ok) out.ecsInstances = ecsData;
  const vpc = pr.read('vpc');
  const vpcData = pr.json(vpc.texts, 'vswitches.json', listOf(wireVSwitchSchema));
  if (vpc.ok) out.vSwitches = vpcData;
  const quotas = pr.read('quotas');
  const quotasData = pr.json(quotas.texts, 'quotas.json', listOf(wireQuotaSchema));
  if (quotas.ok) out.quotas = quotasData;
  const applications = pr.read('quota-applications');
  const applicationsData = pr.json(applications.texts, 'quota-applications.json', listOf(wireQuotaApplicationSchema));
  if (applications.ok) out.quotaApplications = applicationsData;
  // The cluster list (`cs`): the directories under clusters/ (none: the region has no ACK cluster). A cluster
  // whose cluster.json cannot be read is left out, and the list is then incomplete: a gap.
  const listing = r.entries(join(dir, 'clusters'));
  const lost: string[] = listing.problem ? [`${r.rel(listing.problem.file)}: ${listing.problem.what} (${listing.problem.code})`] : [];
  let lostCode = listing.problem?.code;
  for (const c of listing.names) {
    const cluster = readCluster(r, join(dir, 'clusters', c), c, accountId, regionId, coverage);
    if (cluster) out.clusters.push(cluster);
    else {
      const failed = coverage[coverage.length - 1];
      lost.push(`cluster ${c} left out: ${failed.message ?? ''}`);
      lostCode ??= failed.errorCode;
    }
  }
  pr.record('cs', lost.length > 0 ? { status: 'failed', errorCode: lostCode ?? 'EIO', message: lost.join('; ') } : { status: 'ok', texts: new Map() });
  return out;
}

/**
 * One account of a fleet directory.
 * @param onlyRegion read only this region of the account (a shard, `readFleetShard`; `null`: none of them), the
 *   account's own datasets (RAM) all the same; `undefined`: every region
 */
function readAccount(r: Reader, dir: string, dirName: string, coverage: CoverageEntry[], onlyRegion?: string | null): WireAccount {
  const accountFile = join(dir, 'account.yaml');
  const account = r.yaml(accountFile, r.configText(accountFile, 'an account.yaml (accountId, name, regions)'), accountYamlSchema);
  if (account.accountId !== dirName)
    throw new FleetValidationError(r.rel(accountFile), '$.accountId', `"${dirName}" (the directory name), got "${account.accountId}"`);
  const out: WireAccount = { account, regions: [] };
  const pr = new PlaceReader(r, dir, 'account', { accountId: account.accountId }, coverage);
  const ram = pr.read('ram');
  const roles = pr.json(ram.texts, 'ram/roles.json', listOf(wireRamRoleSchema));
  const policies = pr.json(ram.texts, 'ram/policies.json', listOf(wireRamPolicySchema));
  const rolePolicies = pr.json(ram.texts, 'ram/role-policies.json', wireRolePoliciesSchema);
  if (ram.ok && roles && policies && rolePolicies) out.ram = { roles, policies, rolePolicies };
  const listing = r.entries(join(dir, 'regions'));
  if (listing.problem)
    throw new FleetValidationError(r.rel(listing.problem.file), '$', `a directory of regions, got ${listing.problem.what} (${listing.problem.code})`);
  const regions = [...new Set([...account.regions, ...listing.names])].sort();
  account.regions = regions;
  for (const regionId of regions) {
    if (onlyRegion !== undefined && regionId !== onlyRegion) continue;
    if (!/^[a-z]{2}(-[a-z0-9]+)+$/.test(regionId))
      throw new FleetValidationError(r.rel(join(dir, 'regions', regionId)), '$', 'a region directory named like cn-hangzhou');
    out.regions.push(readRegion(r, join(dir, 'regions', regionId), account.accountId, regionId, coverage));
  }
  return out;
}

/**
 * Read a fleet directory into a WireFleet. Which files must be there follows FLEET_FILES (fleet-layout.ts):
 * a required file that is missing, and any file that is there but cannot be read as a regular file (permission
 * denied, a symbolic link loop, a directory, a FIFO / socket / device: classified by `stat`, never opened), is a
 * coverage gap of its dataset (`failed`, with the errno code and the file's path), never an error and never
 * an empty dataset.
 * @param root path of the fleet directory (holds `fleet.yaml` and `accounts/`)
 * @throws FleetValidationError on the first invalid file, or a missing / unreadable configuration file
 *   (`fleet.yaml`, `account.yaml`); nothing partial is returned
 */
export function readFleetDirectory(root: string): WireFleet {
  const { r, fleet, generate } = openFleetDirectory(root);
  // A generated fleet (fleet-format.md `generate:`): built in memory, deterministic per seed.
  if (generate) return generateFleet(generate, fleet.name).fleet;
  const coverage: CoverageEntry[] = [];
  const listing = r.entries(join(root, 'accounts'));
  if (listing.problem)
    throw new FleetValidationError(r.rel(listing.problem.file), '$', `a directory of accounts, got ${listing.problem.what} (${listing.problem.code})`);
  const accounts = listing.names.map((id) => readAccount(r, join(root, 'accounts', id), id, coverage));
  // A dump (`fleet-audit dump`) names what its crawl could not read: the same gaps, with the API's words.
  const manifest = readDumpManifest(root);
  return { name: fleet.name, ...(fleet.description ? { description: fleet.description } : {}), accounts, coverage: manifest ? applyDumpManifest(coverage, manifest) : coverage };
}

/** One shard of a fleet directory: an account and one of its regions, or the account alone when it has none. */
export interface FleetDirectoryShard {
  accountId: string;
  /** null for an account without regions. */
  regionId: string | null;
}

/**
 * The shards of a fleet directory, as the distributed scan shards a scan config (apps/worker `shardsOf`): one per
 * (account, region), the regions of an account being those its `account.yaml` lists and those with a directory
 * (sorted, as `readFleetDirectory` reads them), and one per account without regions. Accounts in directory order.
 * @returns the shards, or `undefined` for a generated fleet (`generate:` in fleet.yaml: built whole in memory)
 * @throws FleetValidationError as `readFleetDirectory` for a missing or invalid fleet.yaml / account.yaml or an
 *   unlistable directory of accounts or regions
 */
export function fleetDirectoryShards(root: string): FleetDirectoryShard[] | undefined {
  const { r, generate } = openFleetDirectory(root);
  if (generate) return undefined;
  const listing = r.entries(join(root, 'accounts'));
  if (listing.problem)
    throw new FleetValidationError(r.rel(listing.problem.file), '$', `a directory of accounts, got ${listing.problem.what} (${listing.problem.code})`);
  const out: FleetDirectoryShard[] = [];
  for (const id of listing.names) {
    const dir = join(root, 'accounts', id);
    const accountFile = join(dir, 'account.yaml');
    const account = r.yaml(accountFile, r.configText(accountFile, 'an account.yaml (accountId, name, regions)'), accountYamlSchema);
    const regions = r.entries(join(dir, 'regions'));
    if (regions.problem)
      throw new FleetValidationError(r.rel(regions.problem.file), '$', `a directory of regions, got ${regions.problem.what} (${regions.problem.code})`);
    const all = [...new Set([...account.regions, ...regions.names])].sort();
    if (all.length === 0) out.push({ accountId: id, regionId: null });
    for (const regionId of all) out.push({ accountId: id, regionId });
  }
  return out;
}

/**
 * Read one shard of a fleet directory (`fleetDirectoryShards`): the fleet's name, the shard's account with only
 * the shard's region (its `account.regions` still every region it lists), the account's RAM data, and the coverage
 * of what was read (a dump's manifest applied, as `readFleetDirectory`). Mapped (`mapWireFleet`), the shards of
 * a directory hold together what the whole directory holds.
 * @throws FleetValidationError as `readFleetDirectory`; Error for a generated fleet (it has no files to shard)
 */
export function readFleetShard(root: string, shard: FleetDirectoryShard): WireFleet {
  const { r, fleet, generate } = openFleetDirectory(root);
  if (generate) throw new Error(`${root}: a generated fleet (fleet.yaml generate:) has no shard files`);
  const coverage: CoverageEntry[] = [];
  const account = readAccount(r, join(root, 'accounts', shard.accountId), shard.accountId, coverage, shard.regionId);
  const manifest = readDumpManifest(root);
  return { name: fleet.name, ...(fleet.description ? { description: fleet.description } : {}), accounts: [account], coverage: manifest ? applyDumpManifest(coverage, manifest) : coverage };
}

/** The reader and fleet.yaml of a fleet directory, and the generate spec when fleet.yaml has a `generate:` block. */
function openFleetDirectory(root: string): { r: Reader; fleet: z.output<typeof fleetYamlSchema>; generate?: GenerateSpec } {
  const r = new Reader(root);
  let rootIsDir: boolean;
  try {
    rootIsDir = statSync(root).isDirectory();
  } catch {
    rootIsDir = false;
  }
  if (!rootIsDir) throw new FleetValidationError(root, '$', 'a fleet directory');
  const fleetFile = join(root, 'fleet.yaml');
  const fleet = r.yaml(fleetFile, r.configText(fleetFile, 'a fleet.yaml with at least `name`'), fleetYamlSchema);
  if (fleet.generate) {
    return { r, fleet, generate: r.parse(fleetFile, generateSpecSchema, fleet.generate, ['generate']) };
  }
  return { r, fleet };
}
