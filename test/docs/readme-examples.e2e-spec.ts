/**
 * Every example of README.md runs (issue 21 item 8): each `fleet-audit` / `npx fleet-audit` command and each `curl`
 * of a `sh`/`bash` block, and each `graphql` block, read from the README text, runs against the bundled sample
 * fleet: CLI commands through the built CLI (bin/fleet-audit.js; `nest build cli` first), curl commands and
 * GraphQL documents with fetch against one `fleet-audit serve` on a fresh test database (migrated) holding two scans of the
 * sample fleet. An example that cannot run here is in MARKED (exact command text -> reason), reviewed like code:
 * a new example that neither runs nor is marked fails, and so does a mark whose example left the README.
 *
 * Placeholders (a word equal to the key, or a shell variable of that name) are substituted by PLACEHOLDERS /
 * shellVariables below; `export` lines set the variables of the commands after them, in README order, as in the
 * reader's shell. Success: exit 0 (or 1 when the command asks for it with `--fail-on` and the sample fleet has such
 * findings), HTTP 2xx, a GraphQL answer without `errors`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCliAsync, startCli } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { eventually, freePort } from '../worker/worker-test.util';
import { expandNotation, fencedBlocks, parseCurl, shellCommands, type ShellCommand } from './readme-examples.util';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const BIN = join(ROOT, 'bin', 'fleet-audit.js');
const SAMPLE = 'examples/fleets/sample';
const API_TOKEN = 'readme-examples-e2e-token-5f1c2b';
const TOKEN_HASH_KEY = 'readme-examples-e2e-hash-key-0123456789abcdef';


/**
 * Examples that need what a CI machine does not have, or that the test's own setup already is: exact command text
 * (raw words joined by one space, comments dropped) -> why it is not run. Reviewed: every entry says what it needs.
 */
const MARKED: ReadonlyMap<string, string> = new Map([
  ['npx fleet-audit demo', 'long-running (serves until Ctrl+C); test/e2e runs the demo'],
  [
    'npx fleet-audit sim generate --out /tmp/big --accounts 20 --clusters 200 --nodes-per-cluster 100 --services-per-cluster 50',
    'writes a 20,000-node fleet (bench:crawl size); test/generate covers `sim generate` on small fleets',
  ],
  ['npx fleet-audit worker', 'needs a fleet of Redis workers (long-running); test/worker covers `worker`'],
  ['npx fleet-audit serve --config /etc/fleet-audit/scan.yaml', 'long-running; this test runs its examples against `serve --fleet` on the sample fleet'],
  ['npx fleet-audit scan --config scan.yaml --distributed', 'needs running Redis workers; test/worker covers distributed scans'],
]);

/** Non-example lines of shell blocks (tooling the README mentions): first words -> why they are not run. */
const TOOLING: ReadonlyArray<[RegExp, string]> = [
  [/^(\w+=\S*\s+)*npm (install|test|run)\b/, 'installs, builds or runs the test suite / benches'],
  [/^npx vitest\b/, 'runs tests'],
];

interface Server {
  url: string;
  scan: string;
  lastWeek: string;
  simConfig: string;
  tmp: string;
}

const server: Server = { url: '', scan: '', lastWeek: '', simConfig: '', tmp: '' };
let db: TestDatabase;
let serve: ChildProcess | undefined;
let sim: { stop: () => Promise<number | null> } | undefined;
let serveErr = '';

/** The YAML block of the README whose text matches `re`, written to the temporary directory as `name`. */
function readmeYamlFile(re: RegExp, name: string): string {
  const block = fencedBlocks(README).find((b) => b.lang === 'yaml' && re.test(b.text));
  if (!block) throw new Error(`README has no yaml block matching ${re} (used for ${name})`);
  const path = join(server.tmp, name);
  writeFileSync(path, block.text);
  return path;
}

