/**
 * Metadata of every registered check (STYLE.md F.33): unique well-formed ids, severity in the enum,
 * remediation and source present and citing a seed file, a CCM source path or an API doc, title <= 80.
 */
import { describe, expect, it } from 'vitest';
import { SEVERITIES } from '@app/domain';
import { CHECKS, CHECK_IDS, getCheck } from '@app/checks';

const CATEGORIES = ['quota', 'ownership', 'version', 'configuration'];
const RESOURCE_KINDS = [
  'Account',
  'Region',
  'Cluster',
  'Node',
  'Service',
  'LoadBalancer',
  'VServerGroup',
  'EcsInstance',
  'VSwitch',
  'RamRole',
];
/** The ids of the walking-skeleton issue, which must stay registered (checks.md: never rename). */
const REQUIRED_IDS = [
  'CLB_BACKEND_QUOTA',
  'ECS_LB_ATTACHMENT_QUOTA',
  'CLUSTER_MODE_BLOWUP',
  'NODEPORT_EPHEMERAL_OVERLAP',
  'NODEPORT_IN_EPHEMERAL_RANGE',
  'LB_ORPHANED',
  'LB_REUSE_OF_CCM_CREATED',
  'LB_REUSE_CROSS_VPC',
  'CCM_ANNOTATION_UNSUPPORTED',
  'CCM_RAM_PERMISSION_GAP',
];

describe('check metadata', () => {
  it('registers the walking-skeleton checks with unique ids', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(REQUIRED_IDS));
    expect([...CHECK_IDS].sort()).toEqual([...ids].sort());
  });

  describe.each(CHECKS.map((c) => [c.id, c] as const))('%s', (id, check) => {
    it('has a well-formed id, category, kind and severity', () => {
      expect(id).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(CATEGORIES).toContain(check.category);
      expect(RESOURCE_KINDS).toContain(check.resourceKind);
      expect(SEVERITIES).toContain(check.defaultSeverity);
      expect(getCheck(id)).toBe(check);
    });

    it('has a title of at most 80 characters and a description', () => {
      expect(check.title.length).toBeGreaterThan(10);
      expect(check.title.length).toBeLessThanOrEqual(80);
      expect(check.description.length).toBeGreaterThan(40);
    });

    it('has a remediation with a docs URL', () => {
      expect(check.remediation.length).toBeGreaterThan(40);
      expect(check.remediation).toMatch(/https:\/\/www\.alibabacloud\.com\/help\//);
    });

    it('cites a seed file, a CCM source path or an API doc', () => {
      expect(check.source).toMatch(/seeds\/00[0-4]_[0-9a-f]{16}\.txt|pkg\/[a-z/]+\.go|Quota Center|API/);
      expect(check.source).toMatch(/seeds\/00[0-4]_[0-9a-f]{16}\.txt/);
    });
  });

  it('returns undefined for unknown ids', () => {
    expect(getCheck('NOPE')).toBeUndefined();
  });
});
