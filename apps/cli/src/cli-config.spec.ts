import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '@app/config';

/** Every `.ts` file under `dir` (not specs). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.spec.ts') ? [join(dir, d.name)] : [],
  );
}

describe('CLI options defaulted from the environment', () => {
  it("name only variables declared in libs/config as read by the CLI (commander's Option.env)", () => {
    const names = new Set<string>();
    for (const file of sources(__dirname)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\.env\('([A-Z0-9_]+)'\)/g)) names.add(m[1] as string);
    }
    expect([...names].sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'REDIS_URL', 'USER', 'WORKER_HEALTH_HOST', 'WORKER_HEALTH_PORT']);
    for (const name of names) {
      const spec = (ENV_VARS as Record<string, { usedBy: readonly string[] }>)[name];
      expect(spec?.usedBy, name).toContain('cli');
    }
  });
});
