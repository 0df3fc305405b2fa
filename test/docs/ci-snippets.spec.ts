/**
 * The CI snippets of README "Planning manifests in CI" (a GitHub Actions workflow and a GitLab CI file that comment
 * the plan on a pull / merge request): each parses as YAML, plans the rendered manifests with `--fail-on`, writes the
 * Markdown comment (`--format markdown`) and posts it, and fails the job on the plan's exit code. They need a CI
 * service to run; this keeps them well-formed and consistent with the CLI's flags.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The YAML block of the README whose first line is `# <marker>`. */
function block(marker: string): string {
  const m = new RegExp(`\`\`\`yaml\\n# ${marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n([\\s\\S]*?)\`\`\``).exec(README);
  expect(m, `README has a yaml block starting with # ${marker}`).not.toBeNull();
  return m![1]!;
}

describe('README CI snippets', () => {
  it('GitHub Actions: plans on pull requests, comments the Markdown plan, uploads the SARIF, fails on the plan\'s exit code', () => {
    const text = block('.github/workflows/fleet-audit-plan.yaml');
    const wf = parse(text) as { on: { pull_request: unknown }; permissions: Record<string, string>; jobs: { plan: { steps: Record<string, unknown>[] } } };
    expect(wf.on.pull_request).toBeDefined();
    expect(wf.permissions).toMatchObject({ 'pull-requests': 'write', 'security-events': 'write' });
    const steps = wf.jobs.plan.steps;
    const run = steps.map((s) => String(s.run ?? '')).join('\n');
    expect(run).toMatch(/plan -f rendered\.yaml --cluster \S+ --fail-on critical/);
    expect(run).toContain('--format markdown -o plan.md');
    expect(run).toContain('--format sarif -o plan.sarif');
    expect(steps.some((s) => String(s.uses).startsWith('marocchino/sticky-pull-request-comment@') && (s.with as { path: string }).path === 'plan.md')).toBe(true);
    expect(steps.some((s) => String(s.uses).startsWith('github/codeql-action/upload-sarif@'))).toBe(true);
    expect(steps.at(-1)).toMatchObject({ if: "steps.plan.outputs.status != '0'", run: 'exit ${{ steps.plan.outputs.status }}' });
  });

  it('GitLab CI: plans on merge requests, posts the Markdown plan as a note, reports JUnit, exits with the plan\'s status', () => {
    const ci = parse(block('.gitlab-ci.yml')) as Record<string, { rules: { if: string }[]; script: string[]; artifacts?: { reports?: { junit?: string } } }>;
    const job = ci['fleet-audit-plan']!;
    expect(job.rules[0]!.if).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
    const script = job.script.join('\n');
    expect(script).toMatch(/plan -f \$CI_PROJECT_DIR\/rendered\.yaml --cluster \S+ --fail-on critical/);
    expect(script).toContain('--format markdown -o $CI_PROJECT_DIR/plan.md');
    expect(script).toContain('/merge_requests/${process.env.CI_MERGE_REQUEST_IID}/notes');
    expect(job.script.at(-1)).toBe('exit $status');
    expect(job.artifacts?.reports?.junit).toBe('plan.xml');
  });
});