const headers = () => ({ authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' });

/**
 * Word placeholders of CLI examples -> the value used here (resolved when the example runs).
 * DIR and dated dumps: the sample fleet; scan.yaml: the simulator's generated config (`fleet-audit sim` on the
 * sample fleet); audit-settings.yaml / waivers.yaml: the README's own YAML examples; <token>: the bootstrap token;
 * <id> (waiver revoke): a waiver listed by the API; k3v9x0q2m7ab (token revoke): a token created for it.
 */
const PLACEHOLDERS: ReadonlyArray<[RegExp, () => Promise<string> | string]> = [
  [/^DIR$/, () => SAMPLE],
  [/^dumps\//, () => SAMPLE],
  [/^(scan\.yaml|\/etc\/fleet-audit\/scan\.yaml)$/, () => server.simConfig],
  [/^audit-settings\.yaml$/, () => readmeYamlFile(/^checks:/m, 'audit-settings.yaml')],
  [/^waivers\.yaml$/, () => readmeYamlFile(/^waivers:/m, 'waivers.yaml')],
  [/^<token>$/, () => API_TOKEN],
  [
    /^<id>$/,
    async () => {
      const args = ['waiver', 'add', '--check', 'LB_ORPHANED', '--account', '1234567890123456', '--resource', '*', '--owner', 'readme-test'];
      const r = await runCliAsync([...args, '--reason', 'revoked by the README example', '--category', 'accepted-risk', '--format', 'json'], { DATABASE_URL: db.url });
      return (JSON.parse(r.stdout) as { id: string }).id;
    },
  ],
  [
    /^k3v9x0q2m7ab$/,
    async () => {
      const r = await runCliAsync(['token', 'create', '--role', 'viewer', '--format', 'json'], { DATABASE_URL: db.url, TOKEN_HASH_KEY });
      return (JSON.parse(r.stdout) as { id: string }).id;
    },
  ],
];

/** Shell variables of the examples -> values here ($TOKEN, a scoped token in the README, is the bootstrap token). */
function shellVariables(): Record<string, string> {
  return { DATABASE_URL: db.url, API_TOKEN, TOKEN: API_TOKEN, TOKEN_HASH_KEY, SCAN: server.scan, LAST_WEEK: server.lastWeek };
}

/** `export NAME=...` of the README -> the value the following commands get (undefined: not passed, with why). */
const EXPORTS: Record<string, () => string | undefined> = {
  DATABASE_URL: () => db.url,
  API_TOKEN: () => API_TOKEN,
  TOKEN_HASH_KEY: () => TOKEN_HASH_KEY,
  SCAN_CONFIGS: () => server.simConfig,
  // No worker fleet here: the examples that need Redis are marked; the others must not depend on it.
  REDIS_URL: () => undefined,
};

/** Variables expand to markers when the README is read; each example replaces them with values when it runs. */
const VARIABLE_MARKERS = new Proxy({} as Record<string, string>, { get: (_, name) => `⟪${String(name)}⟫` });

/** A word with its variable markers replaced by the values of shellVariables(). */
function withVariables(word: string): string {
  const vars = shellVariables();
  return word.replace(/⟪(\w+)⟫/g, (_, n: string) => vars[n] ?? '');
}

type Example =
  | { kind: 'cli'; cmd: ShellCommand; env: Record<string, string> }
  | { kind: 'curl'; cmd: ShellCommand }
  | { kind: 'graphql'; line: number; text: string }
  | { kind: 'marked'; text: string; line: number; reason: string };

/** The README's examples in order; unclassified shell lines are returned in `unknown`. */
function readmeExamples(): { examples: Example[]; unknown: string[]; exportNames: string[] } {
  const examples: Example[] = [];
  const unknown: string[] = [];
  const exportNames: string[] = [];
  // Placeholder-free expansion at collection time: values are resolved when each example runs.
  const exported: Record<string, string> = {};
  for (const block of fencedBlocks(README)) {
    if (block.lang === 'graphql') {
      examples.push({ kind: 'graphql', line: block.line, text: block.text });
      continue;
    }
    if (block.lang !== 'sh' && block.lang !== 'bash') continue;
    for (const cmd of shellCommands(block, VARIABLE_MARKERS)) {
      const first = cmd.words.map((w) => w.value);
      const marked = MARKED.get(cmd.text);
      if (first[0] === 'export') {
        for (const w of first.slice(1)) {
          const name = w.split('=')[0];
          exportNames.push(name);
          exported[name] = name;
        }
      } else if (marked !== undefined) examples.push({ kind: 'marked', text: cmd.text, line: cmd.line, reason: marked });
      else if (first[0] === 'fleet-audit' || (first[0] === 'npx' && first[1] === 'fleet-audit')) {
        examples.push({ kind: 'cli', cmd, env: { ...exported } });
      } else if (first[0] === 'curl') examples.push({ kind: 'curl', cmd });
      else if (!TOOLING.some(([re]) => re.test(cmd.text))) unknown.push(`README.md:${cmd.line}: ${cmd.text}`);
    }
  }
  return { examples, unknown, exportNames };
}

const { examples, unknown, exportNames } = readmeExamples();

/** Resolve a CLI example's words: shell variables, placeholders, outputs (-o/--out) into the temporary directory. */
async function resolveArgs(words: string[]): Promise<string[]> {
  const expanded = words.map(withVariables);
  const out: string[] = [];
  for (let i = 0; i < expanded.length; i++) {
    let w = expanded[i];
    const previous = out[out.length - 1];
    if ((previous === '-o' || previous === '--out') && !w.startsWith('/')) w = join(server.tmp, w);
    else {
      const p = PLACEHOLDERS.find(([re]) => re.test(w));
      if (p) w = await p[1]();
    }
    out.push(w);
  }
  return out;
}

describe('README.md examples (e2e)', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    server.tmp = mkdtempSync(join(tmpdir(), 'readme-examples-'));
    db = await createTestDatabase();
    // Two stored scans of the sample fleet: $LAST_WEEK (observed 7 days ago) and $SCAN (now); the simulator meanwhile.
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const simStarting = startCli(['sim', '--fleet', join(ROOT, SAMPLE), '--port', '0']);
    const scans = await Promise.all(
      [['--now', weekAgo], []].map(async (extra) => {
        const r = await runCliAsync(['scan', '--fleet', join(ROOT, SAMPLE), '--format', 'json', '--database-url', db.url, ...extra]);
        expect(r.status, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { scan: { id: string } }).scan.id;
      }),
    );
    [server.lastWeek, server.scan] = scans;
    const started = await simStarting;
    sim = started;
    server.simConfig = (JSON.parse(started.firstLine) as { config: string }).config;
    const port = await freePort();
    // NODE_ENV as a plain `serve` has it (unset, not vitest's `test`): Apollo's own default would add stack traces.
    serve = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--fleet', join(ROOT, SAMPLE)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NODE_ENV: '', API_TOKEN, TOKEN_HASH_KEY, DATABASE_URL: db.url, REDIS_URL: '', LOG_LEVEL: 'warn' },
    });
    serve.stderr!.on('data', (d: Buffer) => (serveErr += d.toString()));
    await eventually(async () => /API on http:\/\/127\.0\.0\.1:\d+/.test(serveErr) || serve!.exitCode !== null, 60_000, 'serve to listen');
    expect(serve.exitCode, serveErr).toBeNull();
    server.url = `http://127.0.0.1:${port}`;
  }, 180_000);

  afterAll(async () => {
    if (serve && serve.exitCode === null) serve.kill('SIGKILL');
    await sim?.stop();
    await db?.drop();
    if (server.tmp) rmSync(server.tmp, { recursive: true, force: true });
  });

  it('every shell line of the README is an example, tooling, or an export the test maps', () => {
    expect(unknown).toEqual([]);
    expect(exportNames.filter((n) => !(n in EXPORTS))).toEqual([]);
    expect(examples.filter((e) => e.kind === 'cli').length).toBeGreaterThan(10);
    expect(examples.filter((e) => e.kind === 'curl').length).toBeGreaterThan(3);
    expect(examples.filter((e) => e.kind === 'graphql').length).toBeGreaterThan(1);
  });

  it('every marked example is still in the README (no stale marks)', () => {
    const present = new Set(examples.filter((e) => e.kind === 'marked').map((e) => e.text));
    expect([...MARKED.keys()].filter((k) => !present.has(k))).toEqual([]);
  });

  for (const ex of examples) {
    if (ex.kind === 'marked') {
      it.skip(`README.md:${ex.line} needs ${ex.reason}: ${ex.text}`, () => undefined);
      continue;
    }
    if (ex.kind === 'graphql') {
      it(`README.md:${ex.line} GraphQL: ${ex.text.split('\n')[1]?.trim() ?? ''}`, async () => {
        const r = await fetch(`${server.url}/graphql`, { method: 'POST', headers: headers(), body: JSON.stringify({ query: ex.text }) });
        const body = (await r.json()) as { data?: unknown; errors?: unknown[] };
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        expect(r.status).toBe(200);
        expect(body.data).toBeTruthy();
      });
      continue;
    }
    const { cmd } = ex;
    // Every example stands alone (placeholders make their own waiver / token), so they run concurrently.
    it.concurrent(`README.md:${cmd.line} ${cmd.text.slice(0, 140)}`, async () => {
      if (ex.kind === 'curl') {
        const req = parseCurl(cmd.words.slice(1).map((w) => withVariables(w.value).replaceAll('<token>', API_TOKEN)));
        const url = req.url.replace(/^http:\/\/127\.0\.0\.1:3000/, server.url);
        expect(url, 'curl examples address the API as http://127.0.0.1:3000').not.toBe(req.url);
        if (req.body !== undefined && req.headers['content-type'] === 'application/json') expect(() => JSON.parse(req.body!), `JSON body of ${cmd.text}`).not.toThrow();
        const r = await fetch(url, { method: req.method, headers: req.headers, ...(req.body !== undefined ? { body: req.body } : {}) });
        const text = await r.text();
        expect(r.status, text.slice(0, 500)).toBeGreaterThanOrEqual(200);
        expect(r.status, text.slice(0, 500)).toBeLessThan(300);
        if (new URL(url).pathname === '/graphql') expect((JSON.parse(text) as { errors?: unknown }).errors, text.slice(0, 500)).toBeUndefined();
        return;
      }
      const env: Record<string, string> = {};
      for (const name of Object.keys(ex.env)) {
        const v = EXPORTS[name]?.();
        if (v !== undefined) env[name] = v;
      }
      const skip = cmd.words[0].value === 'npx' ? 2 : 1;
      const variants = expandNotation(cmd.words.slice(skip));
      for (const variant of variants) {
        const args = await resolveArgs(variant);
        if (args[0] === 'sim' && args[1] !== 'generate') {
          // A long-running simulator: it must print its ready line (endpoint + scan config), then stop cleanly.
          const portAt = args.indexOf('--port');
          if (portAt >= 0) args[portAt + 1] = '0';
          const s = await startCli(args);
          expect(JSON.parse(s.firstLine)).toHaveProperty('endpoint');
          expect(await s.stop()).toBe(0);
          continue;
        }
        const r = await runCliAsync(args, env);
        const allowed = args.includes('--fail-on') ? [0, 1] : [0];
        expect(allowed, `fleet-audit ${args.join(' ')}\n${r.stderr.slice(0, 1500)}`).toContain(r.status);
      }
    });
  }

  it('GraphQL errors carry no stack trace under plain `serve` (FLEET_AUDIT_DEBUG unset)', async () => {
    const r = await fetch(`${server.url}/graphql`, { method: 'POST', headers: headers(), body: JSON.stringify({ query: '{ loadBalancer(id: "lb-none") { loadBalancerId } noSuchField }' }) });
    const body = (await r.json()) as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
    expect(body.errors?.length).toBeGreaterThan(0);
    for (const e of body.errors!) expect(e.extensions ?? {}).not.toHaveProperty('stacktrace');
  });
});
