/**
 * What the CLI prints cannot drive the terminal it is printed on, and what it writes as CSV cannot run in a
 * spreadsheet. Names and texts come from clusters, cloud APIs, the database (waivers and tokens set through the API
 * by less privileged users, or stored before the API refused such input) and users' files: an OSC title
 * (`ESC ] 0 ; ... BEL`), a screen clear (`ESC [ 2 J`), a clipboard write (`ESC ] 52 ; c ; ... BEL`), an 8-bit CSI,
 * a carriage return that overwrites its line, DEL and BEL in them are dropped from every table and text line
 * (libs/domain terminalText); a CSV cell starting with = + - @ tab or CR gets a leading `'` and quotes (libs/domain
 * csvField, OWASP "CSV Injection"). Runs the built CLI in-process (test/cli/cli-run.util.ts) on a copy of the sample
 * fleet and on real PostgreSQL.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { runCliInProcess, SAMPLE_FLEET } from './cli-run.util';

const NOW = '2026-11-22T00:00:00Z';
const KEY = 'terminal-safety-hash-key-0123456789abcdef-0123';
/** Every escape of the probe: window title, screen clear, clipboard write, 8-bit CSI, CR overwrite, DEL, BEL. */
const ESCAPES = '\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;cHduZWQ=\u0007\u009b31m\rX\u007f\u0007';
/** A CLB name a spreadsheet would run (OWASP's example). */
const FORMULA = "-2+3+cmd|' /C calc'!A0";
const REGION = join('accounts', '1987654321098765', 'regions', 'cn-hangzhou');

/** `s` as a YAML double-quoted scalar (YAML allows no raw C0, DEL or C1 in a document: escaped as \uXXXX). */
function yamlQuoted(s: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\u0000-\u001F\u007F-\u009F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/** Control characters (C0 but line feed, DEL, C1) in `text`, as code points. */
function controls(text: string): string[] {
  // eslint-disable-next-line no-control-regex
  return [...text.matchAll(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/g)].map((m) => `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

let work: string;
let fleet: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'fa-terminal-'));
  fleet = join(work, 'fleet');
  cpSync(SAMPLE_FLEET, fleet, { recursive: true });
  // The fleet's, a cluster's and every CLB's name of one region carry the escapes; the CLB names start as a formula.
  const fleetYaml = join(fleet, 'fleet.yaml');
  writeFileSync(fleetYaml, readFileSync(fleetYaml, 'utf8').replace(/^name: sample$/m, `name: ${yamlQuoted(`sample${ESCAPES}`)}`));
  const lbs = join(fleet, REGION, 'load-balancers.json');
  const list = JSON.parse(readFileSync(lbs, 'utf8')) as { LoadBalancerName: string }[];
  for (const lb of list) lb.LoadBalancerName = `${FORMULA}${ESCAPES}`;
  writeFileSync(lbs, JSON.stringify(list, null, 2));
  const clusters = join(fleet, REGION, 'clusters');
  const cluster = join(clusters, readdirSync(clusters)[0]!, 'cluster.json');
  const detail = JSON.parse(readFileSync(cluster, 'utf8')) as { name: string };
  detail.name = `data${ESCAPES}platform`;
  writeFileSync(cluster, JSON.stringify(detail, null, 2));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('scan output of hostile cloud names', () => {
  it('the table carries no control character (no colour piped) and still names the cluster', async () => {
    const r = await runCliInProcess(['scan', '--fleet', fleet, '--now', NOW]);
    expect(r.stderr).toBe('');
    expect(controls(r.stdout)).toEqual([]);
    expect(r.stdout).toContain('dataXplatform');
    expect(r.stdout).toMatch(/of fleet "sampleX"/);
  }, 120_000);

  it('markdown and html carry no control character either', async () => {
    for (const format of ['markdown', 'html']) {
      const r = await runCliInProcess(['scan', '--fleet', fleet, '--now', NOW, '--format', format]);
      expect(controls(r.stdout), format).toEqual([]);
    }
  }, 120_000);

  it('--format csv guards the formula CLB name (leading apostrophe, quoted) and drops the escapes', async () => {
    const r = await runCliInProcess(['scan', '--fleet', fleet, '--now', NOW, '--format', 'csv']);
    const lines = r.stdout.split('\r\n');
    // A finding about such a CLB (LB_NO_BACKENDS) names it in the name column: guarded, the escapes gone.
    expect(lines.some((l) => l.includes(`,"'${FORMULA}X",`))).toBe(true);
    expect(lines.some((l) => /(^|,)-2\+3\+cmd/.test(l))).toBe(false);
    expect(controls(r.stdout.replace(/\r\n/g, '\n'))).toEqual([]);
  }, 120_000);
});

describe('waiver list and token list of hostile stored text', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.release();
  });

  it('print owner, resource and token names without control characters', async () => {
    const env = { DATABASE_URL: db.url, TOKEN_HASH_KEY: KEY };
    const add = await runCliInProcess(
      ['waiver', 'add', '--check', 'LB_ORPHANED', '--account', '1987654321098765', '--resource', 'lb-*', '--owner', 'team-network', '--reason', 'accepted until the Q3 migration', '--category', 'mitigated', '--ticket', 'NET-42'],
      env,
    );
    expect(add.status).toBe(0);
    const token = await runCliInProcess(['token', 'create', '--role', 'viewer', '--name', 'ci-bot'], env);
    expect(token.status).toBe(0);
    // What is already stored (or comes through another writer) holds the escapes.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      await pg.query('UPDATE waivers SET owner = $1, reason = $2, ticket = $3, resource = $4', [`team${ESCAPES}network`, `reason${ESCAPES} long enough`, `NET${ESCAPES}42`, `lb-*${ESCAPES}`]);
      await pg.query('UPDATE api_tokens SET name = $1', [`ci${ESCAPES}bot`]);
    } finally {
      await pg.end();
    }
    const waivers = await runCliInProcess(['waiver', 'list'], env);
    expect(waivers.status).toBe(0);
    expect(controls(waivers.stdout)).toEqual([]);
    expect(waivers.stdout).toContain('teamXnetwork');
    const tokens = await runCliInProcess(['token', 'list'], env);
    expect(tokens.status).toBe(0);
    expect(controls(tokens.stdout)).toEqual([]);
    expect(tokens.stdout).toContain('ciXbot');
    // JSON keeps the stored value exactly (escaped by JSON itself: \u001b, never a raw ESC).
    const json = await runCliInProcess(['token', 'list', '--format', 'json'], env);
    expect((JSON.parse(json.stdout) as { name: string }[])[0]!.name).toBe(`ci${ESCAPES}bot`);
  }, 180_000);
});
