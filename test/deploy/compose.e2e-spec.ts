/**
 * docker-compose.yml does what its comments say. There is no Docker engine here, so
 * the file is checked against what it drives instead:
 * - every documented variable a container process reads (libs/config ENV_VARS) can be set, and an
 *   optional `fleet-audit.env` file carries any other;
 * - PostgreSQL keeps its data in a named volume;
 * - each service's `command` is a valid `fleet-audit` command line (parsed by the CLI's own program);
 * - the API service's command, run as compose runs it (with REDIS_URL), accepts the documented
 *   `POST /v1/scans {"source":"sample"}` and the scan succeeds (before: 400, `--fleet` was dropped
 *   when Redis was set).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_SCHEMA, load as parse, mergeTag } from 'js-yaml';
import { ENV_VARS } from '@app/config';
import { buildProgram } from '../../apps/cli/src/main';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { deletePrefix, eventually, listeningUrl, SHARED_REDIS_URL, uniquePrefix } from '../worker/worker-test.util';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'fleet-audit.js');
const COMPOSE_TEXT = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: Array<{ path: string; required?: boolean }>;
  volumes?: string[];
}
const compose = parse(COMPOSE_TEXT, { schema: CORE_SCHEMA.withTags(mergeTag) }) as { services: Record<string, ComposeService>; volumes?: Record<string, unknown> };
const appServices = Object.entries(compose.services).filter(([, s]) => s.image === 'ack-fleet-audit:local');

/**
 * Variables that are not container settings: NO_COLOR and USER describe a terminal session; API_PORT and
 * API_HOST are set by `serve --port/--host` in the service's command; WORKER_HEALTH_HOST keeps its
 * default (the health endpoint is probed from inside the container); FLEET_AUDIT_DIST points bin/fleet-audit.js at
 * another build, and an image has its own.
 */
const NOT_CONTAINER_SETTINGS = new Set(['NO_COLOR', 'USER', 'API_PORT', 'API_HOST', 'WORKER_HEALTH_HOST', 'FLEET_AUDIT_DIST']);

/** Replace every subcommand's action by a recorder, so parsing checks names and options without running. */
function recordingProgram(): { program: Command; ran: string[] } {
  const ran: string[] = [];
  const program = buildProgram(() => undefined);
  const visit = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      const here = [...path, sub.name()];
      // Refusals are asserted on the thrown error, not printed.
      sub.configureOutput({ writeErr: () => undefined, outputError: () => undefined });
      if (sub.commands.length === 0) sub.action(() => void ran.push(here.join(' ')));
      visit(sub, here);
    }
  };
  visit(program, []);
  return { program, ran };
}

