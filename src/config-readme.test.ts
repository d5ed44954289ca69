/**
 * The README's configuration table says what config.ts reads: every variable config.ts reads is
 * named in the README's "Configuration" section, and every variable the table's first column
 * lists is one config.ts reads. A variable added, renamed or dropped on one side only fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The variables `loadConfig` reads (each through `check('NAME', …)`). */
function configVariables(): string[] {
  const text = readFileSync(join(ROOT, 'src', 'config.ts'), 'utf8');
  return [...new Set([...text.matchAll(/\bcheck\(\s*'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!))].sort();
}

/** The README's "Configuration" section: the names it mentions, and those its table's rows start with. */
function readmeVariables(): { mentioned: Set<string>; listed: string[] } {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = text.indexOf('\n## Configuration');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  const mentioned = new Set([...section.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1]!));
  const listed = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
  return { mentioned, listed: [...new Set(listed)].sort() };
}

describe('the README configuration table and config.ts agree', () => {
  it('every variable config.ts reads is in the README; every variable the table lists is read', () => {
    const read = configVariables();
    const { mentioned, listed } = readmeVariables();
    expect(read.length).toBeGreaterThan(30);
    expect(read.filter((v) => !mentioned.has(v))).toEqual([]);
    expect(listed.filter((v) => !read.includes(v))).toEqual([]);
  });
});
