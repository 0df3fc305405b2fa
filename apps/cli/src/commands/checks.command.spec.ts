import { describe, expect, it } from 'vitest';
import { CHECKS, checkCatalogue, renderCheckCatalogueMarkdown } from '@app/checks';
import { checksCommand, renderChecks, renderChecksTable } from './checks.command';

describe('fleet-audit checks', () => {
  it('lists every check with id, severity, category and title as a table', () => {
    const out = renderChecks({ format: 'table' });
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+SEVERITY\s+CATEGORY\s+TITLE$/);
    for (const c of CHECKS) {
      const at = lines.findIndex((l) => l.startsWith(`${c.id} `));
      expect(lines[at], c.id).toMatch(new RegExp(`^${c.id}\\s+${c.defaultSeverity}\\s+${c.category}\\s+`));
      // A long title wraps onto indented lines under its column.
      let row = lines[at];
      for (let i = at + 1; i < lines.length && /^ {10,}\S/.test(lines[i]); i += 1) row += ` ${lines[i].trim()}`;
      expect(row.replace(/\s+/g, ' ')).toContain(c.title.replace(/\s+/g, ' '));
    }
    expect(out).toContain(`${CHECKS.length} checks.`);
  });

  it('fits the table in the given width, wrapping titles under their column', () => {
    for (const width of [80, 100, 120]) {
      const lines = renderChecksTable(checkCatalogue(), width).trimEnd().split('\n');
      for (const l of lines) expect(l.length, `${width}: ${l}`).toBeLessThanOrEqual(width);
    }
  });

  it('prints the full metadata as JSON, filtered by category', () => {
    const all = JSON.parse(renderChecks({ format: 'json' })) as {
      id: string;
      category: string;
      remediation: string;
    }[];
    expect(all.map((c) => c.id)).toEqual(CHECKS.map((c) => c.id));
    expect(all.every((c) => c.remediation.length > 0)).toBe(true);
    const quota = JSON.parse(renderChecks({ format: 'json', category: 'quota' })) as { category: string }[];
    expect(quota.length).toBeGreaterThan(0);
    expect(quota.every((c) => c.category === 'quota')).toBe(true);
  });

  it('prints docs/checks.md with --format markdown', () => {
    expect(renderChecks({ format: 'markdown' })).toBe(renderCheckCatalogueMarkdown());
  });

  it('parses its options and hands the action to run', async () => {
    let pending: Promise<number> | undefined;
    const cmd = checksCommand((p) => {
      pending = p;
    }).exitOverride();
    const write = process.stdout.write.bind(process.stdout);
    const chunks: string[] = [];
    process.stdout.write = ((s: string) => (chunks.push(s), true)) as typeof process.stdout.write;
    try {
      await cmd.parseAsync(['--format', 'json', '--category', 'version'], { from: 'user' });
      expect(await pending).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    const out = JSON.parse(chunks.join('')) as { category: string }[];
    expect(out.every((c) => c.category === 'version')).toBe(true);
    expect(() =>
      checksCommand(() => undefined)
        .exitOverride()
        .configureOutput({ writeErr: () => undefined })
        .parse(['--format', 'xml'], { from: 'user' }),
    ).toThrow();
  });
});
