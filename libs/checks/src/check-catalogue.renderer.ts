import { DEFAULT_AUDIT_SETTINGS } from './audit-settings.constants';
import { CHECKS } from './check.registry';
import type { CheckCategory, CheckDefinition } from './check.types';

/**
 * The check catalogue for users, generated from the registry (STYLE.md F.27: "the registry is the source for
 * the API's rule listing and the generated docs"): `docs/checks.md` is exactly
 * `renderCheckCatalogueMarkdown()`, and a test fails when the two differ.
 */

/** Section titles of the categories, in catalogue order (`../shared/checks.md`). */
export const CHECK_CATEGORY_TITLES: Readonly<Record<CheckCategory, string>> = Object.freeze({
  quota: 'Quotas and capacity',
  ownership: 'Ownership and reuse',
  version: 'CCM version and RAM permissions',
  configuration: 'Service configuration',
});

/** The command that regenerates `docs/checks.md` (named in the file header and in the test's message). */
export const DOCS_CHECKS_COMMAND = 'npm run docs:checks';

/** One row of the catalogue listing (CLI `checks`, API): the public metadata of a check, no behaviour. */
export interface CheckSummary {
  id: string;
  title: string;
  category: CheckCategory;
  severity: CheckDefinition['defaultSeverity'];
  resourceKind: CheckDefinition['resourceKind'];
  description: string;
  remediation: string;
  source: string;
  /** Settings the check reads, with their defaults (`checks.<id>.enabled` / `.severity` apply to every check). */
  settings: { path: string; default: string }[];
}

/** The value of a dotted settings path in the defaults, as text (`quota.warningRatio` -> `0.8`). */
export function defaultSettingText(path: string): string | undefined {
  let v: unknown = DEFAULT_AUDIT_SETTINGS;
  for (const part of path.split('.')) {
    if (typeof v !== 'object' || v === null || !(part in v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? String(v) : undefined;
}

/** The public metadata of every registered check, in catalogue order. */
export function checkCatalogue(checks: readonly CheckDefinition[] = CHECKS): CheckSummary[] {
  return checks.map((c) => ({
    id: c.id,
    title: c.title,
    category: c.category,
    severity: c.defaultSeverity,
    resourceKind: c.resourceKind,
    description: c.description,
    remediation: c.remediation,
    source: c.source,
    settings: (c.settings ?? []).map((path) => ({ path, default: defaultSettingText(path) ?? '' })),
  }));
}

/**
 * Markdown-safe prose: angle brackets as entities (`<service-name>` is text, not an HTML tag) and `*` escaped
 * (`KubernetesMasterRole-*` is a wildcard, not emphasis).
 */
function prose(text: string): string {
  return text.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*');
}

/** GitHub's anchor of a `### ID` heading. */
function anchor(id: string): string {
  return id.toLowerCase();
}

/**
 * The Markdown of `docs/checks.md`: a header saying it is generated and how to regenerate it, an index per
 * section, then one section per check (title, severity, resource kind, what it measures, remediation, sources,
 * settings). Deterministic (registry order, no dates), and stable under Prettier (no tables, no wrapping).
 */
export function renderCheckCatalogueMarkdown(checks: readonly CheckDefinition[] = CHECKS): string {
  const catalogue = checkCatalogue(checks);
  const out: string[] = [];
  out.push(
    `<!-- Generated from the check registry (libs/checks) by renderCheckCatalogueMarkdown(). Do not edit: run \`${DOCS_CHECKS_COMMAND}\`. -->`,
    '',
    '# Check catalogue',
    '',
    `${catalogue.length} checks audit Service type=LoadBalancer on Alibaba Cloud ACK fleets. Every evaluated (check, ` +
      'resource) pair is `pass`, `fail` or `skipped` (with the reason: the data it needs was not read); only failures ' +
      'become findings. A finding carries the check id, its severity, the resource, a message with the measured ' +
      'figures, the remediation and the sources below, and a fingerprint (stable hash of check id and resource).',
    '',
    'Severity: `critical` breaks now or at the next reconcile, `warning` will break or wastes money, `info` is ' +
      'hygiene. The severity shown is the default; some checks raise or lower it from what they measured (quota ' +
      'checks: warning from `quota.warningRatio`, critical from `quota.criticalRatio`). Every check can be disabled ' +
      'or given another severity with the settings `checks.<ID>.enabled` and `checks.<ID>.severity`.',
    '',
    'Settings are given in a YAML or JSON file passed with `--settings FILE` to `scan`, `demo`, `serve` and ' +
      '`worker`, by their dotted paths: `ccmScale.maxLoadBalancerServices: 40` is `ccmScale: { maxLoadBalancerServices: 40 }`. ' +
      'An unknown key, an out-of-range value or an unknown check id is refused, naming the file and the path.',
    '',
    'Ids are a public contract (reports, waivers, metrics labels, alerts): they are never renamed.',
  );
  const categories = Object.keys(CHECK_CATEGORY_TITLES) as CheckCategory[];
  out.push('', '## Index');
  for (const cat of categories) {
    const list = catalogue.filter((c) => c.category === cat);
    if (list.length === 0) continue;
    out.push('', `${CHECK_CATEGORY_TITLES[cat]}:`, '');
    for (const c of list) out.push(`- [\`${c.id}\`](#${anchor(c.id)}) (${c.severity}): ${prose(c.title)}`);
  }
  for (const cat of categories) {
    const list = catalogue.filter((c) => c.category === cat);
    if (list.length === 0) continue;
    out.push('', `## ${CHECK_CATEGORY_TITLES[cat]}`);
    for (const c of list) {
      out.push(
        '',
        `### ${c.id}`,
        '',
        `**${prose(c.title)}**`,
        '',
        `- Default severity: ${c.severity}`,
        `- Resource: ${c.resourceKind}`,
        ...(c.settings.length
          ? [`- Settings: ${c.settings.map((s) => `\`${s.path}\` (default ${s.default})`).join(', ')}`]
          : []),
        '',
        prose(c.description),
        '',
        `Remediation: ${prose(c.remediation)}`,
        '',
        `Sources: ${prose(c.source)}`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}
