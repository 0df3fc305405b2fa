/**
 * Every example of README.md runs: each `fleet-audit` / `npx fleet-audit` command and each `curl`
 * of a `sh`/`bash` block, and each `graphql` block, read from the README text, runs against the bundled sample
 * fleet: CLI commands through the built CLI (its `main()` in this process, `runCliInProcess`; the setup's scans, the
 * simulator and `serve` through bin/fleet-audit.js as processes), curl commands and
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
import { ROOT, runCliAsync, runCliInProcess, startCli } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { eventually, listeningUrl } from '../worker/worker-test.util';
import { fencedBlocks, parseCurl, shellCommands, shellWords, type ShellCommand } from './readme-examples.util';

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
  ['npx fleet-audit demo', 'long-running (serves until Ctrl+C); test/e2e/demo.e2e-spec.ts runs it and stops it with SIGTERM'],
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
  [/^helm\b/, 'needs the helm binary; test/deploy/helm-chart.spec.ts renders the chart, admission webhook included, where helm is installed'],
  [/^kubectl\b/, 'needs a Kubernetes cluster (the admission webhook is registered in the target cluster)'],
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
 * Word placeholders of CLI examples -> the value used here (resolved when the example runs). No id is a placeholder:
 * an example that needs one takes it from an earlier command (`export WAIVER_ID=$(npx fleet-audit ... --quiet)`)
 * or names it (`token revoke --name`). Dated dumps: the sample fleet; scan.yaml: the simulator's generated config
 * (`fleet-audit sim` on the sample fleet); waivers.yaml: the README's own YAML example; <token>: the token `demo`
 * prints (here the bootstrap token).
 */
const PLACEHOLDERS: ReadonlyArray<[RegExp, () => Promise<string> | string]> = [
  [/^dumps\//, () => SAMPLE],
  [/^(scan\.yaml|\/etc\/fleet-audit\/scan\.yaml)$/, () => server.simConfig],
  [/^waivers\.yaml$/, () => readmeYamlFile(/^waivers:/m, 'waivers.yaml')],
  [/^<token>$/, () => API_TOKEN],
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

/**
 * Variables set from a command's output (`export WAIVER_ID=$(npx fleet-audit waiver add ... --quiet)`): the value
 * when that example has run (its stdout, trimmed).
 */
const captured = new Map<string, { promise: Promise<string>; resolve: (v: string) => void; reject: (e: unknown) => void }>();

/** A word with its variable markers replaced by the values of shellVariables() and the captured variables. */
async function withVariables(word: string): Promise<string> {
  const vars: Record<string, string | undefined> = shellVariables();
  for (const [, name] of word.matchAll(/⟪(\w+)⟫/g)) {
    const c = captured.get(name!);
    if (c) vars[name!] = await c.promise;
  }
  return word.replace(/⟪(\w+)⟫/g, (_, n: string) => vars[n] ?? '');
}

type Example =
  | { kind: 'cli'; cmd: ShellCommand; env: Record<string, string>; block: number; capture?: string }
  | { kind: 'curl'; cmd: ShellCommand; block: number }
  | { kind: 'graphql'; line: number; text: string }
  | { kind: 'marked'; text: string; line: number; reason: string };

/** The README's examples in order; unclassified shell lines are returned in `unknown`. */
function readmeExamples(): { examples: Example[]; unknown: string[]; exportNames: string[]; notation: string[] } {
  const examples: Example[] = [];
  const unknown: string[] = [];
  // Words a shell would not take as written: alternatives (`csv|html` is a pipe) and optional parts (`[--x]`).
  const notation: string[] = [];
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
      if (cmd.words.some((w) => !w.quoted && (w.raw.includes('|') || w.raw.startsWith('[')))) notation.push(`README.md:${cmd.line}: ${cmd.text}`);
      if (first[0] === 'export') {
        for (const w of first.slice(1)) {
          const sub = /^(\w+)=\$\(([\s\S]*)\)$/.exec(w);
          const words = sub ? shellWords(sub[2]!.replace(/\\\n/g, ' '), VARIABLE_MARKERS).filter((x) => !x.op) : [];
          if (sub && words[0]?.value === 'npx' && words[1]?.value === 'fleet-audit') {
            // NAME=$(npx fleet-audit ...): an example whose output the later commands use.
            let resolve: (v: string) => void = () => undefined;
            let reject: (e: unknown) => void = () => undefined;
            const promise = new Promise<string>((res, rej) => ((resolve = res), (reject = rej)));
            promise.catch(() => undefined);
            captured.set(sub[1]!, { promise, resolve, reject });
            examples.push({ kind: 'cli', cmd: { ...cmd, words }, env: { ...exported }, block: block.line, capture: sub[1]! });
            continue;
          }
          const name = w.split('=')[0];
          exportNames.push(name);
          exported[name] = name;
        }
      } else if (marked !== undefined) examples.push({ kind: 'marked', text: cmd.text, line: cmd.line, reason: marked });
      else if (first[0] === 'npx' && first[1] === 'fleet-audit') {
        examples.push({ kind: 'cli', cmd, env: { ...exported }, block: block.line });
      } else if (first[0] === 'fleet-audit') unknown.push(`README.md:${cmd.line}: ${cmd.text} (not on PATH after npm install: write npx fleet-audit)`);
      else if (first[0] === 'curl') examples.push({ kind: 'curl', cmd, block: block.line });
      else if (!TOOLING.some(([re]) => re.test(cmd.text))) unknown.push(`README.md:${cmd.line}: ${cmd.text}`);
    }
  }
  return { examples, unknown, exportNames, notation };
}

