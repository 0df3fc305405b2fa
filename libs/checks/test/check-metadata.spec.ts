import { readFileSync } from 'node:fs';
import { join } from 'node:path';
/**
 * Metadata of every registered check (STYLE.md F.33): unique well-formed ids, severity in the enum,
 * remediation and source present and citing a seed file, a CCM source path or an API doc, title <= 80.
 */
import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS, SEVERITIES } from '@app/domain';
import { CHECKS, CHECK_IDS, KIND_CHECKS, getCheck } from '@app/checks';

/** The anchors of docs/sources.md (`<a id="...">`), which `source` fields cite. */
const SOURCES_ANCHORS = [...readFileSync(join(__dirname, '..', '..', '..', 'docs', 'sources.md'), 'utf8').matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((m) => m[1]);

const CATEGORIES = ['quota', 'ownership', 'version', 'configuration'];
/**
 * Every id of the catalogue (`../shared/checks.md`) in rules/, which must stay registered (checks.md: never rename),
 * in catalogue order; the checks of a kind folder (`KIND_CHECKS`) are placed among them by category.
 */
const REQUIRED_IDS = [
  // Quotas and capacity
  'CLB_BACKEND_QUOTA',
  'ECS_LB_ATTACHMENT_QUOTA',
  'CLB_LISTENER_QUOTA',
  'CLB_INSTANCE_QUOTA',
  'VSWITCH_IP_EXHAUSTION',
  'CLUSTER_MODE_BLOWUP',
  'NODEPORT_EPHEMERAL_OVERLAP',
  'NODEPORT_IN_EPHEMERAL_RANGE',
  'NODEPORT_RANGE_EXHAUSTION',
  'CCM_LARGE_SCALE_RISK',
  'NLB_SERVER_GROUP_BACKEND_QUOTA',
  'NLB_BACKEND_QUOTA',
  'NLB_SERVER_ADDED_QUOTA',
  'NLB_SERVER_GROUP_QUOTA',
  'NLB_LISTENER_QUOTA',
  'NLB_INSTANCE_QUOTA',
  'QUOTA_APPLICATION_REFUSED',
  // Ownership and reuse
  'LB_ORPHANED',
  'LB_NOT_FOUND_FOR_SERVICE',
  'LB_REUSE_OF_CCM_CREATED',
  'LB_REUSE_OF_APISERVER',
  'LB_REUSE_CROSS_VPC',
  'LB_REUSE_ADDRESS_TYPE_MISMATCH',
  'LB_LISTENER_PORT_CONFLICT',
  'LB_REUSE_NAME_COLLISION',
  'LB_REUSE_LISTENERS_NOT_MANAGED',
  'LB_CCM_CREATED_MARKED_REUSED',
  'LB_RENAME_TAG_MISSING',
  'LB_SHARED_SPEC_DISCONTINUED',
  'LB_NO_BACKENDS',
  'LB_CONFIG_DRIFT',
  'SERVICE_LB_PENDING',
  'NLB_ORPHANED',
  'NLB_SERVER_GROUP_ORPHANED',
  // CCM version and RAM permissions
  'CCM_ANNOTATION_UNSUPPORTED',
  'CCM_VERSION_BEHAVIOUR_GAP',
  'CCM_RAM_PERMISSION_GAP',
  'CCM_FINALIZER_MISSING',
  'NLB_CCM_UNSUPPORTED',
  // Service configuration
  'SERVICE_ENI_ON_FLANNEL',
  'SERVICE_ENI_STRING_TARGETPORT',
  'SERVICE_HTTPS_TO_HTTPS_PORT',
  'SERVICE_IMMUTABLE_CHANGE',
  'SERVICE_NO_CONNECTION_DRAIN',
  'SERVICE_LOCAL_IN_CLUSTER_ACCESS',
  'SERVICE_EVENT_ERROR',
  'NLB_ZONE_MAPS_MISSING',
];

describe('check metadata', () => {
  it('registers the whole catalogue with unique ids, in catalogue order', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const kindIds = new Set(KIND_CHECKS.map((c) => c.id));
    expect(ids.filter((id) => !kindIds.has(id))).toEqual(REQUIRED_IDS);
    expect(ids.filter((id) => kindIds.has(id)).sort()).toEqual([...kindIds].sort());
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

    it('cites an ACK document, with anchors of docs/sources.md that exist, never a file outside the repository', () => {
      // Every check rests on at least one ACK document (the seeds are copies of them: docs/sources.md).
      expect(check.source).toMatch(/ACK "[^"]+"[^(]*\(docs\/sources\.md#ack-[a-z-]+\)/);
      for (const [, anchor] of check.source.matchAll(/docs\/sources\.md#([a-z0-9-]+)/g)) expect(SOURCES_ANCHORS, `${check.id}: #${anchor}`).toContain(anchor);
      expect(check.source).not.toMatch(/seeds\/|research\//);
    });
  });

  it('lists the checks section by section (category order of checks.md)', () => {
    const ranks = CHECKS.map((c) => CATEGORIES.indexOf(c.category));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('returns undefined for unknown ids', () => {
    expect(getCheck('NOPE')).toBeUndefined();
  });
});
