/**
 * The Dockerfile and docker-compose.yml, checked without a Docker engine (none on the CI machine) and
 * without hadolint (not packaged in Debian 12): the image is multi-stage, runs as a non-root user with a
 * HEALTHCHECK and `fleet-audit` as its entrypoint, on a current Node LTS, and its build steps are the
 * npm commands CI runs (.ci/run, package.json). docker-compose.yml builds the image once, migrates
 * before api/worker start, has healthchecks, and does not publish PostgreSQL or Redis on the host.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORE_SCHEMA, load as parse, mergeTag } from 'js-yaml';

const ROOT = join(__dirname, '..', '..');

interface Stage {
  from: string;
  name?: string;
  instructions: { op: string; args: string }[];
}

/** Parse a Dockerfile into stages (line continuations joined, comments dropped). */
function stages(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const out: Stage[] = [];
  for (const l of lines) {
    const [op, ...rest] = l.split(/\s+/);
    const a = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(a);
      out.push({ from: m?.[1] ?? a, ...(m?.[2] ? { name: m[2] } : {}), instructions: [] });
    } else if (out.length === 0 && op.toUpperCase() === 'ARG') {
      const [k, v] = a.split('=');
      args[k] = v ?? '';
    } else out[out.length - 1]?.instructions.push({ op: op.toUpperCase(), args: a });
  }
  return { args, stages: out };
}

describe('Dockerfile (no Docker engine or hadolint here: structural checks)', () => {
  const { args, stages: st } = stages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  const build = st.find((s) => s.name === 'build');
  const runtime = st[st.length - 1];
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };

  it('is multi-stage: a build stage and a runtime stage on a current Node LTS image', () => {
    expect(st.length).toBeGreaterThanOrEqual(2);
    expect(build).toBeDefined();
    const image = runtime.from.replace(/\$\{(\w+)\}/g, (_, k: string) => args[k] ?? '');
    const major = Number(/^node:(\d+)/.exec(image)?.[1]);
    expect(major % 2, `${image}: Node LTS lines are even`).toBe(0);
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it('builds with the npm commands CI runs, and ships production dependencies only', () => {
    const runs = build!.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
    const ciInstall = /npm install --no-audit --no-fund/.exec(ci)?.[0];
    expect(ciInstall).toBeDefined();
    expect(runs.some((r) => r.startsWith(ciInstall!))).toBe(true);
    expect(runs).toContain('npm run build');
    expect(pkg.scripts.build).toMatch(/^nest build cli/);
    // The suite builds the CLI the same way, into its own folder (test/global-setup.ts runs build:suite).
    expect(pkg.scripts['build:suite']).toContain(pkg.scripts.build.split(' && ')[0]);
    expect(readFileSync(join(ROOT, 'test', 'global-setup.ts'), 'utf8')).toContain("'build:suite'");
    expect(runs.some((r) => /npm prune --omit=dev/.test(r))).toBe(true);
    expect(runtime.instructions.filter((i) => i.op === 'RUN')).toEqual([]);
  });

  it('runs as a non-root user, with a HEALTHCHECK and fleet-audit as the entrypoint', () => {
    const user = runtime.instructions.filter((i) => i.op === 'USER').pop()?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    expect(runtime.instructions.some((i) => i.op === 'HEALTHCHECK' && /\/healthz/.test(i.args))).toBe(true);
    const entry = JSON.parse(runtime.instructions.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    // node, V8 sizing flags only (the young generation of the analysis, README "Large fleets"), then the launcher.
    expect(entry[0]).toBe('node');
    expect(entry.at(-1)).toBe(pkg.bin['fleet-audit']);
    expect(entry.slice(1, -1)).toEqual(['--max-semi-space-size=64', '--min-semi-space-size=64']);
    for (const c of runtime.instructions.filter((i) => i.op === 'COPY')) {
      const src = /--from=build\s+\/app\/(\S+)/.exec(c.args)?.[1];
      if (src && !['node_modules', 'dist'].includes(src)) expect(existsSync(join(ROOT, src)), `COPY of ${src}`).toBe(true);
    }
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as {
    services: Record<string, { build?: unknown; image?: string; ports?: string[]; healthcheck?: { test?: unknown; disable?: boolean }; depends_on?: Record<string, { condition: string }>; volumes?: string[]; command?: string[] }>;
  };
  const s = compose.services;

  it('builds the image once and runs api, worker and a one-shot migrate from it', () => {
    expect(Object.values(s).filter((x) => x.build !== undefined)).toHaveLength(1);
    for (const n of ['api', 'worker', 'migrate']) expect(s[n].image).toBe('ack-fleet-audit:local');
    expect(s.migrate.command).toEqual(['migrate']);
    for (const n of ['api', 'worker']) expect(s[n].depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  it('has api and worker healthchecks and keeps PostgreSQL and Redis off the host', () => {
    expect(s.api.healthcheck?.test).toBeDefined();
    expect(s.worker.healthcheck?.test).toBeDefined();
    // The worker is probed on its own health endpoint (fleet-audit worker --health-port): /readyz
    // checks PostgreSQL and Redis (test/worker/readiness-probes.integration-spec.ts).
    const workerEnv = (s.worker as { environment?: Record<string, string> }).environment ?? {};
    expect(JSON.stringify(s.worker.healthcheck?.test)).toContain(`127.0.0.1:${workerEnv.WORKER_HEALTH_PORT}/readyz`);
    expect(s.postgres.ports).toBeUndefined();
    expect(s.redis.ports).toBeUndefined();
    expect(s.api.ports).toEqual(['127.0.0.1:3000:3000']);
  });

  it('mounts the shipped example config, which the strict scan config accepts', async () => {
    expect(s.api.volumes).toContain('./examples/config:/config:ro');
    const { loadScanConfig } = await import('@app/collectors');
    expect(loadScanConfig(join(ROOT, 'examples', 'config', 'scan.yaml')).name).toBe('production');
  });
});
