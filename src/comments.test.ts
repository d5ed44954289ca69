/**
 * Comments a reader can follow: no source file cites an issue, a part or a numbered rule of a
 * document the repository does not hold (the word issue, part or rule followed by a number); rules
 * are cited by name, `docs/rules/<area>.md#<heading>`, and every such citation names a heading that
 * exists. The other way round, every rule names the files that implement it (an `Implemented in:`
 * line under its heading), and those files exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;
const ROOT = resolve(SRC, '..');
const SELF = relative(SRC, import.meta.filename);

/** A citation by number: issue, part or rule (any case, singular or plural), an optional #, digits. */
const NUMBERED = /\b(?:issue|part|rule)s? ?#?\d+/gi;
/** A citation of an issue by its area: "(orders issue, …)", "the issue's rule". */
const BY_AREA =
  /\b(?:orders|observability|market data|strategies|sandbox|tunnel|mail|auth) issue\b|\bthe issue'?s?\b/gi;
/** A citation by name. */
const BY_NAME = /docs\/rules\/([a-z-]+)\.md#([a-z0-9-]+)/g;

const RULES = join(ROOT, 'docs', 'rules');
/**
 * What follows a rule's heading (its first non-empty line): the files that implement the rule, so a
 * reader of the rule finds its code as a reader of the code finds its rule.
 */
const IMPLEMENTED_IN = 'Implemented in:';
/**
 * A backticked path on that line: it holds a `/` and ends in .ts, .tsx, .mjs or .md. Names of
 * functions and classes in parentheses (`placementMargin`) hold no `/`, so they are not read as paths.
 */
const IMPLEMENTING_PATH = /`([^`\s]*\/[^`\s]*\.(?:ts|tsx|mjs|md))`/g;

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The repo-relative paths an `Implemented in:` line names. */
function implementingPaths(line: string): string[] {
  return [...line.matchAll(IMPLEMENTING_PATH)].map((m) => m[1]!);
}

function headingsOf(area: string): Set<string> | undefined {
  const file = join(ROOT, 'docs', 'rules', `${area}.md`);
  if (!existsSync(file)) return undefined;
  return new Set([...readFileSync(file, 'utf8').matchAll(/^## +(\S+)\s*$/gm)].map((m) => m[1]!));
}

describe('comments cite what the repository holds', () => {
  const files = sources(SRC).filter((f) => relative(SRC, f) !== SELF);

  it('no source file cites an issue, part or rule by number, or an issue by its area', () => {
    const found: string[] = [];
    for (const f of files) {
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const m of [...line.matchAll(NUMBERED), ...line.matchAll(BY_AREA)])
            found.push(`${relative(SRC, f)}:${i + 1}: ${m[0]}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('every docs/rules citation names a file and a heading that exist', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(BY_NAME)) {
        cited++;
        const headings = headingsOf(m[1]!);
        if (!headings?.has(m[2]!)) missing.push(`${relative(SRC, f)}: ${m[0]}`);
      }
    }
    expect(cited).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('every docs/architecture.md section a comment names exists', () => {
    const sections = new Set(
      [...readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8').matchAll(/^## +(.+?)\s*$/gm)].map((m) =>
        m[1]!.toLowerCase(),
      ),
    );
    const missing = files.flatMap((f) =>
      [
        ...readFileSync(f, 'utf8')
          .replace(/\n \* /g, ' ')
          .matchAll(/docs\/architecture\.md, "([^"]+)"/g),
      ]
        .filter((m) => !sections.has(m[1]!.toLowerCase()))
        .map((m) => `${relative(SRC, f)}: ${m[1]}`),
    );
    expect(missing).toEqual([]);
  });

  it('every docs/rules heading names the files that implement it, and they exist', () => {
    // A rule whose files were renamed or split would otherwise keep pointing at code that is gone;
    // a line naming no file at all ("documentation only") is a fault too: every rule has its code.
    const faults: string[] = [];
    let checked = 0;
    for (const name of readdirSync(RULES).filter((n) => n.endsWith('.md'))) {
      const lines = readFileSync(join(RULES, name), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!line.startsWith('## ')) return;
        checked++;
        const where = `docs/rules/${name}#${line.slice(3).trim()}`;
        const next = lines.slice(i + 1).find((l) => l.trim() !== '');
        if (!next?.startsWith(IMPLEMENTED_IN)) {
          faults.push(`${where}: no "${IMPLEMENTED_IN}" line under the heading`);
          return;
        }
        const paths = implementingPaths(next);
        if (paths.length === 0) faults.push(`${where}: "${IMPLEMENTED_IN}" names no file`);
        for (const p of paths) if (!existsSync(join(ROOT, p))) faults.push(`${where}: ${p} does not exist`);
      });
    }
    expect(checked).toBeGreaterThan(0);
    expect(faults).toEqual([]);
  });

  it('the Implemented-in parser finds the paths of a line, and only them', () => {
    expect(
      implementingPaths(
        'Implemented in: `src/modules/sandbox/core/margin.ts` (`placementMargin`), `web/src/main.tsx`, ' +
          '`scripts/bench.mjs`, `docs/rules/web.md`.',
      ),
    ).toEqual([
      'src/modules/sandbox/core/margin.ts',
      'web/src/main.tsx',
      'scripts/bench.mjs',
      'docs/rules/web.md',
    ]);
    // A name, a path of another kind and a bare file name are not implementing paths.
    expect(implementingPaths('Implemented in: `SandboxService.reset`, `web/dist`, `money.ts`.')).toEqual([]);
  });

  it('the scan sees a numbered citation where there is one', () => {
    // Built from words and numbers, so this file does not hold what it forbids.
    const cited = ['issue', 'Part', 'rules', 'issue #'].map(
      (w, i) => `${w}${w.endsWith('#') ? '' : ' '}${i + 6}`,
    );
    expect(`see ${cited.join(', ')}-9`.match(NUMBERED)).toEqual(cited);
    expect('a partial 3-leg order; rule-based'.match(NUMBERED)).toBeNull();
    expect('(orders issue, "Brokers"); the issue\'s rule'.match(BY_AREA)).toEqual([
      'orders issue',
      "the issue's",
    ]);
    expect('issues a new API key'.match(BY_AREA)).toBeNull();
  });
});