describe('docker-compose.yml (static)', () => {
  it('has the fleet-audit services: migrate, api, worker, and a worker pool of another VPC (profile pools)', () => {
    expect(appServices.map(([n]) => n).sort()).toEqual(['api', 'migrate', 'worker', 'worker-pool-b']);
  });

  it('lets every documented container variable be set (passed through or in fleet-audit.env)', () => {
    const byProcess = { api: compose.services.api.environment ?? {}, worker: compose.services.worker.environment ?? {} };
    for (const [name, spec] of Object.entries(ENV_VARS)) {
      if (NOT_CONTAINER_SETTINGS.has(name)) continue;
      // `serve` is the api container, `worker` the worker container; the CLI reads what either reads.
      const wanted = (['api', 'worker'] as const).filter((p) => (spec.usedBy as readonly string[]).includes(p) || (p === 'worker' && name.startsWith('WORKER_')));
      const inSome = wanted.length === 0 ? Object.values(byProcess).some((e) => name in e) : wanted.some((p) => name in byProcess[p]);
      expect(inSome, `${name} (${spec.usedBy.join(', ')}) is not settable in docker-compose.yml`).toBe(true);
    }
    for (const [name, s] of appServices) expect(s.env_file, `${name}: env_file`).toEqual([{ path: './fleet-audit.env', required: false }]);
  });

  it('passes secrets through from the shell, never with a value in the file', () => {
    for (const [name, spec] of Object.entries(ENV_VARS)) {
      if (!spec.secret) continue;
      for (const [svc, s] of appServices) {
        const v = s.environment?.[name];
        if (v === undefined || name === 'DATABASE_URL' || name === 'REDIS_URL') continue;
        expect(COMPOSE_TEXT, `${svc}.${name}`).toMatch(new RegExp(`${name}: \\$\\{${name}:[-?]`));
      }
    }
  });

  it('keeps PostgreSQL data in a named volume', () => {
    expect(compose.services.postgres.volumes).toContain('pgdata:/var/lib/postgresql/data');
    expect(compose.volumes).toHaveProperty('pgdata');
  });

  it("each service's command is a valid fleet-audit command line", async () => {
    for (const [name, s] of appServices) {
      expect(s.command, `${name}: command`).toBeDefined();
      const { program, ran } = recordingProgram();
      await program.parseAsync(['node', 'fleet-audit', ...(s.command ?? [])]);
      expect(ran, `${name}: ${s.command?.join(' ')}`).toEqual([s.command![0]]);
    }
    // The recorder is not blind: a misspelt option is refused.
    const { program } = recordingProgram();
    await expect(program.parseAsync(['node', 'fleet-audit', 'serve', '--fleets', 'x'])).rejects.toThrow(/unknown option/);
  });
});

describe("docker-compose.yml: the api service's command with REDIS_URL (e2e)", { timeout: 300_000 }, () => {
  const TOKEN = 'compose-e2e-token-5f4e3d2c1b';
  const prefix = uniquePrefix('compose');
  let db: TestDatabase;
  let serve: ChildProcess | undefined;
  let url = '';
  let stderr = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    // The compose command with its container paths mapped onto this checkout, loopback for 0.0.0.0 and a port the
    // system chooses (announced on the listening line) for 3000.
    const args = (compose.services.api.command ?? []).map((a) =>
      a === '0.0.0.0' ? '127.0.0.1' : a === '3000' ? '0' : a.replace('/config/', `${ROOT}/examples/config/`).replace('/app/', `${ROOT}/`),
    );
    serve = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, API_TOKEN: TOKEN, DATABASE_URL: db.url, REDIS_URL: SHARED_REDIS_URL, FLEET_AUDIT_QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn' },
    });
    serve.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await eventually(async () => listeningUrl(stderr) !== undefined || serve!.exitCode !== null, 120_000, 'serve to listen');
    expect(serve.exitCode, stderr).toBeNull();
    url = listeningUrl(stderr)!;
  }, 300_000);

  afterAll(async () => {
    if (serve && serve.exitCode === null) serve.kill('SIGKILL');
    await deletePrefix(SHARED_REDIS_URL, prefix);
    await db?.release();
  });

  it('lists both sources and scans {"source":"sample"} to succeeded in the API process', async () => {
    // The scan config (live, on the workers) and the bundled fleet (offline, in the API's queue).
    expect(stderr).toMatch(/sources: production, sample\)/);
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
    const post = await fetch(`${url}/v1/scans`, { method: 'POST', headers, body: JSON.stringify({ source: 'sample' }) });
    expect(post.status, await post.clone().text()).toBe(202);
    const { scanId } = (await post.json()) as { scanId: string };
    const scan = await eventually(
      async () => {
        const s = (await (await fetch(`${url}/v1/scans/${scanId}`, { headers })).json()) as { status: string; source: string; fleetName: string; summary: { findings: number } | null };
        return s.status !== 'running' ? s : undefined;
      },
      240_000,
      'the scan to end',
    );
    expect(scan).toMatchObject({ status: 'succeeded', source: 'offline', fleetName: 'sample' });
    expect(scan.summary!.findings).toBeGreaterThan(0);
    // An unknown source still names the configured ones.
    const unknown = await fetch(`${url}/v1/scans`, { method: 'POST', headers, body: JSON.stringify({ source: 'nope' }) });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('configured: production, sample');
  });
});
