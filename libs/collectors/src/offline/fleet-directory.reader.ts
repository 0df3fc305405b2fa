/**
 * Reads and validates a fleet directory (`../shared/fleet-format.md`) into a WireFleet.
 *
 * Validation is all-or-nothing: every file is parsed and checked before anything is returned, so
 * a partly valid fleet is never half-loaded. The first problem found is thrown as a
 * FleetValidationError naming the file, the JSON path and what was expected.
 */
import { sanitizeDeep } from '@app/domain';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
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
  type WireRegion,
} from '@app/domain';
import { z as zod } from 'zod';
import { generateFleet, generateSpecSchema } from '../generate/fleet.generator';

/** A fleet directory problem: which file, where in it (JSON path), and what was expected. */
export class FleetValidationError extends Error {
  override readonly name = 'FleetValidationError';
  /**
   * @param file path of the offending file, relative to the fleet root (or the root itself)
   * @param jsonPath JSON path inside the file, e.g. `$[3].LoadBalancerId` (`$` for the whole file)
   * @param expected what was expected there
   */
  constructor(
    readonly file: string,
    readonly jsonPath: string,
    readonly expected: string,
  ) {
    super(`${file}: ${jsonPath}: ${expected}`);
  }
}

function jsonPathOf(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][\w]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`;
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const received = (issue as { input?: unknown }).input;
    const got = received === undefined ? 'missing' : Array.isArray(received) ? 'array' : received === null ? 'null' : typeof received;
    return `expected ${issue.expected}, got ${got}`;
  }
  return issue.message;
}

class Reader {
  constructor(readonly root: string) {}

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

  text(file: string): string {
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      throw new FleetValidationError(this.rel(file), '$', `a readable file (${(e as NodeJS.ErrnoException).code ?? 'read error'})`);
    }
  }

  json<S extends z.ZodType>(file: string, schema: S): z.output<S> {
    let data: unknown;
    try {
      // NUL and lone surrogates become visible markers here, at the boundary (libs/domain text.util).
      data = sanitizeDeep(JSON.parse(this.text(file)));
    } catch (e) {
      if (e instanceof FleetValidationError) throw e;
      throw new FleetValidationError(this.rel(file), '$', `valid JSON (${(e as Error).message})`);
    }
    return this.parse(file, schema, data);
  }

  optionalJson<S extends z.ZodType>(file: string, schema: S): z.output<S> | undefined {
    return existsSync(file) ? this.json(file, schema) : undefined;
  }

  yamlDocs(file: string): unknown[] {
    const docs = parseAllDocuments(this.text(file));
    const out: unknown[] = [];
    for (const [i, doc] of docs.entries()) {
      if (doc.errors.length > 0) {
        const err = doc.errors[0];
        const line = err.linePos?.[0]?.line;
        throw new FleetValidationError(this.rel(file), `$ (document ${i + 1}${line ? `, line ${line}` : ''})`, `valid YAML (${err.message.split('\n')[0]})`);
      }
      const v: unknown = sanitizeDeep(doc.toJS());
      if (v !== null && v !== undefined) out.push(v);
    }
    return out;
  }

  yaml<S extends z.ZodType>(file: string, schema: S): z.output<S> {
    const docs = this.yamlDocs(file);
    if (docs.length !== 1) throw new FleetValidationError(this.rel(file), '$', 'exactly one YAML document');
    return this.parse(file, schema, docs[0]);
  }

  dirs(dir: string): string[] {
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((d) => !d.startsWith('.') && statSync(join(dir, d)).isDirectory())
      .sort();
  }
}

const listOf = <S extends z.ZodType>(s: S) => zod.array(s);

const K8S_KINDS = {
  Node: ['nodes', k8sNodeSchema],
  Service: ['services', k8sServiceSchema],
  Pod: ['pods', k8sPodSchema],
  EndpointSlice: ['endpointSlices', k8sEndpointSliceSchema],
  Event: ['events', k8sEventSchema],
} as const;

function readKubernetes(r: Reader, dir: string): WireKubernetes {
  const out: WireKubernetes = { nodes: [], services: [], pods: [], endpointSlices: [], events: [] };
  const files = readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) || f.endsWith('.json'))
    .sort();
  for (const f of files) {
    const file = join(dir, f);
    const docs = f.endsWith('.json') ? [r.json(file, zod.unknown())] : r.yamlDocs(file);
    docs.forEach((doc, di) => {
      const base: PropertyKey[] = docs.length > 1 ? [`document ${di + 1}`] : [];
      const obj = r.parse(file, zod.looseObject({ kind: zod.string(), items: zod.array(zod.unknown()).optional() }), doc, base);
      const items: { item: unknown; path: PropertyKey[] }[] =
        obj.kind === 'List' || obj.kind.endsWith('List')
          ? (obj.items ?? []).map((item, i) => ({ item, path: [...base, 'items', i] }))
          : [{ item: doc, path: base }];
      for (const { item, path } of items) {
        const kind = r.parse(file, zod.looseObject({ kind: zod.string() }), item, path).kind;
        const entry = (K8S_KINDS as Record<string, readonly [keyof WireKubernetes, z.ZodType]>)[kind];
        if (!entry) continue; // Deployments, ConfigMaps, ...: not used by the audit
        const [key, schema] = entry;
        (out[key] as unknown[]).push(r.parse(file, schema, item, path));
      }
    });
  }
  return out;
}

function readCluster(r: Reader, dir: string, clusterDirName: string, accountId: string, regionId: string, coverage: CoverageEntry[]): WireCluster {
  const detailFile = join(dir, 'cluster.json');
  if (!existsSync(detailFile)) throw new FleetValidationError(r.rel(dir), '$', 'a cluster.json (DescribeClusterDetail body)');
  const detail = r.json(detailFile, wireClusterDetailSchema);
  if (detail.cluster_id !== clusterDirName)
    throw new FleetValidationError(r.rel(detailFile), '$.cluster_id', `"${clusterDirName}" (the directory name), got "${detail.cluster_id}"`);
  const clusterId = detail.cluster_id;
  const cov = (api: CoverageDataset, present: boolean) =>
    coverage.push({
      accountId,
      regionId,
      clusterId,
      api,
      status: present ? 'ok' : 'absent',
      ...(present ? {} : { message: `not in the fleet directory` }),
    });
  cov('cluster', true);
  const out: WireCluster = { detail };
  const addons = r.optionalJson(join(dir, 'addons.json'), wireAddonsSchema);
  cov('addons', addons !== undefined);
  if (addons) out.addons = addons;
  const resources = r.optionalJson(join(dir, 'resources.json'), wireClusterResourcesSchema);
  cov('resources', resources !== undefined);
  if (resources) out.resources = resources;
  const sysctls = r.optionalJson(join(dir, 'node-sysctls.json'), wireNodeSysctlsSchema);
  cov('sysctls', sysctls !== undefined);
  if (sysctls) out.nodeSysctls = sysctls;
  const kdir = join(dir, 'kubernetes');
  const hasK8s = existsSync(kdir);
  cov('kubernetes', hasK8s);
  if (hasK8s) out.kubernetes = readKubernetes(r, kdir);
  return out;
}

function readRegion(r: Reader, dir: string, accountId: string, regionId: string, coverage: CoverageEntry[]): WireRegion {
  const cov = (api: CoverageDataset, present: boolean) =>
    coverage.push({
      accountId,
      regionId,
      api,
      status: present ? 'ok' : 'absent',
      ...(present ? {} : { message: 'not in the fleet directory' }),
    });
  const out: WireRegion = { regionId, clusters: [] };
  const lbs = r.optionalJson(join(dir, 'load-balancers.json'), listOf(wireLoadBalancerAttributeSchema));
  const groups = r.optionalJson(join(dir, 'vserver-groups.json'), listOf(wireVServerGroupAttributeSchema));
  cov('slb', lbs !== undefined);
  if (lbs) {
    out.loadBalancers = lbs;
    out.vServerGroups = groups ?? [];
    const known = new Set(lbs.map((l) => l.LoadBalancerId));
    (groups ?? []).forEach((g, i) => {
      if (!known.has(g.LoadBalancerId))
        throw new FleetValidationError(r.rel(join(dir, 'vserver-groups.json')), `$[${i}].LoadBalancerId`, `a CLB listed in load-balancers.json, got "${g.LoadBalancerId}"`);
    });
  }
  const ecs = r.optionalJson(join(dir, 'ecs-instances.json'), listOf(wireEcsInstanceSchema));
  cov('ecs', ecs !== undefined);
  if (ecs) out.ecsInstances = ecs;
  const vsw = r.optionalJson(join(dir, 'vswitches.json'), listOf(wireVSwitchSchema));
  cov('vpc', vsw !== undefined);
  if (vsw) out.vSwitches = vsw;
  const quotas = r.optionalJson(join(dir, 'quotas.json'), listOf(wireQuotaSchema));
  cov('quotas', quotas !== undefined);
  if (quotas) out.quotas = quotas;
  cov('cs', true);
  for (const c of r.dirs(join(dir, 'clusters'))) {
    out.clusters.push(readCluster(r, join(dir, 'clusters', c), c, accountId, regionId, coverage));
  }
  return out;
}

function readAccount(r: Reader, dir: string, dirName: string, coverage: CoverageEntry[]): WireAccount {
  const accountFile = join(dir, 'account.yaml');
  if (!existsSync(accountFile)) throw new FleetValidationError(r.rel(dir), '$', 'an account.yaml (accountId, name, regions)');
  const account = r.yaml(accountFile, accountYamlSchema);
  if (account.accountId !== dirName)
    throw new FleetValidationError(r.rel(accountFile), '$.accountId', `"${dirName}" (the directory name), got "${account.accountId}"`);
  const out: WireAccount = { account, regions: [] };
  const rolesFile = join(dir, 'ram', 'roles.json');
  if (existsSync(rolesFile)) {
    out.ram = {
      roles: r.json(rolesFile, listOf(wireRamRoleSchema)),
      policies: r.optionalJson(join(dir, 'ram', 'policies.json'), listOf(wireRamPolicySchema)) ?? [],
      rolePolicies: r.optionalJson(join(dir, 'ram', 'role-policies.json'), wireRolePoliciesSchema) ?? {},
    };
  }
  coverage.push({
    accountId: account.accountId,
    api: 'ram',
    status: out.ram ? 'ok' : 'absent',
    ...(out.ram ? {} : { message: 'not in the fleet directory' }),
  });
  const regionDirs = r.dirs(join(dir, 'regions'));
  const regions = [...new Set([...account.regions, ...regionDirs])].sort();
  account.regions = regions;
  for (const regionId of regions) {
    if (!/^[a-z]{2}(-[a-z0-9]+)+$/.test(regionId))
      throw new FleetValidationError(r.rel(join(dir, 'regions', regionId)), '$', 'a region directory named like cn-hangzhou');
    out.regions.push(readRegion(r, join(dir, 'regions', regionId), account.accountId, regionId, coverage));
  }
  return out;
}

/**
 * Read a fleet directory into a WireFleet.
 * @param root path of the fleet directory (holds `fleet.yaml` and `accounts/`)
 * @throws FleetValidationError on the first invalid or missing file (nothing partial is returned)
 */
export function readFleetDirectory(root: string): WireFleet {
  const r = new Reader(root);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new FleetValidationError(root, '$', 'a fleet directory');
  const fleetFile = join(root, 'fleet.yaml');
  if (!existsSync(fleetFile)) throw new FleetValidationError(r.rel(fleetFile), '$', 'a fleet.yaml with at least `name`');
  const fleet = r.yaml(fleetFile, fleetYamlSchema);
  if (fleet.generate) {
    // A generated fleet (fleet-format.md `generate:`): built in memory, deterministic per seed.
    const spec = r.parse(fleetFile, generateSpecSchema, fleet.generate, ['generate']);
    return generateFleet(spec, fleet.name).fleet;
  }
  const coverage: CoverageEntry[] = [];
  const accounts = r.dirs(join(root, 'accounts')).map((id) => readAccount(r, join(root, 'accounts', id), id, coverage));
  return { name: fleet.name, ...(fleet.description ? { description: fleet.description } : {}), accounts, coverage };
}
