/** The README example extractor on small Markdown texts (test/docs/readme-examples.util.ts). */
import { describe, expect, it } from 'vitest';
import { expandNotation, fencedBlocks, parseCurl, shellCommands } from './readme-examples.util';

const md = [
  'text',
  '```sh',
  'npm install && npx fleet-audit demo      # comment with a quote: don\'t',
  'export A=1 B=$(openssl rand -hex 4)',
  'fleet-audit waiver add --check X --resource \'lb-bp1*\' \\',
  '    --reason "two words"',
  'npx fleet-audit worker &   # background',
  'curl -s http://h/graphql -H "Authorization: Bearer $TOKEN" -d \'{"query":',
  '  "{ a }"}\'',
  'npx fleet-audit scan --fleet DIR --format csv|markdown [--check ID] [--like N --labels a=b]',
  '```',
  '```graphql',
  '{ a }',
  '```',
].join('\n');

describe('README example extraction', () => {
  it('finds fenced blocks with their language and line', () => {
    expect(fencedBlocks(md).map((b) => [b.lang, b.line])).toEqual([
      ['sh', 2],
      ['graphql', 12],
    ]);
  });

  it('splits a shell block into commands: && lists, continuations, quotes across lines, comments, background', () => {
    const cmds = shellCommands(fencedBlocks(md)[0], { TOKEN: 't0k' });
    expect(cmds.map((c) => [c.line, c.text, c.background])).toEqual([
      [3, 'npm install', false],
      [3, 'npx fleet-audit demo', false],
      [4, 'export A=1 B=$(openssl rand -hex 4)', false],
      [5, "fleet-audit waiver add --check X --resource 'lb-bp1*' --reason \"two words\"", false],
      [7, 'npx fleet-audit worker', true],
      [8, 'curl -s http://h/graphql -H "Authorization: Bearer $TOKEN" -d \'{"query":\n  "{ a }"}\'', false],
      [10, 'npx fleet-audit scan --fleet DIR --format csv|markdown [--check ID] [--like N --labels a=b]', false],
    ]);
    expect(cmds[3].words.map((w) => w.value)).toEqual(['fleet-audit', 'waiver', 'add', '--check', 'X', '--resource', 'lb-bp1*', '--reason', 'two words']);
    expect(cmds[5].words[4].value).toBe('Authorization: Bearer t0k');
    expect(expandNotation(cmds[6].words.slice(2))).toEqual([
      ['scan', '--fleet', 'DIR', '--format', 'csv'],
      ['scan', '--fleet', 'DIR', '--format', 'markdown'],
    ]);
  });

  it('reads a curl command as a request', () => {
    const cmds = shellCommands(fencedBlocks(md)[0], { TOKEN: 't0k' });
    const req = parseCurl(cmds[5].words.slice(1).map((w) => w.value));
    expect(req).toEqual({
      url: 'http://h/graphql',
      method: 'POST',
      headers: { authorization: 'Bearer t0k', 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"query":\n  "{ a }"}',
    });
    expect(() => parseCurl(['--upload-file', 'x', 'http://h'])).toThrow(/--upload-file is not understood/);
  });
});
