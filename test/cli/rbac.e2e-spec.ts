/**
 * `fleet-audit rbac`, `iam-policy --trust` and `sim --rbac` as a user runs them (the built CLI): the printed
 * manifests are the collector's ClusterRole and its binding, a bad flag is one line naming it with exit 2, and
 * the simulator refuses a file without a ClusterRole the same way.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { clusterRoleBinding, leastPrivilegeClusterRole } from '@app/collectors';
import { runCli, SAMPLE_FLEET } from './cli-run.util';

describe('fleet-audit rbac (e2e)', { timeout: 120_000 }, () => {
  it('prints the ClusterRole and, with --user, its binding (YAML; JSON with --format json)', () => {
    const r = runCli(['rbac', '--user', '300000000000000001']);
    expect(r.status, r.stderr).toBe(0);
    const docs = loadAll(r.stdout);
    expect(docs).toEqual([leastPrivilegeClusterRole(), clusterRoleBinding(['300000000000000001'])]);
    const alone = runCli(['rbac', '--format', 'json']);
    expect(alone.status).toBe(0);
    expect(JSON.parse(alone.stdout)).toEqual(leastPrivilegeClusterRole());
    expect(alone.stderr).toContain('printed the ClusterRole only');
  });

  it('refuses a bad --user, --role-id, --trust with one line and exit 2', () => {
    for (const [args, msg] of [
      [['rbac', '--user', 'alice'], '--user: expected the numeric id of a RAM user or role, got "alice"'],
      [['rbac', '--grant-plan', '--role-id', '1'], '--grant-plan needs --config FILE and --role-id UID'],
      [['iam-policy', '--trust', 'prod'], '--trust prod: expected an account id (digits) or a RAM role ARN'],
    ] as const) {
      const r = runCli([...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(msg);
    }
  });

  it('iam-policy --trust prints the trust policy of the audit role', () => {
    const r = runCli(['iam-policy', '--trust', '1000000000000001']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      Version: '1',
      Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { RAM: ['acs:ram::1000000000000001:root'] } }],
    });
  });

  it('sim --rbac refuses a file without a ClusterRole, naming the file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fa-rbac-')), 'role.yaml');
    writeFileSync(file, 'kind: Role\nrules: []\n');
    const r = runCli(['sim', '--fleet', SAMPLE_FLEET, '--rbac', file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--rbac ${file}: expected a ClusterRole document`);
  });
});
