/**
 * Where the check fixtures are (STYLE.md G.34: `<CHECK_ID>/{pass,fail,skipped}.<case>.json`): the folders of
 * libs/checks/test/fixtures, and those of each load-balancer kind folder of libs/checks
 * (`src/kinds/<kind>/fixtures/<CHECK_ID>/`, beside the kind's rules: see src/kinds/index.ts), so that a kind's
 * fixtures are found without a list naming the kind. The fixture spec and the golden digests read this.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** libs/checks/test/fixtures: the fixtures of the checks in rules/. */
export const RULES_FIXTURES = join(__dirname, 'fixtures');
/** libs/checks/src/kinds: one folder per kind that keeps its checks there. */
const KINDS = join(__dirname, '..', 'src', 'kinds');

/** One check's fixture folder. */
export interface CheckFixtureFolder {
  /** The folder's name: the check id. */
  readonly checkId: string;
  /** Its absolute path. */
  readonly dir: string;
}

/** The sub-folders of `root`, by name; none when `root` does not exist. */
function folders(root: string): CheckFixtureFolder[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => ({ checkId: d.name, dir: join(root, d.name) }));
}

/**
 * Every check fixture folder, sorted by check id.
 * @throws Error when two folders name the same check (a check's fixtures live in one place)
 */
export function checkFixtureFolders(): CheckFixtureFolder[] {
  const kindFolders = folders(KINDS).flatMap((kind) => folders(join(kind.dir, 'fixtures')));
  const all = [...folders(RULES_FIXTURES), ...kindFolders].sort((a, b) => (a.checkId < b.checkId ? -1 : a.checkId > b.checkId ? 1 : 0));
  for (let i = 1; i < all.length; i++)
    if (all[i].checkId === all[i - 1].checkId) throw new Error(`check ${all[i].checkId} has two fixture folders: ${all[i - 1].dir}, ${all[i].dir}`);
  return all;
}