const { examples, unknown, exportNames, notation } = readmeExamples();

/** The examples of one shell block run in order, each after the one before (as a reader runs them). */
const blockChains = new Map<number, Promise<unknown>>();

/** Resolve a CLI example's words: shell variables, placeholders, outputs (-o/--out) into the temporary directory. */
async function resolveArgs(words: string[]): Promise<string[]> {
  const expanded = await Promise.all(words.map(withVariables));
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
    // NODE_ENV as a plain `serve` has it (unset, not vitest's `test`): Apollo's own default would add stack traces.
    serve = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--fleet', join(ROOT, SAMPLE)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NODE_ENV: '', API_TOKEN, TOKEN_HASH_KEY, DATABASE_URL: db.url, REDIS_URL: '', LOG_LEVEL: 'warn' },
    });
    serve.stderr!.on('data', (d: Buffer) => (serveErr += d.toString()));
    await eventually(async () => listeningUrl(serveErr) !== undefined || serve!.exitCode !== null, 60_000, 'serve to listen');
    expect(serve.exitCode, serveErr).toBeNull();
    server.url = listeningUrl(serveErr)!;
  }, 180_000);

  afterAll(async () => {
    if (serve && serve.exitCode === null) serve.kill('SIGKILL');
    await sim?.stop();
    await db?.release();
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
    // Blocks run side by side (their CLI commands one at a time: in-process runs share process.env); the commands of
    // one block run in order, as a reader runs them (a waiver added, then listed and revoked by the id the first
    // command printed).
    it.concurrent(`README.md:${cmd.line} ${cmd.text.slice(0, 140)}`, async () => {
      const previous = blockChains.get(ex.block) ?? Promise.resolve();
      const mine = previous.catch(() => undefined).then(() => runExample(ex));
      blockChains.set(ex.block, mine);
      await mine;
    });
  }

  /** Run one CLI or curl example as written (no notation: the README writes commands a shell runs). */
  async function runExample(ex: Extract<Example, { kind: 'cli' | 'curl' }>): Promise<void> {
    const { cmd } = ex;
    if (ex.kind === 'curl') {
      const words = await Promise.all(cmd.words.slice(1).map(async (w) => (await withVariables(w.value)).replaceAll('<token>', API_TOKEN)));
      const req = parseCurl(words);
      // `-d @FILE`: curl reads the body from the file (a path from the repository's root, as the README runs).
      if (req.body?.startsWith('@')) req.body = readFileSync(join(ROOT, req.body.slice(1)), 'utf8');
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
    const capture = ex.capture !== undefined ? captured.get(ex.capture) : undefined;
    try {
      const args = await resolveArgs(cmd.words.slice(2).map((w) => w.value));
      if (args[0] === 'sim' && args[1] !== 'generate') {
        // A long-running simulator: it must print its ready line (endpoint + scan config), then stop cleanly.
        const portAt = args.indexOf('--port');
        if (portAt >= 0) args[portAt + 1] = '0';
        const s = await startCli(args);
        expect(JSON.parse(s.firstLine)).toHaveProperty('endpoint');
        expect(await s.stop()).toBe(0);
        return;
      }
      // In this process (the built CLI's main(), as bin/fleet-audit.js runs it): a child per example cost the suite about
      // 2 CPU seconds each, most of it starting Node and loading the CLI again. The setup's two scans, the simulator and
      // `serve` run as processes, which keeps the launcher itself covered here.
      const r = await runCliInProcess(args, env);
      const allowed = args.includes('--fail-on') ? [0, 1] : [0];
      expect(allowed, `fleet-audit ${args.join(' ')}\n${r.stderr.slice(0, 1500)}`).toContain(r.status);
      // A file of the README's own (waivers.yaml) waives what it says, with no warning.
      if (args.includes('--waivers')) expect(r.stderr, 'the waivers example is stale (expired or matching nothing)').not.toContain('warning: waiver');
      if (capture) {
        expect(r.stdout.trim(), `${cmd.text} prints the value it sets`).toMatch(/^\S+$/);
        capture.resolve(r.stdout.trim());
      }
    } catch (e) {
      capture?.reject(e);
      throw e;
    }
  }

  it('the waivers file example waives findings of a cluster of the sample fleet and has not expired', async () => {
    const file = readmeYamlFile(/^waivers:/m, 'waivers-check.yaml');
    const r = await runCliAsync(['scan', '--fleet', SAMPLE, '--waivers', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning: waiver');
    const waived = /Waivers: (\d+) finding\(s\) waived/.exec(r.stdout);
    expect(Number(waived?.[1] ?? 0)).toBeGreaterThan(0);
  });

  it('every command is written as a shell runs it: npx fleet-audit, no alternatives as a pipe, no optional brackets', () => {
    expect(notation).toEqual([]);
    expect(unknown.filter((u) => u.includes('not on PATH'))).toEqual([]);
  });

  it('GraphQL errors carry no stack trace under plain `serve` (FLEET_AUDIT_DEBUG unset)', async () => {
    const r = await fetch(`${server.url}/graphql`, { method: 'POST', headers: headers(), body: JSON.stringify({ query: '{ loadBalancer(id: "lb-none") { loadBalancerId } noSuchField }' }) });
    const body = (await r.json()) as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
    expect(body.errors?.length).toBeGreaterThan(0);
    for (const e of body.errors!) expect(e.extensions ?? {}).not.toHaveProperty('stacktrace');
  });
});
