/**
 * A fleet directory's symbolic links cannot escape it. A `cluster.json` linked to a file
 * outside the directory (the review used `/proc/self/environ`) is a coverage gap naming the path with code
 * EOUTSIDE and is never opened; a link to another file inside the directory still works; a malformed JSON
 * file's error names the file and position but never quotes its content (errors reach a scan's `error`,
 * readable over the API).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetValidationError, loadFleetDirectory, OUTSIDE_FLEET_CODE } from '@app/collectors';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const STOREFRONT = 'accounts/1234567890123456/regions/cn-beijing/clusters/c81faa03ae9366a2df0093610b2aca766';
const SECRET = 'FLEET_LINK_SECRET=hunter2-do-not-leak';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'fleet-links-'));
  writeFileSync(join(work, 'outside.env'), `${SECRET}\0PATH=/root\0`);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function copy(name: string): string {
  const dir = join(work, name);
  cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

describe('fleet directory links', () => {
  it('a cluster.json linked outside the directory is a gap naming the path, and nothing of the target is read', () => {
    const dir = copy('out');
    const file = join(dir, ...`${STOREFRONT}/cluster.json`.split('/'));
    unlinkSync(file);
    symlinkSync(join(work, 'outside.env'), file);
    const snapshot = loadFleetDirectory(dir);
    const gap = snapshot.coverage.find((c) => c.status === 'failed' && c.errorCode === OUTSIDE_FLEET_CODE);
    expect(gap, JSON.stringify(snapshot.coverage.filter((c) => c.status === 'failed'))).toBeDefined();
    expect(gap!.message).toContain(`${STOREFRONT}/cluster.json`);
    expect(gap!.message).toContain('outside the fleet directory');
    expect(JSON.stringify(snapshot)).not.toContain('hunter2');
  });

  it('/proc/self/environ through a linked kubernetes file is refused the same way', () => {
    const dir = copy('proc');
    const file = join(dir, ...`${STOREFRONT}/kubernetes/events.yaml`.split('/'));
    unlinkSync(file);
    symlinkSync('/proc/self/environ', file);
    const snapshot = loadFleetDirectory(dir);
    const gap = snapshot.coverage.find((c) => c.status === 'failed' && c.errorCode === OUTSIDE_FLEET_CODE);
    expect(gap?.message).toContain(`${STOREFRONT}/kubernetes/events.yaml`);
    expect(JSON.stringify(snapshot)).not.toContain('PATH=');
  });

  it('a linked directory resolving outside is refused for every file under it', () => {
    const dir = copy('outdir');
    const outside = join(work, 'kube-outside');
    cpSync(join(dir, ...`${STOREFRONT}/kubernetes`.split('/')), outside, { recursive: true });
    rmSync(join(dir, ...`${STOREFRONT}/kubernetes`.split('/')), { recursive: true });
    symlinkSync(outside, join(dir, ...`${STOREFRONT}/kubernetes`.split('/')));
    const snapshot = loadFleetDirectory(dir);
    expect(snapshot.coverage.some((c) => c.api === 'kubernetes' && c.status === 'failed' && c.errorCode === OUTSIDE_FLEET_CODE)).toBe(true);
  });

  it('a link to another file inside the directory is still followed', () => {
    const dir = copy('inside');
    const target = join(dir, 'cluster-copy.json');
    const file = join(dir, ...`${STOREFRONT}/cluster.json`.split('/'));
    writeFileSync(target, readFileSync(file));
    unlinkSync(file);
    symlinkSync(target, file);
    const snapshot = loadFleetDirectory(dir);
    expect(snapshot.coverage.filter((c) => c.status === 'failed')).toEqual([]);
  });

  it('a malformed JSON file: the error names the file, never its content', () => {
    const dir = copy('malformed');
    const file = join(dir, ...`${STOREFRONT}/cluster.json`.split('/'));
    writeFileSync(file, SECRET);
    let err: unknown;
    try {
      loadFleetDirectory(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FleetValidationError);
    expect((err as Error).message).toContain(`${STOREFRONT}/cluster.json`);
    expect((err as Error).message).not.toContain('hunter2');
    expect((err as Error).message).not.toContain('FLEET_LINK');
  });
});
