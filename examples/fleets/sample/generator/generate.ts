/**
 * Writes the bundled sample fleet (`examples/fleets/sample`: `fleet.yaml`, `accounts/**`, `ids.json`).
 *
 * The committed files are the source of truth: this is how they were produced, so that the ~100 nodes,
 * ~50 CLBs and their vServer groups stay consistent with the Kubernetes objects (tags = Service UIDs,
 * vServer group names = NodePorts, backends = what CCM would attach). It is deterministic (seeded PRNG,
 * fixed dates): re-running it rewrites byte-identical files (`test/sample-fleet/sample-generator.spec.ts`
 * compares every file with the committed ones).
 *
 * What each resource is for (which check must fire, which control must stay silent) is in the README.md
 * of the sample; each scenario module under `scenarios/` builds one cluster or one group of additions.
 * The PRNG is shared, so the order of the scenarios and of the emitters below is part of the output.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dump } from 'js-yaml';
import { KIND_DATA, NLB_DATA } from '@app/domain';
import { A, apiLbOf, SampleFleet } from './model';
import { SampleRandom } from './random';
import { clusterDetail, addonsBody, resourcesBody } from './emit/ack';
import { clbBody, nlbBody, vswitchBody } from './emit/cloud';
import { eventObj, kubeSystemObjs, list, nodeObj, podObj, serviceObj, sliceObj, yamlOpts } from './emit/kubernetes';
import { ramOf } from './emit/ram';
import { catalogueAdditions } from './scenarios/catalogue';
import { dataPlatform } from './scenarios/data-platform';
import { paymentsLegacy } from './scenarios/payments-legacy';
import { previewEnvs } from './scenarios/preview-envs';
import { storefront } from './scenarios/storefront';
import { nlbAdditions } from './scenarios/nlb';

/** Builds the whole sample fleet in memory (every scenario, in the order that numbers its ids). */
export function buildSampleFleet(): SampleFleet {
  const f = new SampleFleet(new SampleRandom());
  paymentsLegacy(f);
  storefront(f);
  dataPlatform(f);
  previewEnvs(f);
  catalogueAdditions(f);
  nlbAdditions(f);
  return f;
}

/** `ids.json` of one cluster: the ids the README and the tests talk about. */
interface ClusterIds {
  accountId: string;
  regionId: string;
  clusterId: string;
  apiServerLoadBalancerId: string;
  masterRole?: string;
  services: Record<string, unknown>;
  orphanLoadBalancerId?: string;
  orphanServiceUid?: string;
}

/**
 * Builds the sample fleet and writes it under `outDir`: `fleet.yaml`, `accounts/**` (the directory is
 * removed first) and `ids.json`. Other files in `outDir` (README.md, audit-settings.yaml) are left alone.
 *
 * @param outDir the fleet directory to write (created when missing)
 * @returns the written files, relative to `outDir`, in the order they were written
 */
