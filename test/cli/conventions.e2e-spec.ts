/**
 * The CLI's shared conventions, on the built CLI (its `main()` in this process, `runCliInProcess`: output captured as
 * a pipe takes it, no terminal; one process start per command cost the file most of its CPU):
 * - an explicit `--fleet` wins over `DATABASE_URL` exported in the environment;
 * - one format vocabulary (`markdown`, alias `md`; `table`, alias `text`) and `-o/--out` on every command
 *   that writes a file (`--output` still accepted on `scan` for a release);
 * - tables piped: no colour codes, no line wider than 120 columns.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess as runCli, SAMPLE_FLEET } from './cli-run.util';

const NOW = '2026-11-23T00:00:00Z';
/** A PostgreSQL nobody listens on: a command that used it would fail (exit 3). */
const UNUSED_DB = { DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none' };

describe('CLI conventions (e2e)', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  /** A fresh directory for the files a case writes, removed after the file. */
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'fa-conventions-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('forecast headroom --fleet DIR reads DIR although DATABASE_URL is exported', async () => {
    const r = await runCli(['forecast', 'headroom', '--fleet', SAMPLE_FLEET, '--now', NOW, '--format', 'json'], UNUSED_DB);
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { clusters?: unknown[] } | unknown[]) ).toBeTruthy();
    // Given on the command line, both are still refused together.
    const both = await runCli(['forecast', 'headroom', '--fleet', SAMPLE_FLEET, '--database-url', UNUSED_DB.DATABASE_URL]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('give exactly one of');
  });

  it('report --format md and --format markdown are the same; -o writes the file', async () => {
    const dir = tempDir();
    const md = await runCli(['report', '--fleet', SAMPLE_FLEET, '--now', NOW, '--format', 'md', '-o', join(dir, 'a.md')], UNUSED_DB);
    expect(md.status, md.stderr).toBe(0);
    const markdown = await runCli(['report', '--fleet', SAMPLE_FLEET, '--now', NOW, '--format', 'markdown', '--out', join(dir, 'b.md')], UNUSED_DB);
    expect(markdown.status, markdown.stderr).toBe(0);
    const strip = (t: string) => t.replace(/^.*Generated at.*$/m, '');
    expect(strip(readFileSync(join(dir, 'a.md'), 'utf8'))).toBe(strip(readFileSync(join(dir, 'b.md'), 'utf8')));
    const bad = await runCli(['report', '--fleet', SAMPLE_FLEET, '--format', 'pdf']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/expected one of html, markdown, csv, json/);
  });

  it('scan -o / --out / --output write the same report; md is markdown', async () => {
    const dir = tempDir();
    for (const [flag, file] of [['-o', 'a.md'], ['--out', 'b.md'], ['--output', 'c.md']] as const) {
      const r = await runCli(['scan', '--fleet', SAMPLE_FLEET, '--now', NOW, '--format', 'md', flag, join(dir, file), '--no-progress']);
      expect(r.status, r.stderr).toBe(0);
    }
    // Each scan has its own id and finish time.
    const read = (f: string) => readFileSync(join(dir, f), 'utf8').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'ID').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T');
    const a = read('a.md');
    expect(a).toContain('|');
    expect(read('b.md')).toBe(a);
    expect(read('c.md')).toBe(a);
    expect((await runCli(['scan', '--help'])).stdout).not.toContain('--output');
  });

  it('piped tables carry no colour codes and fit 120 columns (forecast headroom, checks)', async () => {
    for (const args of [
      ['forecast', 'headroom', '--fleet', SAMPLE_FLEET, '--now', NOW],
      ['checks'],
    ]) {
      const r = await runCli(args);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout, args.join(' ')).not.toMatch(new RegExp(String.fromCharCode(27) + '\\['));
      for (const line of r.stdout.split('\n')) expect(line.length, `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(120);
    }
  });
});
