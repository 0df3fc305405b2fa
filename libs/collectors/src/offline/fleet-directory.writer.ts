/**
 * Writes a WireFleet as a fleet directory (`../shared/fleet-format.md`), the inverse of
 * `readFleetDirectory`. Used by `fleet-audit sim generate --out DIR`.
 *
 * Kubernetes objects are written as one v1 List per kind in `kubernetes/<kind>.yaml`; the content
 * is JSON (a subset of YAML), which keeps writing and reading fleets of 20,000 nodes fast.
 * The directory is first written to a sibling temporary directory and renamed into place, so a
 * failure never leaves a half-written fleet.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { dumpYaml, KIND_DATA, kindWireOf, type WireFleet } from '@app/domain';

function writeJson(file: string, data: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 1)}\n`);
}

/**
 * Write `fleet` into the directory `out` (which must not exist or be empty-able with `overwrite`).
 * @param options `files`: extra files written at the root (name -> text), inside the same atomic rename
 * @throws Error when `out` exists and `overwrite` is false
 */
export function writeFleetDirectory(fleet: WireFleet, out: string, options: { overwrite?: boolean; files?: Readonly<Record<string, string>> } = {}): void {
  if (existsSync(out) && !options.overwrite) throw new Error(`${out} already exists (use --force to replace it)`);
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'fleet.yaml'), dumpYaml({ name: fleet.name, ...(fleet.description ? { description: fleet.description } : {}) }));
    for (const acc of fleet.accounts) {
      const adir = join(tmp, 'accounts', acc.account.accountId);
      mkdirSync(adir, { recursive: true });
      writeFileSync(join(adir, 'account.yaml'), dumpYaml(acc.account));
      if (acc.ram) {
        writeJson(join(adir, 'ram', 'roles.json'), acc.ram.roles);
        writeJson(join(adir, 'ram', 'policies.json'), acc.ram.policies);
        writeJson(join(adir, 'ram', 'role-policies.json'), acc.ram.rolePolicies);
      }
      for (const r of acc.regions) {
        const rdir = join(adir, 'regions', r.regionId);
        mkdirSync(rdir, { recursive: true });
        if (r.loadBalancers) writeJson(join(rdir, 'load-balancers.json'), r.loadBalancers);
        if (r.loadBalancers && r.vServerGroups) writeJson(join(rdir, 'vserver-groups.json'), r.vServerGroups);
        for (const data of KIND_DATA) {
          // A kind's files (fleet-format.md, e.g. the four nlb/ files): written together or not at all (a gap of its dataset).
          const wire = kindWireOf(r, data);
          if (wire) for (const f of data.files) writeJson(join(rdir, data.dataset, f.file), wire[f.list] ?? []);
        }
        if (r.ecsInstances) writeJson(join(rdir, 'ecs-instances.json'), r.ecsInstances);
        if (r.vSwitches) writeJson(join(rdir, 'vswitches.json'), r.vSwitches);
        if (r.quotas) writeJson(join(rdir, 'quotas.json'), r.quotas);
        if (r.quotaApplications) writeJson(join(rdir, 'quota-applications.json'), r.quotaApplications);
        for (const c of r.clusters) {
          const cdir = join(rdir, 'clusters', c.detail.cluster_id);
          writeJson(join(cdir, 'cluster.json'), c.detail);
          if (c.addons) writeJson(join(cdir, 'addons.json'), c.addons);
          if (c.resources) writeJson(join(cdir, 'resources.json'), c.resources);
          if (c.nodeSysctls) writeJson(join(cdir, 'node-sysctls.json'), c.nodeSysctls);
          if (c.kubernetes) {
            const kinds: [string, string, string, unknown[]][] = [
              ['nodes', 'v1', 'Node', c.kubernetes.nodes],
              ['services', 'v1', 'Service', c.kubernetes.services],
              ['pods', 'v1', 'Pod', c.kubernetes.pods],
              ['endpointslices', 'discovery.k8s.io/v1', 'EndpointSlice', c.kubernetes.endpointSlices],
              ['events', 'v1', 'Event', c.kubernetes.events],
            ];
            for (const [file, apiVersion, kind, items] of kinds)
              writeJson(join(cdir, 'kubernetes', `${file}.yaml`), {
                apiVersion: 'v1',
                kind: 'List',
                items: items.map((i) => ({ apiVersion, kind, ...(i as object) })),
              });
          }
        }
      }
    }
    // Extra files at the root (a dump's manifest), written before the rename like everything else.
    for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(tmp, name), text);
    rmSync(out, { recursive: true, force: true });
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