export function generateSampleFleet(outDir: string): string[] {
  const f = buildSampleFleet();
  const written: string[] = [];
  const write = (rel: string, text: string): void => {
    const file = join(outDir, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    written.push(rel);
  };
  const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;
  const yaml = (header: string[], v: unknown): string => `${header.map((l) => `# ${l}`.trimEnd()).join('\n')}\n${dump(v, yamlOpts)}`;

  rmSync(join(outDir, 'accounts'), { recursive: true, force: true });
  write(
    'fleet.yaml',
    yaml(['Bundled sample fleet of ack-fleet-audit: what `fleet-audit demo` serves and scans. See README.md.'], {
      name: 'sample',
      description:
        'Two accounts, two regions, six ACK clusters (dedicated Flannel, Pro Flannel x2, Pro Terway, Basic Flannel, managed Terway on CCM v1.9.3): every file in the native API shape, built so that every check of the catalogue fires and its controls stay silent.',
    }),
  );

  for (const acc of Object.values(f.accounts)) {
    const base = `accounts/${acc.id}`;
    write(
      `${base}/account.yaml`,
      yaml([`Alibaba Cloud account ${acc.name}.`], {
        accountId: acc.id,
        name: acc.name,
        regions: Object.keys(acc.regions).sort(),
        auditRoleArn: `acs:ram::${acc.id}:role/fleet-audit-readonly`,
      }),
    );
    const ram = ramOf(f, acc);
    write(`${base}/ram/roles.json`, json(ram.roles));
    write(`${base}/ram/policies.json`, json(ram.policies));
    write(`${base}/ram/role-policies.json`, json(ram.rolePolicies));
    for (const reg of Object.values(acc.regions)) {
      const rb = `${base}/regions/${reg.id}`;
      write(`${rb}/load-balancers.json`, json(reg.lbs.map(clbBody)));
      write(`${rb}/vserver-groups.json`, json(reg.vgroups));
      write(`${rb}/nlb/load-balancers.json`, json(reg.nlbs.map(nlbBody)));
      write(`${rb}/nlb/listeners.json`, json(reg.nlbListeners));
      write(`${rb}/nlb/server-groups.json`, json(reg.nlbServerGroups));
      write(`${rb}/nlb/servers.json`, json(reg.nlbServers));
      // Every other load-balancer kind's files, empty: the sample has none of them, and a region answers empty lists.
      for (const data of KIND_DATA) if (data !== NLB_DATA) for (const file of data.files) write(`${rb}/${data.dataset}/${file.file}`, json([]));
      write(`${rb}/ecs-instances.json`, json(reg.ecs));
      write(`${rb}/vswitches.json`, json(reg.vswitches.map((v) => vswitchBody(v, acc))));
      if (reg.quotas) write(`${rb}/quotas.json`, json(reg.quotas));
      if (reg.quotaApplications) write(`${rb}/quota-applications.json`, json(reg.quotaApplications));
      for (const cl of reg.clusters) {
        const cb = `${rb}/clusters/${cl.id}`;
        write(`${cb}/cluster.json`, json(clusterDetail(f, cl)));
        write(`${cb}/addons.json`, json(addonsBody(cl)));
        write(`${cb}/resources.json`, json(resourcesBody(cl)));
        const sysctls: Record<string, Record<string, string>> = {};
        for (const n of [...cl.nodes].sort((a, b) => (a.ecsId < b.ecsId ? -1 : 1))) sysctls[n.ecsId] = { 'net.ipv4.ip_local_port_range': '32768\t60999' };
        write(`${cb}/node-sysctls.json`, json(sysctls));
        const kb = `${cb}/kubernetes`;
        const who = `cluster ${cl.name} (${cl.id})`;
        write(`${kb}/nodes.yaml`, yaml([`kubectl get nodes -o yaml, ${who}`], list(cl.nodes.map((n) => nodeObj(f, cl, n)))));
        // One file per kind (docs/fleet-format.md: each kind's completeness rests on its own file). Services with
        // a provenance header (copied from upstream manifests) come first, with their header kept as a comment;
        // kube-system Pods come before the others. Objects are built in the order that numbers their
        // resourceVersions (plain Services, headed Services, Pods, kube-system Pods).
        const headed = cl.services.filter((x) => x.header);
        const plainObjs = cl.services.filter((s) => !s.header).map((s) => serviceObj(f, cl, s));
        const headedObjs = headed.map((s) => serviceObj(f, cl, s));
        const podObjs = cl.pods.map((p) => podObj(f, p));
        const sys = kubeSystemObjs(f, cl);
        write(
          `${kb}/services.yaml`,
          yaml(
            [`kubectl get services -A -o yaml (LoadBalancer Services), ${who}`, ...headed.flatMap((s) => ['', `${s.ns}/${s.name}:`, ...(s.header ?? [])])],
            list([...headedObjs, ...plainObjs]),
          ),
        );
        write(
          `${kb}/pods.yaml`,
          yaml([`kubectl get pods -A -o yaml (${sys.length ? 'control plane static Pods and CCM in kube-system, then ' : ''}the Services' backends), ${who}`], list([...sys, ...podObjs])),
        );
        write(`${kb}/endpointslices.yaml`, yaml([`kubectl get endpointslices -A -o yaml, ${who}`], list(cl.services.map((s) => sliceObj(f, s)))));
        if (cl.events.length) write(`${kb}/events.yaml`, yaml([`kubectl get events -A --field-selector involvedObject.kind=Service -o yaml, ${who}`], list(cl.events.map((e) => eventObj(f, e)))));
      }
    }
  }

  // A machine-readable map of the ids the README and tests talk about.
  const ids: Record<string, unknown> = {};
  const clusterIds: Record<string, ClusterIds> = {};
  for (const acc of Object.values(f.accounts))
    for (const reg of Object.values(acc.regions)) {
      for (const cl of reg.clusters) {
        const entry: ClusterIds = {
          accountId: acc.id,
          regionId: reg.id,
          clusterId: cl.id,
          apiServerLoadBalancerId: apiLbOf(cl).id,
          ...(cl.masterRole ? { masterRole: cl.masterRole } : {}),
          services: Object.fromEntries(cl.services.map((s) => [`${s.ns}/${s.name}`, { uid: s.uid, ...(s.lb ? { loadBalancerId: s.lb.id } : {}), ...(s.annotations[A.id] ? { reusedLoadBalancerId: s.annotations[A.id] } : {}) }])),
          ...(cl.orphanLb ? { orphanLoadBalancerId: cl.orphanLb.id, orphanServiceUid: cl.orphanUid } : {}),
        };
        ids[cl.name] = entry;
        clusterIds[cl.name] = entry;
      }
      if (reg.consoleLb) ids.consoleLoadBalancer = { accountId: acc.id, regionId: reg.id, loadBalancerId: reg.consoleLb.id };
      if (reg.sharedLb) ids.sharedServicesLoadBalancer = { accountId: acc.id, regionId: reg.id, loadBalancerId: reg.sharedLb.id, vpcId: reg.sharedLb.vpc };
    }
  const preview = clusterIds['preview-envs'];
  if (!preview) throw new Error('sample fleet: no cluster preview-envs');
  preview.services = { count: Object.keys(preview.services).length, example: Object.entries(preview.services)[0] };
  write('ids.json', json(ids));
  return written;
}
